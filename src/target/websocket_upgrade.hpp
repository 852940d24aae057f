#pragma once
// Which WebSocket application a request reaches, and what the target answers it, in the
// order a Phoenix endpoint decides (../shared/phoenix-protocol.md §1.1, §1.5, §1.6):
//   GET /socket/websocket?vsn=...   Phoenix channels; vsn 2.0.0 -> V2, 1.0.0 or none -> V1,
//                                   anything else -> 403 with an empty body
//   GET /live/websocket?_csrf_token=...&vsn=...
//                                   LiveView (also /lv020/live/websocket, /lv1x/live/websocket):
//                                   the same vsn rules; the session cookie and _csrf_token are
//                                   read here and decide whether joins can succeed
//   GET /ws                         plain echo of text and binary messages
//   any other path                  404
//   not GET, or a malformed upgrade 400 with the reason (426 for a version other than 13)
// permessage-deflate is accepted only when the target allows it (like Phoenix's
// `compress: true`) and the client offers it, with Cowboy's defaults: context takeover both
// ways, 15-bit windows. That costs about 300 KiB of zlib state per socket that has sent and
// received a message, which is why it is off unless asked for.
#include <optional>
#include <string>
#include <string_view>

#include "proto/http_request_parser.hpp"
#include "proto/phoenix_message.hpp"
#include "proto/permessage_deflate.hpp"
#include "target/liveview_socket_connect.hpp"

namespace stampede::target {

inline constexpr std::string_view kChannelsPath = "/socket/websocket";
inline constexpr std::string_view kEchoPath = "/ws";

enum class WsApplication { Echo, Channels, LiveView };

// What an accepted upgrade becomes.
struct WsPlan {
  WsApplication application = WsApplication::Echo;
  proto::phx::Serializer serializer = proto::phx::Serializer::V2;
  std::string user_id;                    // the connect parameter "user_id", "" when absent
  LiveViewConnectInfo liveview;           // LiveView: the dialect and the session
  std::optional<proto::ws::DeflateParams> deflate;  // negotiated permessage-deflate
  std::string early_bytes;                // what the client sent after the request, unread yet
};

struct UpgradeAnswer {
  int status = 101;
  std::string body;     // a refusal's body
  std::string headers;  // a refusal's extra header lines ("Name: value\r\n")
  std::string head;     // 101: the whole response head
  WsPlan plan;          // 101 only
};

// Whether the connection should treat this request as a WebSocket one rather than look it
// up in the route table: it asks for an upgrade, or it is for a WebSocket path.
bool wants_websocket(const proto::HttpRequest& request, std::string_view path);

// The connect parameters of a Phoenix socket's query, as the target reads them for its
// WebSocket and LongPoll transports alike.
struct SocketConnectParams {
  std::optional<std::string> vsn;
  std::string user_id;
  std::optional<std::string> csrf_token;  // LiveView's _csrf_token
  std::string token;                      // LongPoll's session token, "" when absent
};

// Decoded like Plug decodes a query ('+' is a space); nullopt when it is malformed.
std::optional<SocketConnectParams> read_socket_connect_params(std::string_view query);

// `root_liveview`: the LiveView dialect of /live/websocket.
UpgradeAnswer answer_upgrade(const proto::HttpRequest& request, std::string_view path, std::string_view query,
                             bool allow_compression, LiveViewDialect root_liveview = LiveViewDialect::V1);

// The serializer a `vsn` connect parameter selects (absent: V1); nullopt for a version
// neither "~> 1.0.0" nor "~> 2.0.0" accepts.
std::optional<proto::phx::Serializer> serializer_for_vsn(std::optional<std::string_view> vsn);

}  // namespace stampede::target
