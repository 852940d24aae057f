#pragma once
// What the channel sockets of one worker share with each other and with the other workers
// (Phoenix.PubSub and the node-wide bits of a Phoenix app, for one event loop):
//   - topic subscriptions of this worker's sockets, and delivery of broadcasts to them;
//   - publication to every socket of the target: delivered here at once (Phoenix's fastlane
//     writes a broadcast before the reply of the push that caused it), and handed to the
//     fan-out, which posts it to each other worker's loop;
//   - the presence registry (shared, locked), ids (phx_ref, Absinthe's unique integers) and
//     this worker's counters.
// Used only from its worker's thread. Needs no sockets, so sessions run without any in tests
// and in the fuzzer.
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "proto/phoenix_message.hpp"
#include "target/channel_stats.hpp"
#include "target/presence_registry.hpp"

namespace stampede::target {

class ChannelsSession;

// One published message, encoded once per serializer and shared by every worker it reaches.
struct Broadcast {
  std::string topic;
  proto::phx::Frame v1;
  proto::phx::Frame v2;
};

class ChannelsBus {
 public:
  using Fanout = std::function<void(const std::shared_ptr<const Broadcast>&)>;

  // Ids from worker `index` of `count` never collide with another worker's.
  ChannelsBus(PresenceRegistry& presence, unsigned index, unsigned count, std::uint64_t seed);
  ChannelsBus(const ChannelsBus&) = delete;
  ChannelsBus& operator=(const ChannelsBus&) = delete;

  // How a publication reaches the other workers (none by default).
  void set_fanout(Fanout fanout) { fanout_ = std::move(fanout); }

  void subscribe(const std::string& topic, ChannelsSession& session);
  void unsubscribe(const std::string& topic, ChannelsSession& session);

  // To every socket subscribed to `topic`, on every worker: null join_ref and ref.
  void publish(const std::string& topic, std::string_view event, std::string payload_json);
  // Hands a publication to this worker's subscribers (the fan-out calls it on this loop).
  void deliver(const Broadcast& broadcast);

  PresenceRegistry& presence() { return presence_; }
  ChannelStats& stats() { return stats_; }
  const ChannelStats& stats() const { return stats_; }

  // A Phoenix.Tracker-like phx_ref: 12 random bytes as 16 characters of URL-safe base64.
  std::string new_phx_ref();
  // 1, 2, 3, ... interleaved across workers (Absinthe's :erlang.unique_integer()).
  std::int64_t next_unique_integer();

  // Scratch space for the sessions of this worker, so that decoding a frame and encoding an
  // answer allocate nothing once warm. A session uses them only within one call: frames are
  // handled one at a time on the worker's loop and sinks copy what they are given.
  proto::phx::Message& decode_scratch() { return decode_scratch_; }
  std::string& encode_scratch() { return encode_scratch_; }

 private:
  PresenceRegistry& presence_;
  ChannelStats stats_;
  Fanout fanout_;
  std::unordered_map<std::string, std::unordered_set<ChannelsSession*>> subscribers_;
  proto::phx::Message decode_scratch_;
  std::string encode_scratch_;
  std::mt19937_64 random_;
  std::int64_t next_unique_;
  std::int64_t unique_step_;
};

}  // namespace stampede::target
