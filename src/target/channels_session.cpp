#include "target/channels_session.hpp"

#include <utility>

#include "target/reply_text.hpp"

namespace stampede::target {
namespace {

namespace phx = proto::phx;
using namespace reply_text;  // kOk, kError, kEmpty, view()

}  // namespace

std::optional<ChannelsSession::Kind> ChannelsSession::route(std::string_view topic) {
  if (topic.starts_with("room:")) return Kind::Room;
  if (topic.starts_with("presence:")) return Kind::Presence;
  if (topic.starts_with("__absinthe__:")) return Kind::Absinthe;
  return std::nullopt;
}

ChannelsSession::ChannelsSession(phx::Serializer serializer, std::string user_id, ChannelsBus& bus, ChannelsSink& sink)
    : bus_(bus), socket_(serializer, bus, sink), user_id_(std::move(user_id)) {}

ChannelsSession::~ChannelsSession() {
  if (disconnected_) return;
  // Called while the target shuts down, when the other workers' loops may be gone: leave
  // without publishing anything.
  for (std::size_t i = channels_.size(); i-- > 0;) remove_channel(i, false);
}

void ChannelsSession::handle_frame(std::string_view data, bool binary, Nanos now) {
  socket_.handle_frame(data, binary, [&](phx::Message& message) { handle_message(message, now); });
}

void ChannelsSession::handle_message(phx::Message& message, Nanos now) {
  if (message.event == "phx_join") {
    join(message);
    return;
  }
  if (message.event == "phx_leave") {
    leave(message);
    return;
  }
  const auto* channel = find_channel(message.topic);
  if (channel == nullptr) {
    socket_.reply(std::nullopt, message.ref, message.topic, kError, R"({"reason":"unmatched topic"})");
    return;
  }
  // A message for an earlier join of this topic: Phoenix drops it without a word (§3.1).
  if (message.join_ref && message.join_ref != channel->join_ref) return;
  handle_event(static_cast<std::size_t>(channel - channels_.data()), message, now);
}

void ChannelsSession::join(phx::Message& message) {
  const auto kind = route(message.topic);
  if (!kind) {
    bus_.stats().joins_refused.add();
    socket_.reply(std::nullopt, message.ref, message.topic, kError, R"({"reason":"unmatched topic"})");
    return;
  }
  // Channel.Server.join: `join_ref || ref`.
  const auto join_ref = message.join_ref ? message.join_ref : message.ref;

  // A duplicate join stops the old channel first; its phx_close is queued behind the new
  // join's reply (§3.6).
  std::optional<std::optional<std::string>> replaced;
  if (auto* old = find_channel(message.topic)) {
    replaced = old->join_ref;
    remove_channel(static_cast<std::size_t>(old - channels_.data()), true);
  }

  const char* refusal = nullptr;
  if (channels_.size() >= kMaxChannels) {
    refusal = R"({"reason":"too many channels joined"})";
  } else if (message.topic == "room:private") {
    refusal = R"({"reason":"unauthorized"})";
  }
  if (refusal != nullptr) {
    bus_.stats().joins_refused.add();
    socket_.reply(join_ref, message.ref, message.topic, kError, refusal);
    if (replaced) socket_.send_lifecycle(*replaced, message.topic, "phx_close");
    return;
  }

  Channel channel;
  channel.topic = message.topic;
  channel.join_ref = join_ref;
  channel.kind = *kind;
  channels_.push_back(std::move(channel));
  auto& joined = channels_.back();
  if (joined.kind != Kind::Absinthe) bus_.subscribe(joined.topic, *this);
  bus_.stats().joins.add();
  socket_.reply(join_ref, message.ref, joined.topic, kOk, kEmpty);
  if (replaced) socket_.send_lifecycle(*replaced, joined.topic, "phx_close");
  // What the demo app does in handle_info(:after_join): the join reply always goes first.
  if (joined.kind == Kind::Presence) track_presence(joined, message.payload);
}

void ChannelsSession::leave(const phx::Message& message) {
  auto* channel = find_channel(message.topic);
  if (channel == nullptr) {
    // Not joined (a refused join, a crashed channel): ok, and nothing to close (§3.4).
    socket_.reply(message.join_ref, message.ref, message.topic, kOk, kEmpty);
    return;
  }
  if (message.join_ref && message.join_ref != channel->join_ref) return;  // an older join's leave
  bus_.stats().leaves.add();
  socket_.reply(channel->join_ref, message.ref, channel->topic, kOk, kEmpty);
  socket_.send_lifecycle(channel->join_ref, channel->topic, "phx_close");
  remove_channel(static_cast<std::size_t>(channel - channels_.data()), true);
}

void ChannelsSession::handle_event(std::size_t index, phx::Message& message, Nanos now) {
  bus_.stats().pushes_received.add();
  Outcome outcome;
  switch (channels_[index].kind) {
    case Kind::Room:
      outcome = room_event(channels_[index], message);
      break;
    case Kind::Presence:
      break;  // the demo app's presence channel has no handle_in: {:noreply, socket}
    case Kind::Absinthe:
      outcome = absinthe_event(message, now);
      break;
  }
  // Handlers may have published, but a publication never adds or removes this session's
  // channels, so `index` still points at the same one.
  const auto& channel = channels_[index];
  switch (outcome.kind) {
    case Outcome::Kind::NoReply:
      return;
    case Outcome::Kind::Reply:
      socket_.reply(channel.join_ref, message.ref, channel.topic, outcome.status, outcome.response);
      return;
    case Outcome::Kind::BinaryReply: {
      phx::MessageView binary;
      binary.join_ref = view(channel.join_ref);
      binary.ref = view(message.ref);
      binary.topic = channel.topic;
      binary.event = "phx_reply";
      binary.status = outcome.status;
      binary.payload = outcome.response;
      binary.binary = true;
      bus_.stats().replies_sent.add();
      socket_.send(binary);
      return;
    }
    case Outcome::Kind::Crash:
      // The channel process died: phx_error, and the channel is gone (§3.5). Phoenix 1.7
      // (the captures) sends {}; 1.8.10 and later add {"reason":"channel_crash"}.
      bus_.stats().channel_crashes.add();
      socket_.send_lifecycle(channel.join_ref, channel.topic, "phx_error");
      remove_channel(index, true);
      return;
  }
}

void ChannelsSession::handle_broadcast(const Broadcast& broadcast) { socket_.send_broadcast(broadcast); }

void ChannelsSession::handle_time(Nanos now) {
  if (socket_.closed()) return;
  for (auto& subscription : subscriptions_) {
    if (subscription.due > now) continue;
    push_subscription_data(subscription);
    subscription.due += subscription.interval;
    // Behind by more than a period (a stalled loop): carry on from now rather than burst.
    if (subscription.due <= now) subscription.due = now + subscription.interval;
  }
}

std::optional<Nanos> ChannelsSession::next_due() const {
  if (socket_.closed() || subscriptions_.empty()) return std::nullopt;
  Nanos due = subscriptions_.front().due;
  for (const auto& subscription : subscriptions_) due = std::min(due, subscription.due);
  return due;
}

void ChannelsSession::handle_disconnect() {
  socket_.mark_closed();
  if (disconnected_) return;
  disconnected_ = true;
  for (std::size_t i = channels_.size(); i-- > 0;) remove_channel(i, true);
}

ChannelsSession::Channel* ChannelsSession::find_channel(std::string_view topic) {
  for (auto& channel : channels_) {
    if (channel.topic == topic) return &channel;
  }
  return nullptr;
}

void ChannelsSession::remove_channel(std::size_t index, bool publish_leave) {
  auto& channel = channels_[index];
  switch (channel.kind) {
    case Kind::Room:
      bus_.unsubscribe(channel.topic, *this);
      break;
    case Kind::Presence:
      // Leave first, then unsubscribe: in the captures the leaver itself still receives its
      // leave diff, after its phx_close (Phoenix removes the dead channel's subscription
      // only after the tracker has broadcast). phoenix.js drops it: the channel is gone.
      untrack_presence(channel, publish_leave);
      bus_.unsubscribe(channel.topic, *this);
      break;
    case Kind::Absinthe:
      // The subscriptions belong to the control channel's process (§7.1 "Lifetime").
      subscriptions_.clear();
      subscriptions_.shrink_to_fit();
      break;
  }
  channels_.erase(channels_.begin() + static_cast<std::ptrdiff_t>(index));
}

}  // namespace stampede::target
