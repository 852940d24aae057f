#pragma once
// The WebSocket opening handshake (RFC 6455 4): the client's upgrade request and the check
// of the server's answer, and the server's side of the same exchange. Pure: bytes and
// parsed HTTP heads in, bytes and verdicts out. Extensions are parsed generically here
// (RFC 6455 9.1); what permessage-deflate's parameters mean is permessage_deflate.hpp's job.
//
// Client (clients/websocket_session):
//   UpgradeRequest r{target, host, make_key(), subprotocols, deflate_offer(), headers};
//   write_upgrade_request(out, r);  ... HttpResponseParser reads the answer ...
//   UpgradeResult result = check_upgrade_response(r, parser.head(), parser.body());
//   for each result.extensions: "permessage-deflate" -> deflate_params_from_response().
//
// Server (target/), after HttpRequestParser has a request for which is_upgrade_request():
//   UpgradeOffer offer = check_upgrade_request(request);
//   if (!offer.ok) write_upgrade_refusal(out, offer);
//   else {
//     params = deflate_accept_offer(offer.extensions);         // optional
//     write_upgrade_response(out, offer.key, chosen_subprotocol,
//                            params ? deflate_response(*params) : "");
//     then WebSocketReader(Role::Server, {max, params.has_value()}) on the same socket.
//   }
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "proto/http_request_parser.hpp"
#include "proto/http_response_parser.hpp"

namespace stampede::proto::ws {

inline constexpr std::string_view kHandshakeGuid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

// A fresh Sec-WebSocket-Key: 16 random bytes from OpenSSL's RAND_bytes, base64-encoded.
std::string make_key();
// The Sec-WebSocket-Accept value for a key: base64(SHA-1(key + GUID)).
std::string accept_value(std::string_view key);

// One element of a Sec-WebSocket-Extensions list: "name; param; param=value". Names are
// lowercased (they compare case-insensitively); a quoted value is unquoted.
struct ExtensionParam {
  std::string name;
  std::optional<std::string> value;  // nullopt: the parameter had no "=value"
  bool operator==(const ExtensionParam&) const = default;
};
struct Extension {
  std::string name;
  std::vector<ExtensionParam> params;
  bool operator==(const Extension&) const = default;
};
// Appends the elements of one header value to `out`. Returns false (out then holds what
// came before the error) when the value does not follow RFC 6455 9.1.
bool parse_extensions(std::string_view header_value, std::vector<Extension>& out);

// ---- Client side ----------------------------------------------------------------------

struct UpgradeRequest {
  std::string target;  // path?query, e.g. "/socket/websocket?vsn=2.0.0"
  std::string host;    // the Host header: host[:port]
  std::string key;     // make_key()
  std::vector<std::string> subprotocols;  // offered, most preferred first
  std::string extensions;                 // the Sec-WebSocket-Extensions offer, empty for none
  std::vector<std::pair<std::string, std::string>> headers;  // Origin, Cookie, User-Agent, ...
};

// Appends the GET request head that asks for the upgrade. Throws std::invalid_argument,
// leaving `out` unchanged, for what write_request_head() refuses (header injection), for a
// subprotocol that is empty or holds a comma, space or control character, and for a user
// header that the handshake itself sets (Upgrade, Connection, Sec-WebSocket-Key, -Version,
// -Protocol, -Extensions): the message says which option to use instead.
void write_upgrade_request(std::string& out, const UpgradeRequest& request);

struct UpgradeResult {
  bool ok = false;
  // Why the handshake failed, for people. A status other than 101 comes with advice (403 is
  // what Phoenix answers for a rejected origin or a refused connect, 404 a wrong path...).
  std::string error;
  std::string subprotocol;            // the server's choice, empty when none
  std::vector<Extension> extensions;  // what the server accepted (each one was offered)
};

// Checks the server's answer to `request`: status 101, Upgrade: websocket, Connection:
// upgrade, the Sec-WebSocket-Accept for the key, a subprotocol that was offered (and one at
// all when some were offered, as browsers insist), extensions that were offered. `body` is
// the response body when there was one (quoted in the error for a refusal).
UpgradeResult check_upgrade_response(const UpgradeRequest& request, const HttpResponseHead& head,
                                     std::string_view body = {});

// ---- Server side ----------------------------------------------------------------------

// Whether a request asks to become a WebSocket at all (Upgrade lists "websocket"): the
// target routes it to check_upgrade_request() instead of its HTTP routes.
bool is_upgrade_request(const HttpRequest& request);

struct UpgradeOffer {
  bool ok = false;
  int status = 0;     // when not ok: 400, or 426 for a version other than 13
  std::string error;  // when not ok: the reason, sent as the refusal's body
  std::string key;
  std::vector<std::string> subprotocols;  // offered, most preferred first
  std::vector<Extension> extensions;      // offered, most preferred first
};

// Checks a client's upgrade request as Phoenix's websock_adapter does: GET, HTTP/1.1,
// Upgrade: websocket, Connection: upgrade, Sec-WebSocket-Version: 13, and a key that is
// base64 of 16 bytes.
UpgradeOffer check_upgrade_request(const HttpRequest& request);

// Appends "HTTP/1.1 101 Switching Protocols" with Upgrade, Connection and
// Sec-WebSocket-Accept, plus Sec-WebSocket-Protocol / -Extensions when not empty.
void write_upgrade_response(std::string& out, std::string_view key, std::string_view subprotocol = {},
                            std::string_view extensions = {});
// Appends the refusal of a failed check: its status, a text body with the reason, and for
// 426 the "Sec-WebSocket-Version: 13" header RFC 6455 4.4 asks for.
void write_upgrade_refusal(std::string& out, const UpgradeOffer& offer);

}  // namespace stampede::proto::ws
