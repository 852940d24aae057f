#pragma once
// The client side of one HTTP/2 connection: requests in, the bytes to send out, the
// server's bytes in, one end event per request out. The framing, HPACK, stream states, flow
// control and SETTINGS are libnghttp2's (its session API over memory buffers: mem_recv and
// mem_send); what this adds is what a load tester needs on top: a whole response per stream
// (status, lowercase headers, the body with its content coding decoded, like the HTTP/1.1
// parser's), limits on what a server may make us hold, and one outcome per request that says
// how its stream ended (complete, reset by the server with which code, refused by a GOAWAY,
// reset by us because the response broke the rules, or cut off with the connection).
// Pure: no sockets, no clocks. nghttp2's types stay in the .cpp.
//
// Requests beyond the server's SETTINGS_MAX_CONCURRENT_STREAMS wait in nghttp2's queue and
// go out as streams close: they are never refused here. A request's HEADERS leaving the
// queue is reported (on_request_sent), so the caller can start its clock then.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "proto/http_response_parser.hpp"  // HttpHeader

namespace stampede::proto {

// One field of a request's header block. Names must be lowercase (HTTP/2 forbids others);
// the pseudo-headers (:method, :scheme, :authority, :path) come first.
struct Http2Field {
  std::string_view name;
  std::string_view value;
};

// What this client tells the server (SETTINGS) and what it accepts from it.
struct Http2ClientLimits {
  // SETTINGS_INITIAL_WINDOW_SIZE: how much of one response body the server may send before
  // we acknowledge it (we read as it arrives, so this only bounds bytes in the pipe).
  std::uint32_t stream_window = 1 << 20;
  // The connection's receive window, over all streams.
  std::uint32_t connection_window = 16 << 20;
  // A response's header block (HPACK's accounting: name + value + 32 per field), decoded.
  std::size_t max_header_bytes = 64 * 1024;
  // A response body, decoded (the HTTP/1.1 parser's limit).
  std::size_t max_body_bytes = 256 * 1024 * 1024;
};

struct Http2Response {
  int status = 0;
  std::vector<HttpHeader> headers;  // the final response's, lowercase names; trailers dropped
  std::string body;                 // content coding (gzip, deflate) decoded
};

// How a request's stream ended.
enum class Http2StreamEnd {
  complete,          // the whole response arrived
  reset_by_server,   // RST_STREAM from the server (error_code)
  malformed,         // the response broke HTTP/2 or HTTP rules or our limits (detail): we reset the stream
  refused,           // never processed: above the last stream id of the server's GOAWAY, or
                     // still queued when the GOAWAY came (error_code: REFUSED_STREAM)
  connection_ended,  // end_all(): the connection ended while the stream was open (detail)
};

// The names RFC 9113 gives the error codes ("PROTOCOL_ERROR", "REFUSED_STREAM"; unknown
// codes as "0x1f").
std::string http2_error_name(std::uint32_t error_code);

class Http2ClientCodec {
 public:
  class Listener {
   public:
    virtual ~Listener() = default;
    // The request's HEADERS frame is in the output just taken: it goes to the socket now.
    virtual void on_request_sent(void* request) = 0;
    // Called exactly once for every request submitted and not cancelled. `response` holds
    // what arrived (complete: the whole response); the listener may move from it.
    virtual void on_stream_end(void* request, Http2StreamEnd end, std::uint32_t error_code, std::string_view detail,
                               Http2Response& response) = 0;
    // The server is going away: streams above `last_stream_id` end as refused right after.
    virtual void on_goaway(std::int32_t last_stream_id, std::uint32_t error_code, std::string_view debug_data) = 0;
  };

  explicit Http2ClientCodec(Listener& listener, Http2ClientLimits limits = {});
  ~Http2ClientCodec();
  Http2ClientCodec(const Http2ClientCodec&) = delete;
  Http2ClientCodec& operator=(const Http2ClientCodec&) = delete;

  // Queues a request: its HEADERS (and the DATA frames of `body` when `has_body`) go out
  // through take_output(). `body` must stay alive and unchanged until the request's stream
  // ends or is cancelled (nghttp2 knows a HEAD request's response has no body from its
  // :method). Returns
  // the stream id, or 0 with `error` set (the session is over, or no stream ids are left).
  std::int32_t submit(std::span<const Http2Field> fields, std::string_view body, bool has_body, void* request,
                      std::string& error);

  // The caller gives up on a request (its timeout): no more events for it; the stream is
  // reset with CANCEL, or dropped from the queue if it was never sent.
  void cancel(std::int32_t stream_id);

  // Bytes from the server. False once the session cannot go on: failed() and error() say why.
  bool feed(std::string_view bytes);

  // Appends what is to be sent (ours to write in order) to `out`. False once the session failed.
  bool take_output(std::string& out);

  // The session ended with an error (ours to report): the server broke the protocol, so
  // nghttp2 sent GOAWAY, or the input could not be processed at all.
  bool failed() const;
  const std::string& error() const;
  // Nothing more to read or write: both sides are done (a GOAWAY and no stream left) or it failed.
  bool finished() const;
  // A new request may go on this connection: no GOAWAY either way, stream ids left.
  bool accepts_requests() const;
  // Requests submitted and not yet ended or cancelled.
  std::size_t open_requests() const;

  // The connection ended: every request still open ends with connection_ended and `detail`.
  void end_all(std::string_view detail);

  struct Impl;  // public for nghttp2's C callbacks (http2_client_codec.cpp)

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace stampede::proto
