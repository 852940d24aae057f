// Joining lv:<id>: the checks LiveView makes before it mounts (Phoenix.LiveView.Channel's
// join and verify_session), the mount, and the join reply with the first render.
#include <algorithm>
#include <boost/json/parse.hpp>

#include "proto/json_string.hpp"
#include "target/json_field.hpp"
#include "target/liveview_layout.hpp"
#include "target/liveview_session.hpp"
#include "target/rendered_json.hpp"

namespace stampede::target {
namespace {

namespace json = boost::json;
namespace phx = proto::phx;

constexpr std::string_view kStaleReason = R"({"reason":"stale"})";
constexpr std::string_view kUnauthorized = R"({"reason":"unauthorized"})";
constexpr std::string_view kJoinCrashed = R"({"reason":"join crashed"})";

std::string redirect_refusal(LiveViewDialect dialect, std::string_view to) {
  std::string response = R"({"redirect":{)";
  // redirect/2 carries its status from LiveView 1.0 on (§5.12).
  if (dialect == LiveViewDialect::V1) response += R"("status":302,)";
  response += "\"to\":";
  proto::append_json_string(response, to, "a redirect target");
  return response + "}}";
}

}  // namespace

bool LiveViewSession::make_room_for_join(const phx::Message& message, const std::optional<std::string>& join_ref,
                                         ReplacedJoin& replaced) {
  // A duplicate join stops the old channel first; its phx_close follows the new reply.
  if (auto* old = find_view(message.topic)) {
    replaced = old->join_ref;
    remove_view(static_cast<std::size_t>(old - views_.data()));
  } else if (auto* old_upload = find_upload(message.topic)) {
    replaced = old_upload->join_ref;
    remove_upload(static_cast<std::size_t>(old_upload - uploads_.data()));
  }
  if (channel_count() < kMaxChannels) return true;
  refuse_join(message, join_ref, R"({"reason":"too many channels joined"})", replaced);
  return false;
}

void LiveViewSession::refuse_join(const phx::Message& message, const std::optional<std::string>& join_ref,
                                  std::string_view response_json, const ReplacedJoin& replaced) {
  services_.bus.stats().joins_refused.add();
  socket_.reply(join_ref, message.ref, message.topic, "error", response_json);
  if (replaced) socket_.send_lifecycle(*replaced, message.topic, "phx_close");
}

void LiveViewSession::join_view(phx::Message& message) {
  // Channel.Server.join: `join_ref || ref`.
  const auto join_ref = message.join_ref ? message.join_ref : message.ref;
  ReplacedJoin replaced;
  if (!make_room_for_join(message, join_ref, replaced)) return;

  json::error_code ec;
  const auto parsed = json::parse(message.payload, ec);
  const auto* payload = ec ? nullptr : parsed.if_object();
  if (payload == nullptr) {
    refuse_join(message, join_ref, kJoinCrashed, replaced);
    return;
  }
  const std::int64_t now_ms = wall_clock_ms();
  const auto dialect = info_.scope.dialect;

  // The data-phx-session token, and the topic it was made for.
  const auto* session_token = string_at(*payload, "session");
  const auto claims = session_token ? verify_view_session(dialect, *session_token, now_ms) : std::nullopt;
  const auto topic_id = std::string_view(message.topic).substr(3);
  if (!claims || claims->id != topic_id || topic_id.size() != kIdLength) {
    refuse_join(message, join_ref, kStaleReason, replaced);
    return;
  }
  // The socket's session (cookie + the URL's _csrf_token), and the join's own _csrf_token.
  const auto* params = payload->if_contains("params");
  const auto* csrf = params != nullptr && params->is_object() ? string_at(params->as_object(), "_csrf_token") : nullptr;
  if (!info_.session || csrf == nullptr || !csrf_token_matches(*csrf, info_.session->csrf_token)) {
    refuse_join(message, join_ref, kStaleReason, replaced);
    return;
  }
  const auto* token_route = route_for_module(claims->view);
  if (token_route == nullptr) {
    refuse_join(message, join_ref, kStaleReason, replaced);  // a view this app no longer has
    return;
  }

  // Which page: the URL must still route to the token's view; after a live navigation,
  // "redirect" may route to any view of the same live_session.
  const auto* redirect = string_at(*payload, "redirect");
  const auto* url = redirect != nullptr ? redirect : string_at(*payload, "url");
  const auto parts = url != nullptr ? split_absolute_url(*url) : std::nullopt;
  if (!parts) {
    refuse_join(message, join_ref, kStaleReason, replaced);
    return;
  }
  std::string_view path_in_scope;
  const auto scope = scope_of_path(parts->path, dialect, path_in_scope);
  const auto* route = route_for_path(path_in_scope);
  const bool same_scope = scope.prefix == info_.scope.prefix;
  const bool allowed = route != nullptr && same_scope &&
                       (redirect != nullptr ? route->live_session == token_route->live_session : route == token_route);
  if (!allowed) {
    refuse_join(message, join_ref, kUnauthorized, replaced);
    return;
  }

  const MountContext context{info_.scope, parts->query, info_.session->user, true, services_.random, services_.posts};
  auto mounted = mount_view(route->page, context);
  switch (mounted.kind) {
    case MountResult::Kind::Stale: refuse_join(message, join_ref, kStaleReason, replaced); return;
    case MountResult::Kind::Crash: refuse_join(message, join_ref, kJoinCrashed, replaced); return;
    case MountResult::Kind::Redirect:
      refuse_join(message, join_ref, redirect_refusal(dialect, mounted.redirect_to), replaced);
      return;
    case MountResult::Kind::Mounted: break;
  }
  // The flash a live_redirect carried (a navigation join's "flash").
  if (const auto* flash = string_at(*payload, "flash")) {
    if (auto info = verify_flash(*flash, now_ms)) mounted.view->set_flash(std::move(*info));
  }

  std::string rendered;
  RenderedJson writer(dialect, rendered);
  render_layout(writer, dialect, *mounted.view, Changed::everything());
  writer.title(mounted.view->route().title);
  writer.finish();
  std::string response = "{";
  // Only a navigation join replaces the container element (§5.3).
  if (redirect != nullptr) response += R"("container":["div",{}],)";
  response += "\"liveview_version\":";
  proto::append_json_string(response, liveview_version(dialect), "the LiveView version");
  response += ",\"rendered\":";
  response += rendered;
  response += "}";

  ViewChannel channel;
  std::copy(topic_id.begin(), topic_id.end(), channel.id.begin());
  channel.join_ref = join_ref;
  channel.pid = static_cast<std::uint32_t>(services_.bus.next_unique_integer());
  channel.view = std::move(mounted.view);
  views_.push_back(std::move(channel));
  services_.bus.stats().joins.add();
  socket_.reply(join_ref, message.ref, message.topic, "ok", response);
  if (replaced) socket_.send_lifecycle(*replaced, message.topic, "phx_close");
}

}  // namespace stampede::target
