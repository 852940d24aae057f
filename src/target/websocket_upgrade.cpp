#include "target/websocket_upgrade.hpp"

#include <boost/system/system_error.hpp>
#include <boost/url/params_view.hpp>

#include <charconv>

#include "proto/websocket_handshake.hpp"

namespace stampede::target {
namespace {

namespace ws = proto::ws;

// "X.Y.Z" with numeric parts and nothing after them (a pre-release never matches "~>").
bool parse_version(std::string_view text, int& major, int& minor) {
  int parts[3] = {0, 0, 0};
  const char* at = text.data();
  const char* end = text.data() + text.size();
  for (int i = 0; i < 3; ++i) {
    if (i > 0) {
      if (at == end || *at != '.') return false;
      ++at;
    }
    const auto [next, ec] = std::from_chars(at, end, parts[i]);
    if (ec != std::errc() || next == at || parts[i] < 0) return false;
    at = next;
  }
  major = parts[0];
  minor = parts[1];
  return at == end;
}

UpgradeAnswer refuse(int status, std::string body) {
  UpgradeAnswer answer;
  answer.status = status;
  answer.body = std::move(body);
  return answer;
}

UpgradeAnswer refuse(const ws::UpgradeOffer& offer) {
  auto answer = refuse(offer.status, offer.error + "\n");
  if (offer.status == 426) answer.headers = "Sec-WebSocket-Version: 13\r\n";
  return answer;
}

}  // namespace

std::optional<SocketConnectParams> read_socket_connect_params(std::string_view query) {
  SocketConnectParams params;
  // An absent query is a null view, which Boost.URL 1.81 would read as a C string.
  if (query.empty()) return params;
  try {
    const boost::urls::params_view view(query, boost::urls::encoding_opts(true));
    for (const auto& param : view) {
      if (param.key == "vsn") params.vsn = param.value;
      if (param.key == "user_id") params.user_id = param.value;
      if (param.key == "_csrf_token") params.csrf_token = param.value;
      if (param.key == "token") params.token = param.value;
    }
  } catch (const boost::system::system_error&) {
    return std::nullopt;
  }
  return params;
}

bool wants_websocket(const proto::HttpRequest& request, std::string_view path) {
  return path == kChannelsPath || path == kEchoPath || liveview_socket_scope(path, LiveViewDialect::V1) ||
         ws::is_upgrade_request(request);
}

std::optional<proto::phx::Serializer> serializer_for_vsn(std::optional<std::string_view> vsn) {
  if (!vsn) return proto::phx::Serializer::V1;
  int major = 0;
  int minor = 0;
  if (!parse_version(*vsn, major, minor) || minor != 0) return std::nullopt;
  if (major == 1) return proto::phx::Serializer::V1;
  if (major == 2) return proto::phx::Serializer::V2;
  return std::nullopt;
}

UpgradeAnswer answer_upgrade(const proto::HttpRequest& request, std::string_view path, std::string_view query,
                             bool allow_compression, LiveViewDialect root_liveview) {
  const auto liveview = liveview_socket_scope(path, root_liveview);
  if (path != kChannelsPath && path != kEchoPath && !liveview) return refuse(404, R"({"error":"not found"})");
  const auto offer = ws::check_upgrade_request(request);
  // Phoenix.Transports.WebSocket answers anything but GET with a bare 400 first...
  if (request.method != "GET") return refuse(offer);

  WsPlan plan;
  if (path == kChannelsPath || liveview) {
    // ...then connects the socket (vsn: 403), and only then lets websock_adapter check the
    // upgrade headers (400).
    const auto params = read_socket_connect_params(query);
    if (!params) return refuse(400, "malformed query string\n");
    const auto serializer = serializer_for_vsn(params->vsn);
    if (!serializer) return refuse(403, "");
    plan.serializer = *serializer;
    if (liveview) {
      plan.application = WsApplication::LiveView;
      plan.liveview = connect_liveview(request, *liveview, params->csrf_token);
    } else {
      plan.application = WsApplication::Channels;
      plan.user_id = params->user_id;
    }
  }
  if (!offer.ok) return refuse(offer);

  UpgradeAnswer answer;
  std::string extensions;
  if (allow_compression) {
    plan.deflate = ws::deflate_accept_offer(offer.extensions);
    if (plan.deflate) extensions = ws::deflate_response(*plan.deflate);
  }
  ws::write_upgrade_response(answer.head, offer.key, {}, extensions);
  answer.plan = std::move(plan);
  return answer;
}

}  // namespace stampede::target
