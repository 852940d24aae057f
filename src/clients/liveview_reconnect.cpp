// LiveViewSession across a reconnect (options reconnect; LongPoll's default), as
// phoenix_live_view's JS does it (assets/js/phoenix_live_view/view.ts, docs/design/049):
//   * the connection goes: each view's channel errors (View.onError -> onClose): its nested
//     LiveViews are destroyed (destroyAllChildren: left, not rejoined), its own channel waits;
//     the page keeps showing what it showed;
//   * the socket opens again: each waiting view rejoins with its channel's params closure
//     evaluated again (liveview_rejoin.hpp: same tokens, the page's URL now, _mounts + 1);
//   * the reply's rendered tree replaces the view's (onJoin: a new Rendered), then the
//     children it renders are joined as new ones (joinNewChildren);
//   * a refused rejoin ends the view (the browser reloads the page then: onJoinError ->
//     reloadWithJitter / onRedirect): its next call fails `closed` saying so, the scenario
//     may live.connect the page again; a rejoin that navigates is that navigation;
//   * an upload's lvu: channel is left when the connection goes (the EntryUploader's onError):
//     its entry token was for the old server process; the chunk in flight failed `closed`.
// The socket (ChannelsSocket) keeps the timing: when to reconnect and rejoin, rejoins retried
// after rejoinAfterMs when unanswered, pushes made meanwhile held until their view rejoined.
#include <fmt/format.h>

#include "clients/liveview_json.hpp"
#include "clients/liveview_rejoin.hpp"
#include "clients/liveview_session.hpp"
#include "clients/liveview_version.hpp"
#include "proto/url_resolve.hpp"

namespace stampede::clients {

namespace lv = proto::lv;

ChannelsSocket::RejoinHooks LiveViewSession::rejoin_hooks(const std::string& view_id) {
  ChannelsSocket::RejoinHooks hooks;
  // The generation: a page load replaces the socket, but its late hooks must find nothing.
  hooks.errored = [weak = weak_from_this(), generation = generation_, view_id](const std::string&) {
    auto self = weak.lock();
    if (self && generation == self->generation_) self->on_view_errored(view_id);
  };
  hooks.payload = [weak = weak_from_this(), generation = generation_, view_id]() -> std::string {
    auto self = weak.lock();
    if (!self || generation != self->generation_) return {};
    return self->rejoin_payload(view_id);
  };
  hooks.rejoined = [weak = weak_from_this(), generation = generation_, view_id](const ChannelReply& reply) {
    auto self = weak.lock();
    if (self && generation == self->generation_) self->on_rejoin_reply(view_id, reply);
  };
  return hooks;
}

ChannelsSocket::RejoinHooks LiveViewSession::upload_rejoin_hooks(const std::string& topic) {
  ChannelsSocket::RejoinHooks hooks;
  if (!options_.reconnects() || !connection_) return hooks;
  hooks.errored = [socket = std::weak_ptr<ChannelsSocket>(connection_->phx), topic](const std::string&) {
    if (auto phx = socket.lock()) phx->leave(topic, 0, nullptr);
  };
  return hooks;
}

void LiveViewSession::on_view_errored(const std::string& view_id) {
  // destroyAllChildren: nested LiveViews are not rejoined; the parent's rejoin renders their
  // containers again and they join as new views.
  std::vector<std::string> children;
  for (const auto& v : views_)
    if (v->root.parent_id == view_id) children.push_back(v->root.id);
  for (const auto& id : children) drop_view(id, true);
}

std::string LiveViewSession::rejoin_payload(const std::string& view_id) {
  LiveViewTopic* view = find_view(view_id);
  if (view == nullptr) return {};
  view->rejoin_sent_at = ctx_.clock.now();
  return lv::join_payload(next_rejoin_params(*view, base_join_params(), url_));
}

void LiveViewSession::forget_channel(const LiveViewTopic& view) {
  if (!connection_ || !connection_->phx->joined_or_rejoining(view.topic)) return;
  // A leave of a channel waiting to rejoin is answered "ok" at once and calls the rejoin off.
  connection_->phx->leave(view.topic, 0, nullptr);
}

void LiveViewSession::on_rejoin_reply(const std::string& view_id, const ChannelReply& reply) {
  LiveViewTopic* view = find_view(view_id);
  if (view == nullptr) return;  // left meanwhile (a child its parent's error destroyed)
  const Nanos started = view->rejoin_sent_at;
  const std::string what = fmt::format("rejoin {} after a reconnect", describe(*view));
  if (!reply.failure.empty()) {
    // Unanswered: the socket tries again after rejoinAfterMs; closed: the connection went again
    // (the next open rejoins) or the socket closed for good (the view goes with it).
    record(ids_.rejoin, started, call_failure(*view, reply, what));
    return;
  }
  auto gone = [&](LiveOutcome o) {
    record(ids_.rejoin, started, o);
    forget_channel(*view);
    view->state = LiveViewTopic::State::Gone;
    if (view->gone_reason.empty()) view->gone_reason = o.message;
    pushes_.interrupt();  // an await on this page learns it at once
  };
  const boost::json::value response = parse_live_json_or_empty(reply.response);
  const lv::JoinReply joined = lv::read_join_reply(reply.status, response);
  if (!joined.ok) {
    return gone(refused_join(*view, joined, reply, what, " (a browser reloads the page then: live.connect it again)"));
  }
  // The same server answers in the same dialect; one that changed release meanwhile (a deploy)
  // is read in its own, as a join's reply would be.
  if (joined.version) {
    if (!supported_version(*joined.version)) {
      return gone(LiveOutcome::fail(
          "version_error", fmt::format("{}: {}", what, unsupported_version_message(lv::to_string(*joined.version))),
          "version"));
    }
    version_ = *joined.version;
    version_text_ = lv::to_string(*joined.version);
  }
  lv::DiffResult result;
  if (std::string error = replace_rendered(*view, response, result); !error.empty()) {
    return gone(LiveOutcome::fail("diff_error", fmt::format("{}: the rendered page cannot be read: {}", what, error),
                                  "diff"));
  }
  record_diff_bytes(reply.response.size());
  count_mount(*view);
  if (joined.navigation.kind == lv::Navigation::Kind::LivePatch && view == views_.front().get()) {
    url_ = proto::resolve_url(url_, joined.navigation.to);
  }
  record(ids_.rejoin, started, LiveOutcome::success());
  absorb(*view, result);
  // joinNewChildren: the nested LiveViews the new tree renders join as new views.
  sync_children(*view, [](const LiveOutcome&) {});
}

}  // namespace stampede::clients
