#pragma once
// Phoenix.LiveView.Socket.connect with connect_info: [session: @session_options]: what the
// upgrade of /live/websocket establishes. The socket always connects; the session is loaded
// only when the _demo_key cookie is one this target signed and the URL's _csrf_token is a
// valid masked form of the CSRF secret in it (§1.4). Without a session every join is "stale".
#include <optional>
#include <string_view>

#include "proto/http_request_parser.hpp"
#include "target/liveview_dialect.hpp"
#include "target/liveview_tokens.hpp"

namespace stampede::target {

inline constexpr std::string_view kLiveViewSocketPath = "/live/websocket";
inline constexpr std::string_view kLiveViewLongPollPath = "/live/longpoll";

struct LiveViewConnectInfo {
  LiveViewScope scope;
  std::optional<PlugSession> session;
};

// The scope of a LiveView socket path ("/live/websocket", "/lv020/live/websocket", ...);
// nullopt for any other path.
std::optional<LiveViewScope> liveview_socket_scope(std::string_view path, LiveViewDialect root_dialect);

// The same for the LongPoll transport's paths ("/live/longpoll", "/lv020/live/longpoll", ...).
std::optional<LiveViewScope> liveview_longpoll_scope(std::string_view path, LiveViewDialect root_dialect);

// `csrf_param` is the decoded _csrf_token of the URL, if any.
LiveViewConnectInfo connect_liveview(const proto::HttpRequest& request, LiveViewScope scope,
                                     std::optional<std::string_view> csrf_param);

}  // namespace stampede::target
