#include "target/liveview_socket_connect.hpp"

namespace stampede::target {

std::optional<LiveViewScope> liveview_socket_scope(std::string_view path, LiveViewDialect root_dialect) {
  // Asked of every HTTP request (is it a WebSocket?): one comparison for all the others.
  if (!path.ends_with(kLiveViewSocketPath)) return std::nullopt;
  std::string_view rest;
  const auto scope = scope_of_path(path, root_dialect, rest);
  if (rest != kLiveViewSocketPath) return std::nullopt;
  return scope;
}

std::optional<LiveViewScope> liveview_longpoll_scope(std::string_view path, LiveViewDialect root_dialect) {
  if (!path.ends_with(kLiveViewLongPollPath)) return std::nullopt;
  std::string_view rest;
  const auto scope = scope_of_path(path, root_dialect, rest);
  if (rest != kLiveViewLongPollPath) return std::nullopt;
  return scope;
}

LiveViewConnectInfo connect_liveview(const proto::HttpRequest& request, LiveViewScope scope,
                                     std::optional<std::string_view> csrf_param) {
  LiveViewConnectInfo info;
  info.scope = scope;
  const auto* header = request.header("cookie");
  const auto cookie = header != nullptr ? find_cookie(*header, kSessionCookieName) : std::nullopt;
  auto session = cookie ? decode_session_cookie(*cookie) : std::nullopt;
  if (session && csrf_param && csrf_token_matches(*csrf_param, session->csrf_token)) info.session = std::move(session);
  return info;
}

}  // namespace stampede::target
