#pragma once
// One Phoenix socket, server side: what Phoenix.Socket and the demo app's channels do with
// the frames of one WebSocket (../shared/phoenix-protocol.md §2-§4 and §7; the model of every
// frame is ../shared/phoenix-captures/frames_channels.json, Phoenix 1.7.24).
//
// A socket is one process in Phoenix, so frames are handled strictly in order, each to the
// end (replies, pushes and broadcasts it causes) before the next. The socket's part (decoding,
// heartbeats, encoding) is PhoenixSocket's, shared with LiveViewSession. Frames in, frames out
// through a ChannelsSink; the time is passed in. No sockets, no clocks: the protocol is
// tested and fuzzed without a network.
//
// Channels (the topics the demo app routes):
//   phoenix               heartbeat -> ok reply, join_ref null
//   room:*                new_msg (broadcast + ok), shout (broadcast), ping (echo reply),
//                         crash (phx_error), binary push (binary echo reply); room:private
//                         refuses joins with {"reason":"unauthorized"}
//   presence:*            presence_state on join, presence_diff to the topic on join and leave
//   __absinthe__:*        doc -> subscriptionId, then subscription:data on a timer; unsubscribe
// Join refs follow Phoenix 1.8.12 (§3.1): a non-join event with a null join_ref reaches the
// channel, one with another join_ref is dropped without a reply.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.hpp"
#include "proto/phoenix_message.hpp"
#include "target/channels_bus.hpp"
#include "target/phoenix_socket.hpp"

namespace stampede::target {

// Where a session's frames go (the WebSocket connection, or a recorder in tests).
class ChannelsSink {
 public:
  // Queues one WebSocket message for the client (copied: `data` is a scratch buffer). It
  // must not call back into any session: the bus walks its subscribers while it delivers a
  // broadcast.
  virtual void send(std::string_view data, bool binary) = 0;
  // Ends the WebSocket with this close code; the session ignores everything after it.
  virtual void close(std::uint16_t code, std::string_view reason) = 0;

 protected:
  ~ChannelsSink() = default;
};

class ChannelsSession {
 public:
  // Phoenix >= 1.7.24 refuses joins beyond 100 channels per socket (§1.7).
  static constexpr std::size_t kMaxChannels = 100;
  // Not Absinthe's (it has no limit): what a test target needs to stay up under a fuzzer.
  static constexpr std::size_t kMaxSubscriptions = 1000;

  // `user_id` is the connect parameter of that name ("" when absent): the demo app's socket
  // assigns it, puts it in new_msg broadcasts and uses it as the default presence key.
  ChannelsSession(proto::phx::Serializer serializer, std::string user_id, ChannelsBus& bus, ChannelsSink& sink);
  // Leaves quietly if handle_disconnect() was not called (the target is shutting down):
  // no presence_diff is published then.
  ~ChannelsSession();
  ChannelsSession(const ChannelsSession&) = delete;
  ChannelsSession& operator=(const ChannelsSession&) = delete;

  // One WebSocket message from the client. An undecodable frame closes the socket with 1011,
  // as a crashed socket process would (§1.8).
  void handle_frame(std::string_view data, bool binary, Nanos now);
  // A broadcast on a topic this session subscribed to (called by the bus).
  void handle_broadcast(const Broadcast& broadcast);
  // Sends the subscription:data pushes that are due at `now`.
  void handle_time(Nanos now);
  // When handle_time() has something to do next, if ever.
  std::optional<Nanos> next_due() const;
  // The socket is gone: every channel leaves (presence_diff to the others). Idempotent.
  void handle_disconnect();

  std::size_t channel_count() const { return channels_.size(); }
  std::size_t subscription_count() const { return subscriptions_.size(); }

 private:
  enum class Kind : std::uint8_t { Room, Presence, Absinthe };

  struct Channel {
    std::string topic;
    std::optional<std::string> join_ref;
    Kind kind = Kind::Room;
    std::string presence_key;  // presence channels: the tracked key and meta
    PresenceMeta presence_meta;
  };

  // An Absinthe subscription: data pushed every `interval` on topic `id`.
  struct Subscription {
    std::string id;
    std::string field;  // the document's root field, the key of the pushed data
    Nanos interval = 0;
    Nanos due = 0;
    std::uint64_t seq = 0;
  };

  // What a channel's handle_in returned.
  struct Outcome {
    enum class Kind : std::uint8_t { NoReply, Reply, BinaryReply, Crash };
    Kind kind = Kind::NoReply;
    std::string status;
    std::string response;  // JSON text, or the bytes of a binary reply

    static Outcome no_reply() { return {}; }
    static Outcome reply(std::string status, std::string response) {
      return {Kind::Reply, std::move(status), std::move(response)};
    }
    static Outcome binary_reply(std::string bytes) { return {Kind::BinaryReply, "ok", std::move(bytes)}; }
    static Outcome crash() { return {Kind::Crash, {}, {}}; }
  };

  // The demo app's `channel` routes; nullopt: an "unmatched topic" (§3.2).
  static std::optional<Kind> route(std::string_view topic);

  void handle_message(proto::phx::Message& message, Nanos now);
  void join(proto::phx::Message& message);
  void leave(const proto::phx::Message& message);
  void handle_event(std::size_t channel, proto::phx::Message& message, Nanos now);

  // room:* (channels_session_room.cpp)
  Outcome room_event(const Channel& channel, proto::phx::Message& message);
  // presence:* (channels_session_presence.cpp)
  void track_presence(Channel& channel, const std::string& join_payload);
  void untrack_presence(const Channel& channel, bool publish_leave);
  // __absinthe__:* (channels_session_absinthe.cpp)
  Outcome absinthe_event(proto::phx::Message& message, Nanos now);
  Outcome subscribe_document(const std::string& payload, Nanos now);
  Outcome unsubscribe_document(const std::string& payload);
  void push_subscription_data(Subscription& subscription);

  Channel* find_channel(std::string_view topic);
  // Stops channel `index` (unsubscribes, untracks its presence, drops its subscriptions).
  void remove_channel(std::size_t index, bool publish_leave);

  ChannelsBus& bus_;
  PhoenixSocket socket_;
  std::string user_id_;
  std::vector<Channel> channels_;
  std::vector<Subscription> subscriptions_;
  bool disconnected_ = false;  // channels are gone
};

}  // namespace stampede::target
