#include "target/longpoll_request.hpp"

#include "proto/phoenix_longpoll.hpp"
#include "target/liveview_socket_connect.hpp"
#include "target/websocket_upgrade.hpp"

namespace stampede::target {
namespace {

constexpr std::string_view kChannelsLongPollPath = "/socket/longpoll";

LongPollPlan answer(int status, std::string_view content_type, std::string body) {
  LongPollPlan plan;
  plan.status = status;
  plan.content_type = content_type;
  plan.body = std::move(body);
  return plan;
}

LongPollPlan status_json(int status) {
  return answer(200, "application/json", proto::phx::longpoll::encode_response({status, std::nullopt, {}}));
}

}  // namespace

bool is_longpoll_path(std::string_view path, LiveViewDialect root_liveview) {
  return path == kChannelsLongPollPath || liveview_longpoll_scope(path, root_liveview).has_value();
}

LongPollPlan plan_longpoll(const proto::HttpRequest& request, std::string_view path, std::string_view query,
                           LiveViewDialect root_liveview) {
  const auto liveview = liveview_longpoll_scope(path, root_liveview);
  if (request.method == "OPTIONS") {
    // Phoenix allows cross-origin requests here: it checks the Origin header itself.
    LongPollPlan plan = answer(200, "text/plain", "");
    const std::string* asked = request.header("access-control-request-headers");
    plan.headers = "access-control-allow-origin: *\r\naccess-control-allow-headers: " + (asked ? *asked : "") +
                   "\r\naccess-control-allow-methods: get, post, options\r\naccess-control-max-age: 3600\r\n";
    return plan;
  }
  if (request.method != "GET" && request.method != "POST") return answer(400, "text/plain", "");
  const auto params = read_socket_connect_params(query);
  if (!params) return answer(400, "text/plain", "malformed query string\n");
  if (request.method == "POST") {
    if (params->token.empty()) return status_json(410);
    LongPollPlan plan;
    plan.kind = LongPollPlan::Kind::Publish;
    plan.token = params->token;
    return plan;
  }
  // A GET: a poll when the token is a session's, else (no token, or an unknown one: Phoenix's
  // resume_session failing) a new session, which the socket's connect may refuse.
  LongPollPlan plan;
  plan.kind = params->token.empty() ? LongPollPlan::Kind::Open : LongPollPlan::Kind::Poll;
  plan.token = params->token;
  if (const auto serializer = serializer_for_vsn(params->vsn)) {
    LongPollSessions::Open& open = plan.open.emplace();
    open.serializer = *serializer;
    if (liveview) {
      open.liveview = true;
      open.liveview_info = connect_liveview(request, *liveview, params->csrf_token);
    } else {
      open.user_id = params->user_id;
    }
  } else if (plan.kind == LongPollPlan::Kind::Open) {
    return status_json(403);
  }
  return plan;
}

}  // namespace stampede::target
