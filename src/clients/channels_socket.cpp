#include "clients/channels_socket.hpp"

#include <boost/asio/post.hpp>
#include <boost/json/parse.hpp>
#include <fmt/format.h>

#include <stdexcept>

#include "clients/phoenix_reconnect.hpp"

namespace stampede::clients {

namespace phx = proto::phx;

namespace {
constexpr const char* kHeartbeatTopic = "phoenix";

}  // namespace

ChannelsSocket::ChannelsSocket(ClientContext& ctx, ChannelsOptions options, Send send, Close close)
    : ctx_(ctx), options_(options), send_(std::move(send)), close_(std::move(close)) {
  if (!options_.record_metrics) return;  // ids_ stay unset: nothing is recorded under channel.*
  auto& s = ctx_.sink;
  using K = metrics::Kind;
  ids_.join = s.id("channel.join", K::Timing);
  ids_.join_errors = s.id("channel.join.errors", K::Counter);
  ids_.push = s.id("channel.push", K::Timing);
  ids_.push_errors = s.id("channel.push.errors", K::Counter);
  ids_.leave = s.id("channel.leave", K::Timing);
  ids_.leave_errors = s.id("channel.leave.errors", K::Counter);
  ids_.messages = s.id("channel.messages", K::Counter);
  ids_.dropped = s.id("channel.messages.dropped", K::Counter);
  ids_.heartbeat = s.id("channel.heartbeat", K::Timing);
  ids_.heartbeat_timeouts = s.id("channel.heartbeat.timeouts", K::Counter);
  if (options_.reconnect) {
    ids_.rejoin = s.id("channel.rejoin", K::Timing);
    ids_.rejoin_errors = s.id("channel.rejoin.errors", K::Counter);
  }
}

ChannelsSocket::~ChannelsSocket() = default;

void ChannelsSocket::post(std::function<void()> fn) {
  boost::asio::post(ctx_.io, [weak = weak_from_this(), fn = std::move(fn)] {
    if (auto self = weak.lock()) fn();
  });
}

std::string ChannelsSocket::next_ref() { return std::to_string(++ref_counter_); }

phx::Frame ChannelsSocket::encode(const phx::Message& m) const {
  phx::Frame frame;
  frame.binary_frame = encode_into(m, frame.data);
  return frame;
}

bool ChannelsSocket::encode_into(const phx::Message& m, std::string& out) const {
  bool binary = false;
  if (options_.custom_encode) {
    phx::Frame frame = options_.custom_encode(m);
    out = std::move(frame.data);
    binary = frame.binary_frame;
  } else {
    binary = phx::encode_into(phx::view_of(m), options_.serializer, phx::Direction::ClientToServer, out);
  }
  if (options_.one_line_frames && !binary && out.find_first_of("\r\n") != std::string::npos) {
    throw std::invalid_argument(
        "the encoded message holds a line break, which LongPoll cannot carry (the server splits a POST at line "
        "breaks)");
  }
  return binary;
}

// Encoded into one of the worker's spare strings: a heartbeat (or a push) allocates nothing
// on its way to the transport, which copies the bytes into its frame.
void ChannelsSocket::send(const phx::Message& m) {
  std::string text = ctx_.take_text();
  const bool binary = encode_into(m, text);
  send_(text, binary);
  ctx_.give_back_text(std::move(text));
}

void ChannelsSocket::on_open() {
  if (closed_) return;  // closed while connecting: it stays closed
  const bool reopened = reconnecting_;
  open_ = true;
  reconnecting_ = false;
  arm_heartbeat();
  if (!reopened) return;
  // phoenix.js: each errored channel rejoins as the socket opens (its onOpen callback), then
  // the socket's sendBuffer goes; a channel's own pushes wait for its rejoin's reply.
  std::vector<std::string> topics;
  for (const auto& [topic, ch] : channels_)
    if (ch.state == Channel::State::Errored) topics.push_back(topic);
  for (const std::string& topic : topics) rejoin(topic);
  send_unsent();
}

// --- heartbeats: first one an interval after open, the next an interval after its reply;
// a reply later than an interval means the connection is dead (phoenix.js). ---

void ChannelsSocket::arm_heartbeat() {
  if (options_.heartbeat_interval <= 0 || closed_) return;
  // On the worker's coarse grid: a heartbeat up to 1% late is one Phoenix never notices, and
  // thousands of held sockets then share a few wake-ups a second (docs/design/048).
  ctx_.timers().schedule_coarse_after(heartbeat_timer_, options_.heartbeat_interval, &ChannelsSocket::heartbeat_due,
                                      this);
}

// The timer is a member: it cannot fire after the socket is gone.
void ChannelsSocket::heartbeat_due(void* self) {
  auto* socket = static_cast<ChannelsSocket*>(self);
  // Held for the call: closing on a missed heartbeat may drop the owner's last reference.
  const std::shared_ptr<ChannelsSocket> keep = socket->weak_from_this().lock();
  socket->send_heartbeat();
}

void ChannelsSocket::send_heartbeat() {
  if (closed_) return;
  if (heartbeat_ref_) {
    if (options_.record_metrics) ctx_.sink.add(ids_.heartbeat_timeouts);
    close_(proto::ws::close_code::kNormal, "heartbeat timeout");
    on_closed("heartbeat timeout");
    return;
  }
  phx::Message m;
  m.ref = next_ref();
  m.topic = kHeartbeatTopic;
  m.event = "heartbeat";
  heartbeat_ref_ = *m.ref;
  heartbeat_sent_at_ = ctx_.clock.now();
  send(m);
  arm_heartbeat();  // doubles as the reply deadline
}

// --- requests ---

std::string ChannelsSocket::send_request(RequestKind kind, phx::Message m, Nanos timeout, ReplyHandler done) {
  const std::string ref = next_ref();
  m.ref = ref;
  // Encoded first: a message that cannot be encoded throws before anything is pending.
  phx::Frame frame = encode(m);
  Pending p;
  p.kind = kind;
  p.topic = m.topic;
  p.join_ref = m.join_ref.value_or("");
  p.done = std::move(done);
  if (timeout <= 0) timeout = options_.default_timeout;
  p.timer = std::make_unique<boost::asio::steady_timer>(ctx_.io);
  p.timer->expires_after(std::chrono::nanoseconds(timeout));
  p.timer->async_wait([weak = weak_from_this(), ref, timeout](const boost::system::error_code& ec) {
    if (ec) return;
    if (auto self = weak.lock()) {
      ChannelReply r;
      r.failure = "timeout";
      r.message = fmt::format("no reply within {:.1f}s", static_cast<double>(timeout) / kSecond);
      self->finish(ref, std::move(r));
    }
  });
  p.sent_at = ctx_.clock.now();
  const auto ch = channels_.find(p.topic);
  const bool channel_waits = kind != RequestKind::Join && kind != RequestKind::Rejoin && ch != channels_.end() &&
                             ch->second.waits_for_rejoin();
  if (!closed_ && (reconnecting_ || (open_ && channel_waits))) {
    // Sent once the socket is open again and the channel rejoined, or failed by its timeout.
    p.counted_sent = false;
    p.unsent = std::make_unique<phx::Message>(std::move(m));
    pending_.emplace(ref, std::move(p));
    return ref;
  }
  if (closed_ || !open_) {
    p.counted_sent = false;
    pending_.emplace(ref, std::move(p));
    post([this, ref] {
      ChannelReply r;
      r.failure = "closed";
      r.message = closed_reason_.empty() ? "the socket is not open" : "the socket is not open (" + closed_reason_ + ")";
      finish(ref, std::move(r));
    });
    return ref;
  }
  ctx_.sink.request_sent();
  pending_.emplace(ref, std::move(p));
  send_(frame.data, frame.binary_frame);
  return ref;
}

void ChannelsSocket::join(const std::string& topic, std::string payload_json, Nanos timeout, ReplyHandler done,
                          RejoinHooks hooks) {
  // A second join of a joined topic: the server closes the old channel after answering the
  // new join (§3.6); the old join_ref's phx_close must not close the new channel.
  phx::Message m;
  m.topic = topic;
  m.event = "phx_join";
  m.payload = payload_json.empty() ? "{}" : std::move(payload_json);
  const std::string join_ref = std::to_string(ref_counter_ + 1);  // join_ref == ref of the join
  m.join_ref = join_ref;
  std::optional<Channel> previous;
  if (auto it = channels_.find(topic); it != channels_.end()) previous.emplace(std::move(it->second));
  Channel& ch = channels_[topic];
  ch = Channel{};
  ch.state = Channel::State::Joining;
  ch.join_ref = join_ref;
  if (options_.reconnect) {
    ch.payload = m.payload;
    if (hooks.errored || hooks.payload || hooks.rejoined) ch.hooks = std::make_shared<const RejoinHooks>(std::move(hooks));
  }
  try {
    send_request(RequestKind::Join, std::move(m), timeout, std::move(done));
  } catch (...) {
    if (previous) channels_[topic] = std::move(*previous); else channels_.erase(topic);
    throw;
  }
}

void ChannelsSocket::push(const std::string& topic, const std::string& event, std::string payload, bool binary,
                          Nanos timeout, ReplyHandler done) {
  phx::Message m;
  m.topic = topic;
  m.event = event;
  m.payload = std::move(payload);
  m.binary = binary;
  if (auto it = channels_.find(topic); it != channels_.end()) m.join_ref = it->second.join_ref;
  send_request(RequestKind::Push, std::move(m), timeout, std::move(done));
}

void ChannelsSocket::leave(const std::string& topic, Nanos timeout, ReplyHandler done) {
  if (auto it = channels_.find(topic); it != channels_.end() && it->second.waits_for_rejoin() && !closed_) {
    // phoenix.js answers a leave it cannot push "ok" at once: the server's channel went with
    // the lost connection, and the rejoin is called off.
    channels_.erase(it);
    // Its pushes that waited for the rejoin will never go: they fail channel_closed now
    // (phoenix.js lets them time out; a load test counts them when they are lost).
    auto dropped = std::make_shared<std::vector<Pending>>();
    std::vector<std::string> refs;
    for (const auto& [ref, p] : pending_)
      if (p.topic == topic && p.unsent && p.kind == RequestKind::Push) refs.push_back(ref);
    for (const std::string& ref : refs) {
      auto waiting = pending_.find(ref);
      if (waiting->second.timer) waiting->second.timer->cancel();
      dropped->push_back(std::move(waiting->second));
      pending_.erase(waiting);
    }
    post([this, dropped, topic] {
      for (Pending& p : *dropped) {
        ChannelReply r;
        r.failure = "channel_closed";
        r.message = fmt::format("the channel {} was left while it waited to rejoin", topic);
        record_outcome(p.kind, p, r);
        if (p.done) p.done(r);
      }
    });
    post([done = std::move(done)] {
      ChannelReply r;
      r.status = "ok";
      r.response = "{}";
      if (done) done(r);
    });
    return;
  }
  phx::Message m;
  m.topic = topic;
  m.event = "phx_leave";
  if (auto it = channels_.find(topic); it != channels_.end()) {
    m.join_ref = it->second.join_ref;
    it->second.state = Channel::State::Leaving;
  }
  send_request(RequestKind::Leave, std::move(m), timeout, std::move(done));
}

void ChannelsSocket::cast(const std::string& topic, const std::string& event, std::string payload, bool binary) {
  if (!open_ || closed_) return;
  phx::Message m;
  m.topic = topic;
  m.event = event;
  m.payload = std::move(payload);
  m.binary = binary;
  m.ref = next_ref();
  if (auto it = channels_.find(topic); it != channels_.end()) m.join_ref = it->second.join_ref;
  send(m);
}

bool ChannelsSocket::joined(const std::string& topic) const {
  auto it = channels_.find(topic);
  return it != channels_.end() && it->second.state == Channel::State::Joined;
}

bool ChannelsSocket::joined_or_rejoining(const std::string& topic) const {
  auto it = channels_.find(topic);
  return it != channels_.end() && (it->second.state == Channel::State::Joined || it->second.waits_for_rejoin());
}

// --- inbound ---

void ChannelsSocket::on_frame(std::string_view data, bool binary) {
  phx::Decoded decoded = options_.custom_decode
                             ? options_.custom_decode(data, binary)
                             : phx::decode(data, binary, options_.serializer, phx::Direction::ServerToClient);
  if (auto* error = std::get_if<std::string>(&decoded)) {
    // A server that sends something we cannot read: count it and drop the socket, like a
    // Phoenix client would fail to parse and reconnect.
    close_(proto::ws::close_code::kProtocolError, "invalid Phoenix frame");
    on_closed("the server sent an invalid Phoenix frame: " + *error);
    return;
  }
  phx::Message& m = std::get<phx::Message>(decoded);
  if (m.event == "phx_reply") {
    on_reply(m);
  } else if (m.event == "phx_close" || m.event == "phx_error") {
    on_channel_end(m, m.event == "phx_error");
  } else {
    deliver(std::move(m));
  }
}

void ChannelsSocket::on_reply(const phx::Message& m) {
  if (!m.ref) return;
  if (heartbeat_ref_ && *m.ref == *heartbeat_ref_) {
    if (options_.record_metrics) ctx_.sink.record(ids_.heartbeat, ctx_.clock.now() - heartbeat_sent_at_);
    heartbeat_ref_.reset();
    arm_heartbeat();
    return;
  }
  auto it = pending_.find(*m.ref);
  if (it == pending_.end()) return;  // a reply after its timeout
  ChannelReply r;
  if (m.binary) {
    r.status = m.status;
    r.response = m.payload;
    r.binary = true;
  } else if (!m.status.empty()) {
    r.status = m.status;  // read by the decoder in the same pass
    r.response = std::string(phx::reply_response(m));
  } else {
    r.status = "error";
    r.response = m.payload;
  }
  Pending& p = it->second;
  if (p.kind == RequestKind::Rejoin) {
    const std::string topic = p.topic;
    auto ch = channels_.find(topic);
    const bool current = ch != channels_.end() && ch->second.join_ref == p.join_ref;
    if (current) {
      ch->second.state = r.status == "ok" ? Channel::State::Joined : Channel::State::Errored;
      if (r.status == "ok") {
        ch->second.rejoin_tries = 0;
        if (auto pr = presence_.find(topic); pr != presence_.end()) pr->second.presence.set_join_ref(p.join_ref);
      }
    }
    finish(*m.ref, std::move(r));  // may change channels_
    if (!current) return;
    if (auto again = channels_.find(topic); again != channels_.end()) {
      if (again->second.state == Channel::State::Joined) {
        send_unsent();  // the pushes made while it rejoined
      } else if (again->second.state == Channel::State::Errored) {
        rejoin_later(topic);  // refused: phoenix.js tries again after rejoinAfterMs
      }
    }
    return;
  }
  if (p.kind == RequestKind::Join) {
    auto ch = channels_.find(p.topic);
    if (ch != channels_.end() && ch->second.join_ref == p.join_ref) {
      if (r.status == "ok") {
        ch->second.state = Channel::State::Joined;
        if (auto pr = presence_.find(p.topic); pr != presence_.end()) pr->second.presence.set_join_ref(p.join_ref);
      } else {
        channels_.erase(ch);
      }
    }
  } else if (p.kind == RequestKind::Leave) {
    auto ch = channels_.find(p.topic);
    if (ch != channels_.end() && ch->second.join_ref == p.join_ref) channels_.erase(ch);
  }
  finish(*m.ref, std::move(r));
}

void ChannelsSocket::on_channel_end(const phx::Message& m, bool crashed) {
  auto ch = channels_.find(m.topic);
  if (ch == channels_.end()) return;
  // Only the current join: an old join_ref's phx_close (duplicate join) changes nothing.
  if (m.join_ref && *m.join_ref != ch->second.join_ref) return;
  const std::string topic = m.topic;
  channels_.erase(ch);
  if (crashed) {
    fail_topic(topic, "channel_crashed", fmt::format("the channel {} crashed (phx_error)", topic));
  } else {
    fail_topic(topic, "channel_closed", fmt::format("the server closed the channel {} (phx_close)", topic));
  }
}

void ChannelsSocket::deliver(phx::Message&& m) {
  auto ch = channels_.find(m.topic);
  if (ch != channels_.end()) {
    if (m.join_ref && !m.join_ref->empty() && *m.join_ref != ch->second.join_ref) return;  // stale
  } else if (m.join_ref && !m.join_ref->empty()) {
    return;  // for a join this socket no longer holds
  }
  if (options_.record_metrics) ctx_.sink.add(ids_.messages);
  if (auto pr = presence_.find(m.topic); pr != presence_.end() && !m.binary) {
    boost::system::error_code ec;
    auto value = boost::json::parse(m.payload, ec);
    if (!ec && value.is_object()) {
      if (m.event == "presence_state") {
        pr->second.presence.apply_state(value.as_object(), ch != channels_.end() ? ch->second.join_ref : "");
        notify_presence(m.topic);
      } else if (m.event == "presence_diff") {
        pr->second.presence.apply_diff(value.as_object());
        notify_presence(m.topic);
      }
    }
  }
  ChannelMessage msg;
  msg.seq = ++seq_;
  msg.topic = std::move(m.topic);
  msg.event = std::move(m.event);
  msg.payload = std::move(m.payload);
  msg.binary = m.binary;
  if (buffer_.size() >= options_.buffer_limit) {
    buffer_.pop_front();
    if (options_.record_metrics) ctx_.sink.add(ids_.dropped);
  }
  buffer_.push_back(std::move(msg));
  const ChannelMessage& stored = buffer_.back();
  // Wake the first waiter this message satisfies (each message is read by one await).
  for (auto it = waiters_.begin(); it != waiters_.end(); ++it) {
    Waiter& w = it->second;
    if (w.topic == stored.topic && (w.event.empty() || w.event == stored.event) && stored.seq > w.after_seq) {
      auto done = std::move(w.done);
      waiters_.erase(it);
      done(&stored);
      return;
    }
  }
}

const ChannelMessage* ChannelsSocket::find(const std::string& topic, const std::string& event,
                                           std::uint64_t after_seq) const {
  for (const ChannelMessage& m : buffer_) {
    if (m.seq > after_seq && m.topic == topic && (event.empty() || m.event == event)) return &m;
  }
  return nullptr;
}

void ChannelsSocket::wait_message(const std::string& topic, const std::string& event, std::uint64_t after_seq,
                                  Nanos timeout, std::function<void(const ChannelMessage*)> done) {
  if (const ChannelMessage* m = find(topic, event, after_seq)) {
    const std::uint64_t seq = m->seq;
    post([this, seq, topic, event, done = std::move(done)] { done(find(topic, event, seq - 1)); });
    return;
  }
  if (closed_) {
    post([done = std::move(done)] { done(nullptr); });
    return;
  }
  const std::uint64_t id = ++next_waiter_;
  Waiter w;
  w.topic = topic;
  w.event = event;
  w.after_seq = after_seq;
  w.done = std::move(done);
  w.timer = std::make_unique<boost::asio::steady_timer>(ctx_.io);
  w.timer->expires_after(std::chrono::nanoseconds(timeout > 0 ? timeout : options_.default_timeout));
  w.timer->async_wait([weak = weak_from_this(), id](const boost::system::error_code& ec) {
    if (ec) return;
    if (auto self = weak.lock()) {
      auto it = self->waiters_.find(id);
      if (it == self->waiters_.end()) return;
      auto cb = std::move(it->second.done);
      self->waiters_.erase(it);
      cb(nullptr);
    }
  });
  waiters_.emplace(id, std::move(w));
}

void ChannelsSocket::consume(std::uint64_t seq) {
  for (auto it = buffer_.begin(); it != buffer_.end(); ++it) {
    if (it->seq == seq) {
      buffer_.erase(it);
      return;
    }
  }
}

// --- presence ---

proto::phx::Presence& ChannelsSocket::presence(const std::string& topic) {
  auto [it, inserted] = presence_.try_emplace(topic);
  if (inserted) {
    // Asked for after the join: replay what arrived since (nothing received is lost).
    auto ch = channels_.find(topic);
    if (ch != channels_.end()) it->second.presence.set_join_ref(ch->second.join_ref);
    for (const ChannelMessage& m : buffer_) {
      if (m.topic != topic || m.binary) continue;
      boost::system::error_code ec;
      auto value = boost::json::parse(m.payload, ec);
      if (ec || !value.is_object()) continue;
      if (m.event == "presence_state") {
        it->second.presence.apply_state(value.as_object(), ch != channels_.end() ? ch->second.join_ref : "");
      } else if (m.event == "presence_diff") {
        it->second.presence.apply_diff(value.as_object());
      }
    }
  }
  return it->second.presence;
}

std::uint64_t ChannelsSocket::presence_version(const std::string& topic) const {
  auto it = presence_.find(topic);
  return it == presence_.end() ? 0 : it->second.version;
}

void ChannelsSocket::notify_presence(const std::string& topic) {
  auto it = presence_.find(topic);
  if (it == presence_.end()) return;
  ++it->second.version;
  auto waiters = std::move(it->second.waiters);
  it->second.waiters.clear();
  for (auto& [id, done] : waiters) {
    presence_timers_.erase(id);
    done(true);
  }
}

void ChannelsSocket::wait_presence(const std::string& topic, std::uint64_t after_version, Nanos timeout,
                                   std::function<void(bool)> done) {
  presence(topic);
  auto& pt = presence_.at(topic);
  if (pt.version > after_version) {
    post([done = std::move(done)] { done(true); });
    return;
  }
  if (closed_) {
    post([done = std::move(done)] { done(false); });
    return;
  }
  const std::uint64_t id = ++next_waiter_;
  pt.waiters.emplace_back(id, std::move(done));
  auto timer = std::make_unique<boost::asio::steady_timer>(ctx_.io);
  timer->expires_after(std::chrono::nanoseconds(timeout > 0 ? timeout : options_.default_timeout));
  timer->async_wait([weak = weak_from_this(), topic, id](const boost::system::error_code& ec) {
    if (ec) return;
    auto self = weak.lock();
    if (!self) return;
    self->presence_timers_.erase(id);
    auto& ws = self->presence_.at(topic).waiters;
    for (auto it = ws.begin(); it != ws.end(); ++it) {
      if (it->first == id) {
        auto cb = std::move(it->second);
        ws.erase(it);
        cb(false);
        return;
      }
    }
  });
  presence_timers_.emplace(id, std::move(timer));
}

// --- endings ---

void ChannelsSocket::record_outcome(RequestKind kind, const Pending& p, const ChannelReply& reply) {
  if (kind == RequestKind::Heartbeat) return;
  const auto timing = kind == RequestKind::Join     ? ids_.join
                      : kind == RequestKind::Push   ? ids_.push
                      : kind == RequestKind::Rejoin ? ids_.rejoin
                                                    : ids_.leave;
  const auto errors = kind == RequestKind::Join     ? ids_.join_errors
                      : kind == RequestKind::Push   ? ids_.push_errors
                      : kind == RequestKind::Rejoin ? ids_.rejoin_errors
                                                    : ids_.leave_errors;
  if (reply.failure.empty() && options_.record_metrics) ctx_.sink.record(timing, ctx_.clock.now() - p.sent_at);
  // A request cut off because the scenario closed the socket is neither done nor failed.
  if (reply.failure == "closed" && closing_by_scenario_) return;
  const bool ok = reply.ok();
  if (!ok) {
    const std::string reason = reply.failure.empty()
                                   ? (kind == RequestKind::Join || kind == RequestKind::Rejoin ? std::string("refused")
                                                                                               : "status " + reply.status)
                                   : reply.failure;
    if (options_.record_metrics) ctx_.sink.add_error(errors, reason);
  }
  if (!p.counted_sent) ctx_.sink.request_sent();
  ctx_.sink.request_finished(ok);
}

void ChannelsSocket::finish(const std::string& ref, ChannelReply reply) {
  auto it = pending_.find(ref);
  if (it == pending_.end()) return;
  Pending p = std::move(it->second);
  pending_.erase(it);
  if (p.timer) p.timer->cancel();
  if (p.kind == RequestKind::Join && !reply.ok()) {
    auto ch = channels_.find(p.topic);
    if (ch != channels_.end() && ch->second.join_ref == p.join_ref) channels_.erase(ch);
  }
  record_outcome(p.kind, p, reply);
  if (p.kind == RequestKind::Rejoin && reply.failure == "timeout") {
    // No reply in time: phoenix.js's join timeout errors the channel and tries again later.
    auto ch = channels_.find(p.topic);
    if (ch != channels_.end() && ch->second.join_ref == p.join_ref) {
      ch->second.state = Channel::State::Errored;
      rejoin_later(p.topic);
    }
  }
  if (p.done) p.done(reply);
}

void ChannelsSocket::fail_topic(const std::string& topic, const std::string& failure, const std::string& message) {
  std::vector<std::string> refs;
  for (const auto& [ref, p] : pending_)
    if (p.topic == topic) refs.push_back(ref);
  for (const auto& ref : refs) {
    ChannelReply r;
    // LiveView sends phx_close before the leave's reply: a pending leave has what it wanted.
    if (pending_.at(ref).kind == RequestKind::Leave && failure == "channel_closed") {
      r.status = "ok";
      r.response = "{}";
    } else {
      r.failure = failure;
      r.message = message;
    }
    finish(ref, std::move(r));
  }
}

void ChannelsSocket::on_closed(const std::string& reason) {
  if (closed_) return;
  closed_ = true;
  open_ = false;
  reconnecting_ = false;
  closed_reason_ = reason;
  heartbeat_timer_.cancel();
  channels_.clear();
  std::vector<std::string> refs;
  for (const auto& [ref, p] : pending_) refs.push_back(ref);
  for (const auto& ref : refs) {
    ChannelReply r;
    r.failure = "closed";
    r.message = "the socket closed: " + reason;
    finish(ref, std::move(r));
  }
  auto waiters = std::move(waiters_);
  waiters_.clear();
  for (auto& [id, w] : waiters) {
    if (w.timer) w.timer->cancel();
    w.done(nullptr);
  }
  for (auto& [topic, pt] : presence_) {
    auto ws = std::move(pt.waiters);
    pt.waiters.clear();
    for (auto& [id, done] : ws) done(false);
  }
  presence_timers_.clear();
}

void ChannelsSocket::on_connection_lost(const std::string& reason) {
  if (closed_ || !open_) return;
  open_ = false;
  reconnecting_ = true;
  closed_reason_ = reason;
  heartbeat_timer_.cancel();
  heartbeat_ref_.reset();
  // Joined channels rejoin once the socket opens again; a join, leave or rejoin that was in
  // flight went with the connection (its request fails below, its channel is not rejoined
  // unless it was joined).
  std::vector<std::string> gone;
  std::vector<std::pair<std::string, std::shared_ptr<const RejoinHooks>>> errored;
  for (auto& [topic, ch] : channels_) {
    if (ch.state == Channel::State::Joined || ch.state == Channel::State::Rejoining ||
        ch.state == Channel::State::Errored) {
      if (ch.state != Channel::State::Errored && ch.hooks && ch.hooks->errored) errored.emplace_back(topic, ch.hooks);
      ch.state = Channel::State::Errored;
      ch.rejoin_timer.reset();
    } else {
      gone.push_back(topic);
    }
  }
  for (const std::string& topic : gone) channels_.erase(topic);
  std::vector<std::string> refs;
  for (const auto& [ref, p] : pending_)
    if (!p.unsent) refs.push_back(ref);
  for (const auto& ref : refs) {
    ChannelReply r;
    r.failure = "closed";
    r.message = "the connection was lost (" + reason + "); the socket reconnects";
    finish(ref, std::move(r));
  }
  // phoenix.js: onConnClose triggers each channel's error (its onError callbacks), in order.
  for (const auto& [topic, hooks] : errored) {
    if (closed_ || !reconnecting_) return;  // a hook closed the socket
    const auto ch = channels_.find(topic);
    if (ch == channels_.end() || ch->second.hooks != hooks) continue;  // left by an earlier hook
    hooks->errored(reason);
  }
}

void ChannelsSocket::rejoin(const std::string& topic) {
  auto it = channels_.find(topic);
  if (it == channels_.end() || it->second.state != Channel::State::Errored || !open_) return;
  phx::Message m;
  m.topic = topic;
  m.event = "phx_join";
  const auto hooks = it->second.hooks;
  std::string payload = hooks && hooks->payload ? hooks->payload() : std::string();
  it = channels_.find(topic);  // the hook builds a payload; it should not, but may, leave the channel
  if (it == channels_.end() || it->second.state != Channel::State::Errored || !open_) return;
  if (payload.empty()) payload = it->second.payload.empty() ? "{}" : it->second.payload;
  m.payload = std::move(payload);
  const std::string join_ref = std::to_string(ref_counter_ + 1);  // join_ref == ref of the join
  m.join_ref = join_ref;
  it->second.state = Channel::State::Rejoining;
  it->second.join_ref = join_ref;
  it->second.rejoin_timer.reset();
  try {
    send_request(RequestKind::Rejoin, std::move(m), options_.default_timeout,
                 hooks && hooks->rejoined ? hooks->rejoined : ReplyHandler());
  } catch (const std::invalid_argument&) {
    // It encoded when first joined; a custom serializer that fails now leaves it errored.
    if (auto again = channels_.find(topic); again != channels_.end()) again->second.state = Channel::State::Errored;
  }
}

void ChannelsSocket::rejoin_later(const std::string& topic) {
  auto it = channels_.find(topic);
  if (it == channels_.end() || !open_) return;  // not open: on_open() rejoins it
  Channel& ch = it->second;
  ch.rejoin_timer = std::make_unique<boost::asio::steady_timer>(ctx_.io);
  ch.rejoin_timer->expires_after(std::chrono::nanoseconds(phoenix_rejoin_after(++ch.rejoin_tries)));
  ch.rejoin_timer->async_wait([weak = weak_from_this(), topic](const boost::system::error_code& ec) {
    if (ec) return;
    if (auto self = weak.lock()) self->rejoin(topic);
  });
}

void ChannelsSocket::send_unsent() {
  if (!open_ || closed_) return;
  std::vector<std::string> refs;
  for (const auto& [ref, p] : pending_)
    if (p.unsent) refs.push_back(ref);
  for (const std::string& ref : refs) {
    auto it = pending_.find(ref);
    if (it == pending_.end() || !it->second.unsent) continue;
    Pending& p = it->second;
    phx::Message& m = *p.unsent;
    if (auto ch = channels_.find(m.topic); ch != channels_.end()) {
      if (p.kind != RequestKind::Join && ch->second.waits_for_rejoin()) continue;  // after its rejoin
      if (p.kind != RequestKind::Join) m.join_ref = ch->second.join_ref;        // the rejoin's
    }
    phx::Frame frame;
    try {
      frame = encode(m);
    } catch (const std::invalid_argument& e) {
      ChannelReply r;
      r.failure = "closed";
      r.message = e.what();
      finish(ref, std::move(r));
      continue;
    }
    p.unsent.reset();
    p.counted_sent = true;
    ctx_.sink.request_sent();
    send_(frame.data, frame.binary_frame);
    if (!open_) return;  // the transport may close the socket as it sends
  }
}

void ChannelsSocket::close(const std::string& reason) {
  if (closed_) return;
  closing_by_scenario_ = true;
  close_(proto::ws::close_code::kNormal, reason);
  on_closed(reason);
}

}  // namespace stampede::clients
