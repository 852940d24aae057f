#include "target/channels_bus.hpp"

#include <array>

#include "target/channels_session.hpp"

namespace stampede::target {

namespace phx = proto::phx;

ChannelsBus::ChannelsBus(PresenceRegistry& presence, unsigned index, unsigned count, std::uint64_t seed)
    : presence_(presence),
      random_(seed),
      next_unique_(static_cast<std::int64_t>(index) + 1),
      unique_step_(count == 0 ? 1 : static_cast<std::int64_t>(count)) {}

void ChannelsBus::subscribe(const std::string& topic, ChannelsSession& session) {
  subscribers_[topic].insert(&session);
}

void ChannelsBus::unsubscribe(const std::string& topic, ChannelsSession& session) {
  const auto it = subscribers_.find(topic);
  if (it == subscribers_.end()) return;
  it->second.erase(&session);
  if (it->second.empty()) subscribers_.erase(it);
}

void ChannelsBus::publish(const std::string& topic, std::string_view event, std::string payload_json) {
  phx::Message message;
  message.topic = topic;
  message.event = std::string(event);
  message.payload = std::move(payload_json);
  auto broadcast = std::make_shared<Broadcast>();
  broadcast->topic = topic;
  broadcast->v1 = phx::encode(message, phx::Serializer::V1, phx::Direction::ServerToClient);
  broadcast->v2 = phx::encode(message, phx::Serializer::V2, phx::Direction::ServerToClient);
  stats_.broadcasts_published.add();
  deliver(*broadcast);
  if (fanout_) fanout_(broadcast);
}

void ChannelsBus::deliver(const Broadcast& broadcast) {
  const auto it = subscribers_.find(broadcast.topic);
  if (it == subscribers_.end()) return;
  // Sessions only queue output here (ChannelsSink's contract), so the set cannot change
  // while it is walked.
  for (auto* session : it->second) session->handle_broadcast(broadcast);
}

std::string ChannelsBus::new_phx_ref() {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::array<unsigned char, 12> bytes{};
  const auto a = random_();
  const auto b = random_();
  for (std::size_t i = 0; i < 8; ++i) bytes[i] = static_cast<unsigned char>(a >> (8 * i));
  for (std::size_t i = 0; i < 4; ++i) bytes[8 + i] = static_cast<unsigned char>(b >> (8 * i));
  std::string ref;
  ref.reserve(16);
  // 12 bytes are four whole 3-byte groups: 16 characters, no padding.
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const unsigned group = (unsigned{bytes[i]} << 16) | (unsigned{bytes[i + 1]} << 8) | unsigned{bytes[i + 2]};
    for (int shift = 18; shift >= 0; shift -= 6) ref += kAlphabet[(group >> shift) & 0x3F];
  }
  return ref;
}

std::int64_t ChannelsBus::next_unique_integer() {
  const auto n = next_unique_;
  next_unique_ += unique_step_;
  return n;
}

}  // namespace stampede::target
