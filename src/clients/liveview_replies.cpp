// LiveViewSession, what comes back: the pushes a LiveView sends by itself (read as they arrive,
// on a standing read of each view's topic), and the replies to what the client sent, read like
// the browser reads them (diff merged, push_events kept, navigation reported, components that
// left the page destroyed).
#include <boost/json/serialize.hpp>
#include <fmt/format.h>

#include "clients/liveview_json.hpp"
#include "clients/liveview_session.hpp"
#include "proto/url_resolve.hpp"

namespace stampede::clients {

namespace lv = proto::lv;

namespace {

// The standing read of a view's pushes re-arms itself; this only bounds each wait's timer.
constexpr Nanos kReaderWait = 24LL * 3600 * kSecond;

}  // namespace

// ---------------------------------------------------------------------------------------------
// what the server pushes by itself

void LiveViewSession::arm_reader(LiveViewTopic& view) {
  if (view.reading || !connection_) return;
  view.reading = true;
  connection_->phx->wait_message(
      view.topic, "", view.read_seq, kReaderWait,
      [weak = weak_from_this(), generation = generation_, id = view.root.id](const ChannelMessage* message) {
        auto self = weak.lock();
        if (!self || generation != self->generation_) return;
        LiveViewTopic* v = self->find_view(id);
        if (v == nullptr) return;
        v->reading = false;
        if (message == nullptr) {
          if (self->is_open()) {
            self->arm_reader(*v);
          } else {
            self->pushes_.interrupt();  // an await learns that nothing more will come
          }
          return;
        }
        v->read_seq = message->seq;
        const std::string event = message->event;
        const std::string payload = message->payload;
        const bool binary = message->binary;
        self->connection_->phx->consume(message->seq);
        if (!binary) self->on_view_push(*v, event, payload);
        if (generation != self->generation_) return;
        if (LiveViewTopic* again = self->find_view(id)) self->arm_reader(*again);
      });
}

void LiveViewSession::on_view_push(LiveViewTopic& view, const std::string& event, const std::string& payload) {
  if (view.state != LiveViewTopic::State::Joined) return;
  boost::system::error_code ec;
  const boost::json::value value = parse_live_json(payload, ec);
  if (ec) return;
  if (event == "diff") {
    pushes_.add(view.root.id, "diff", "", payload);
    if (std::string error = merge_diff(view, value, payload); !error.empty()) pushes_.interrupt();
    return;
  }
  const lv::Navigation nav = lv::read_push(event, value);
  if (nav.kind == lv::Navigation::Kind::LivePatch) {
    std::string to = proto::resolve_url(url_, nav.to);
    if (&view == views_.front().get()) url_ = to;
    pushes_.add(view.root.id, "live_patch", std::move(to), payload);
  } else if (nav.kind != lv::Navigation::Kind::None) {
    navigation_outcome(view, nav, fmt::format("{}", describe(view)));
    pushes_.interrupt();  // an await on this page learns it at once
  }
  // Other events are not LiveView's: nothing to do.
}

// ---------------------------------------------------------------------------------------------
// replies

void LiveViewSession::request(LiveViewTopic& view, const std::string& event, std::string payload, Nanos timeout,
                              const LiveViewMetrics::Pair* metric, std::string what, ReplyDone done) {
  const Nanos started = ctx_.clock.now();
  std::string error;
  try {
    connection_->phx->push(view.topic, event, std::move(payload), false, timeout > 0 ? timeout : options_.event_timeout,
                           [weak = weak_from_this(), generation = generation_, id = view.root.id, started, metric,
                            what, done](const ChannelReply& reply) {
                             auto self = weak.lock();
                             if (!self) return;
                             LiveViewTopic* v = generation == self->generation_ ? self->find_view(id) : nullptr;
                             if (v == nullptr) {
                               done(LiveOutcome::fail("closed", fmt::format("{}: the page was left", what)), false);
                               return;
                             }
                             bool link_redirect = false;
                             LiveOutcome o = self->read_reply(*v, reply, started, metric, what, link_redirect);
                             done(std::move(o), link_redirect);
                           });
  } catch (const std::exception& e) {
    error = e.what();
  }
  if (!error.empty()) {
    post([done = std::move(done), o = LiveOutcome::fail("event_error", fmt::format("{}: {}", what, error))] {
      done(o, false);
    });
  }
}

LiveOutcome LiveViewSession::read_reply(LiveViewTopic& view, const ChannelReply& reply, Nanos started,
                                        const LiveViewMetrics::Pair* metric, const std::string& what,
                                        bool& link_redirect) {
  auto done = [&](LiveOutcome o) {
    if (metric != nullptr) record(*metric, started, o);
    return o;
  };
  if (!reply.failure.empty()) return done(call_failure(view, reply, what));
  if (reply.status != "ok") {
    LiveOutcome o = LiveOutcome::fail("event_error", fmt::format("{}: the server replied {}: {}", what, reply.status,
                                                                 reply.response),
                                      "status " + reply.status);
    o.response_json = reply.response;
    return done(std::move(o));
  }
  const boost::json::value response = parse_live_json_or_empty(reply.response);
  const lv::EventReply read = lv::read_event_reply(response);
  if (read.navigation.kind == lv::Navigation::Kind::Redirect ||
      read.navigation.kind == lv::Navigation::Kind::LiveRedirect) {
    return done(navigation_outcome(view, read.navigation, what));
  }
  std::string reply_json;
  if (read.diff != nullptr) {
    lv::DiffResult result;
    if (view.state == LiveViewTopic::State::Joined) {
      if (std::string error = view.rendered.merge_diff(*read.diff, result); !error.empty()) {
        view.state = LiveViewTopic::State::Gone;
        view.gone_reason = "a diff could not be merged: " + error;
        return done(LiveOutcome::fail("diff_error", fmt::format("{}: the reply's diff cannot be merged: {}", what, error),
                                      "diff"));
      }
      record_diff_bytes(reply.response.size());
      reply_json = result.reply_json;
      absorb(view, result);
      if (may_have_children(view, views_, reply.response)) sync_children(view, [](const LiveOutcome&) {});
    }
  }
  if (reply_json.empty() && read.reply != nullptr) reply_json = boost::json::serialize(*read.reply);
  link_redirect = read.link_redirect;
  return done(LiveOutcome::success(std::move(reply_json)));
}

std::string LiveViewSession::merge_diff(LiveViewTopic& view, const boost::json::value& diff, std::string_view text) {
  lv::DiffResult result;
  if (std::string error = view.rendered.merge_diff(diff, result); !error.empty()) {
    view.state = LiveViewTopic::State::Gone;
    view.gone_reason = "a diff could not be merged: " + error;
    return error;
  }
  record_diff_bytes(text.size());
  absorb(view, result);
  if (may_have_children(view, views_, text)) sync_children(view, [](const LiveOutcome&) {});
  return {};
}

void LiveViewSession::absorb(LiveViewTopic& view, lv::DiffResult& result) {
  for (auto& e : result.events) pushes_.add(view.root.id, "event", std::move(e.name), std::move(e.payload_json));
  if (!result.removed_cids.empty()) destroy_cids(view, std::move(result.removed_cids));
}

// What the browser does when components leave the page (§5.10): without it the server keeps
// every component ever rendered.
void LiveViewSession::destroy_cids(LiveViewTopic& view, std::vector<int> cids) {
  if (!is_open()) return;
  auto phx = connection_->phx;
  try {
    phx->push(view.topic, "cids_will_destroy", lv::cids_payload(cids), false, options_.event_timeout,
              [weak = weak_from_this(), generation = generation_, id = view.root.id,
               cids](const ChannelReply& reply) {
                auto self = weak.lock();
                if (!self || generation != self->generation_ || !reply.ok()) return;
                LiveViewTopic* v = self->find_view(id);
                if (v == nullptr || v->state != LiveViewTopic::State::Joined || !self->is_open()) return;
                const std::vector<int> still = v->rendered.still_removed(cids);
                if (still.empty()) return;
                self->connection_->phx->push(
                    v->topic, "cids_destroyed", lv::cids_payload(still), false, self->options_.event_timeout,
                    [weak, generation, id](const ChannelReply& destroyed) {
                      auto s = weak.lock();
                      if (!s || generation != s->generation_ || !destroyed.ok()) return;
                      if (LiveViewTopic* view_now = s->find_view(id)) {
                        const lv::EventReply read = lv::read_event_reply(parse_live_json_or_empty(destroyed.response));
                        view_now->rendered.prune_cids(read.cids);
                      }
                    });
              });
  } catch (const std::exception&) {
    // cids always encode; a topic that does not was never joined
  }
}

LiveOutcome LiveViewSession::navigation_outcome(LiveViewTopic& view, const lv::Navigation& nav, const std::string& what) {
  LiveOutcome o;
  const bool live = nav.kind == lv::Navigation::Kind::LiveRedirect;
  o.failure = live ? "live_redirect" : "redirect";
  o.navigation = nav;
  o.to = proto::resolve_url(url_, nav.to);
  o.message = fmt::format("{}: the server {} {}", what,
                          live ? "navigated (live_redirect) to" : "redirected (a full page load) to", o.to);
  // The browser leaves the old view at once on a live_redirect; the server closes it anyway.
  if (live && view.state == LiveViewTopic::State::Joined && is_open() && connection_->phx->joined(view.topic)) {
    try {
      connection_->phx->cast(view.topic, "phx_leave", "{}", false);
    } catch (const std::exception&) {
      // it was joined, so it encodes
    }
  }
  view.leaving = nav;
  view.state = LiveViewTopic::State::Gone;
  view.gone_reason = o.message;
  return o;
}

LiveOutcome LiveViewSession::call_failure(const LiveViewTopic& view, const ChannelReply& reply, const std::string& what) {
  if (view.leaving.kind == lv::Navigation::Kind::LiveRedirect || view.leaving.kind == lv::Navigation::Kind::Redirect) {
    // The server announced a navigation (a push) and closed the view: that is the answer.
    LiveOutcome o;
    o.failure = view.leaving.kind == lv::Navigation::Kind::LiveRedirect ? "live_redirect" : "redirect";
    o.navigation = view.leaving;
    o.to = proto::resolve_url(url_, view.leaving.to);
    o.message = fmt::format("{}: the server navigated to {} ({})", what, o.to, o.failure);
    return o;
  }
  if (reply.failure == "channel_crashed") {
    return LiveOutcome::fail("view_crashed", fmt::format("{}: the LiveView crashed (phx_error)", what), "view_crashed");
  }
  if (reply.failure == "channel_closed") {
    return LiveOutcome::fail("closed", fmt::format("{}: the server closed the LiveView (phx_close)", what), "closed");
  }
  if (reply.failure == "timeout") return LiveOutcome::fail("timeout", fmt::format("{}: {}", what, reply.message), "timeout");
  return LiveOutcome::fail("closed", fmt::format("{}: {}", what, reply.message), "closed");
}

}  // namespace stampede::clients

