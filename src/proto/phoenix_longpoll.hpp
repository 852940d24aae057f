#pragma once
// Phoenix's LongPoll transport: the HTTP side of a Channels socket when WebSockets are not
// available (phoenix.js LongPoll, Phoenix.Transports.LongPoll). The messages inside are the
// same serialized frames a WebSocket carries, read and written with proto/phoenix_message.hpp;
// this file is only the envelope around them. Pure: no HTTP client here.
//
// One session, as phoenix.js 1.7/1.8 and the server run it:
//   GET  <endpoint>/longpoll?<params>&vsn=2.0.0&         (no token yet: phoenix.js leaves "&")
//     <- 200 {"status":410,"token":T,"messages":[]}       a new session: the socket is open
//   GET  ...&vsn=2.0.0&token=T                            long poll, held up to window_ms (10 s)
//     <- 200 {"status":200,"token":T,"messages":["[\"1\",\"1\",\"room:1\",\"phx_reply\",{...}]", ...]}
//     <- 200 {"status":204,"token":T,"messages":[]}       nothing within the window: poll again
//   POST ...&token=T  Content-Type: application/x-ndjson, one serialized frame per line
//     <- 200 {"status":200}                               (408 when the session did not answer)
// The HTTP status is always 200; the real one is the body's "status". A 410 to a client that
// already has a token means the session is gone (phoenix.js closes with 3410 and reconnects).
// Every message is a JSON string holding one serialized frame: a V2 array for vsn=2.0.0, a V1
// object for vsn=1.0.0 (or no vsn), which the LongPoll transport accepts like the WebSocket.
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "proto/phoenix_message.hpp"

namespace stampede::proto::phx::longpoll {

inline constexpr std::string_view kTransportPath = "/longpoll";
// phoenix.js's POST Content-Type; the server splits the body into lines only for exactly this
// value, any other body is one message.
inline constexpr std::string_view kBatchContentType = "application/x-ndjson";
// phoenix.js (1.7.23, 1.8.16: MAX_LONGPOLL_BATCH_SIZE) posts at most this many messages per
// request and sends the rest once the server answered; 1.7.0 posted any number at once.
inline constexpr std::size_t kMaxBatchMessages = 100;
// phoenix.js 1.8 sends the socket's authToken in this header on every GET (not on POSTs); 1.7
// has no authToken. GETs ask for JSON: "Accept: application/json" in 1.8, while 1.7's XHR
// sends "Content-Type: application/json" instead.
inline constexpr std::string_view kAuthTokenHeader = "X-Phoenix-AuthToken";
inline constexpr std::string_view kPollAccept = "application/json";

// ---- URLs ------------------------------------------------------------------------------

struct QueryParam {
  std::string_view key;
  std::string_view value;
};

// The poll endpoint phoenix.js derives from the socket: `socket_endpoint` is what the app
// passes to `new Socket(...)` as an absolute URL of the mount path ("wss://host/socket",
// "http://host:4000/live"); ws:// and wss:// become http:// and https://. Then "/longpoll",
// the params in order (key and value percent-encoded as encodeURIComponent does; nested
// objects are the caller's to flatten into "a[b]" keys) and vsn last. Throws
// std::invalid_argument for an endpoint that is not an absolute ws/wss/http/https URL, or
// that already has a query or fragment.
std::string endpoint_url(std::string_view socket_endpoint, std::span<const QueryParam> params,
                         std::string_view vsn = "2.0.0");
// What phoenix.js's LongPoll.normalizeEndpoint makes of the WebSocket URL a Socket built
// (endPointURL(): "/websocket" after the mount path, then the params and vsn): ws:// and
// wss:// become http:// and https://, and the last "/websocket" (the regex is greedy) becomes
// "/longpoll". So a channels or LiveView client builds one URL and either transport uses it.
std::string endpoint_from_websocket_url(std::string_view websocket_url);
// The URL of one request: the endpoint URL and the session token. Before the first poll has
// given a token, phoenix.js serializes {token: null} to nothing and leaves a bare "&"; so does
// this, for byte-for-byte browser requests (the server ignores the empty pair).
std::string request_url(std::string_view endpoint_url, std::optional<std::string_view> token);
// encodeURIComponent of UTF-8 text: everything but A-Z a-z 0-9 - _ . ! ~ * ' ( ) as %XX.
void append_uri_component(std::string& out, std::string_view text);

// ---- Responses -------------------------------------------------------------------------

// A response body, to a GET or to a POST (which carries only the status).
struct Response {
  int status = 0;                     // the status phoenix.js acts on
  std::optional<std::string> token;   // the session token (GET responses)
  std::vector<std::string> messages;  // serialized frames, oldest first
};
// Decodes {"status": n, "token": t, "messages": [s, ...]}. status must be an integer HTTP
// status (100-599); token a string, null or absent; messages an array of strings or absent.
// Unknown keys are ignored. Returns the error sentence otherwise.
std::variant<Response, std::string> decode_response(std::string_view body);
// Decodes each message as a text frame from the server with the serializer the vsn chose,
// into `out` (replaced). Returns an empty string, or the error naming the first bad message.
std::string decode_messages(const Response& response, Serializer serializer, std::vector<Message>& out);

// What phoenix.js's poll() does with a status (`had_token`: the client held a token before
// this poll).
enum class PollOutcome {
  Messages,     // 200: deliver the messages, poll again
  NoMessages,   // 204: poll again
  Opened,       // 410 without a token: the session exists, the socket is open; poll again
  SessionGone,  // 410 with a token: the session ended; close (3410) and reconnect
  Forbidden,    // 403: the socket's connect/3 refused; close (1008), no retry
  ServerError,  // 500 (or no JSON at all): close (1011) and retry
  Unhandled,    // anything else: phoenix.js throws "unhandled poll status"
};
PollOutcome poll_outcome(int status, bool had_token);

// The body the server writes (Phoenix's Jason, keys in map order), for the built-in target
// and tests: {"messages":[...],"status":n,"token":t} for polls, {"status":n} without a token.
std::string encode_response(const Response& response);

// ---- Publishing (POST) -------------------------------------------------------------------

// The body of one POST (Content-Type kBatchContentType): the frames joined by "\n", a binary
// frame as its standard base64, which is what phoenix.js's LongPoll.send does with an
// ArrayBuffer. (The server versions read dispatch every line as a text frame, so a binary
// push over LongPoll reaches Phoenix as base64 text, which it will not decode as a message.)
// Throws std::invalid_argument for no frames, more than kMaxBatchMessages, or a text frame
// holding CR or LF (the server splits the body at line breaks: serialize payloads without
// raw newlines).
std::string publish_body(std::span<const Frame> frames);
// The same from messages, encoded client to server with `serializer`.
std::string publish_body(std::span<const MessageView> messages, Serializer serializer);

// What the server does with a POST body (long_poll.ex publish/4): with a Content-Type of
// exactly "application/x-ndjson" the body is split at every "\n" and "\r\n" (empty pieces
// included); otherwise the whole body is one message. Views into `body`.
std::vector<std::string_view> split_publish_body(std::string_view body, std::string_view content_type);

}  // namespace stampede::proto::phx::longpoll
