#pragma once
// A Phoenix socket as phoenix.js runs it (../shared/phoenix-protocol.md §3, appendix B):
// refs from one counter per socket, the current join_ref on every channel message, replies
// matched by ref (and join_ref), pushes and broadcasts routed by (topic, join_ref) with stale
// ones dropped, heartbeats on their own timer, and every pending push failed at once when
// its channel crashes or closes or the socket goes away.
//
// It sits on a message transport (a WebSocket) through two functions, so the protocol logic
// is tested without sockets. Single-threaded: everything runs on the worker's loop.
#include <boost/asio/steady_timer.hpp>
#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "clients/client_context.hpp"
#include "clients/small_map.hpp"
#include "clients/worker_timers.hpp"
#include "proto/phoenix_message.hpp"
#include "proto/phoenix_presence.hpp"
#include "proto/websocket_frame.hpp"

namespace stampede::clients {

// The outcome of join/push/leave.
struct ChannelReply {
  std::string status;    // "ok", "error", ... when a reply arrived
  std::string response;  // JSON text, or raw bytes when `binary`
  bool binary = false;
  // Empty when a reply arrived. Otherwise: timeout, channel_crashed, channel_closed, closed.
  std::string failure;
  std::string message;   // a sentence for people when `failure` is set
  bool ok() const { return failure.empty() && status == "ok"; }
};

// A push or broadcast from the server, kept until the scenario reads it.
struct ChannelMessage {
  std::uint64_t seq = 0;
  std::string topic;
  std::string event;
  std::string payload;  // JSON text, or raw bytes when `binary`
  bool binary = false;
};

struct ChannelsOptions {
  proto::phx::Serializer serializer = proto::phx::Serializer::V2;
  Nanos heartbeat_interval = 30 * kSecond;  // 0: no heartbeats
  Nanos default_timeout = 10 * kSecond;     // phoenix.js DEFAULT_TIMEOUT
  std::size_t buffer_limit = 1000;          // messages kept for await(); the oldest go first
  // A serializer of the application's own (servers that add message types): when set, used
  // instead of `serializer`. decode returns the message or an error sentence.
  std::function<proto::phx::Frame(const proto::phx::Message&)> custom_encode;
  std::function<proto::phx::Decoded(std::string_view data, bool binary)> custom_decode;
  // Record channel.* metrics (join, push, leave, messages, heartbeat). Off for a socket that
  // another client drives and measures itself (LiveView: live.join, live.event...), so that one
  // user action is not counted twice under two names. Requests sent/completed still count.
  bool record_metrics = true;
  // The transport carries one message per line (LongPoll's ndjson POSTs): a text frame with a
  // line break is refused when encoded (std::invalid_argument), before anything is pending.
  // Only a custom serializer can produce one; JSON escapes line breaks.
  bool one_line_frames = false;
  // Set by PhoenixConnection when the socket reconnects after losing its connection
  // (docs/design/049): each join's payload is kept for its rejoin.
  bool reconnect = false;
};

class ChannelsSocket : public std::enable_shared_from_this<ChannelsSocket> {
 public:
  using Send = std::function<void(std::string_view data, bool binary)>;
  using Close = std::function<void(std::uint16_t code, std::string reason)>;
  using ReplyHandler = std::function<void(const ChannelReply&)>;

  // What the owner of a channel does across a reconnect, when it needs more than a rejoin with
  // the join's payload (LiveView: phoenix.js's channel.onError, the params closure it calls for
  // every (re)join, and the join push's receive hooks, which fire again for each rejoin).
  // Kept only with options().reconnect. Each is optional; none is called from inside a call
  // the owner made.
  struct RejoinHooks {
    // The connection was lost while the channel was joined: it waits to rejoin. The owner may
    // leave this or other channels from here (a leave of a waiting channel is "ok" at once).
    std::function<void(const std::string& reason)> errored;
    // The payload of each rejoin, built as it is sent ("" or unset: the join's payload).
    std::function<std::string()> payload;
    // Each rejoin's outcome: the reply (ok or refused), or a timeout or closed failure. The
    // socket has already set the channel's state; calls that waited go after this returns.
    ReplyHandler rejoined;
  };

  ChannelsSocket(ClientContext& ctx, ChannelsOptions options, Send send, Close close);
  ~ChannelsSocket();

  // --- from the transport ---
  void on_open();
  void on_frame(std::string_view data, bool binary);
  // The connection is gone: every pending request fails with `closed` and this reason.
  void on_closed(const std::string& reason);
  // The connection is gone but the owner reconnects (phoenix.js: onConnClose, then its
  // reconnectTimer): requests in flight fail with `closed` (their replies went with the
  // server's session), joined channels wait to rejoin, and requests made from now on wait for
  // the next on_open() (and their channel's rejoin) within their own timeouts. The next
  // on_open() rejoins every joined channel with its join payload, as phoenix.js does.
  void on_connection_lost(const std::string& reason);

  // --- requests: the handler is called exactly once, never from inside the call ---
  void join(const std::string& topic, std::string payload_json, Nanos timeout, ReplyHandler done,
            RejoinHooks hooks = {});
  void push(const std::string& topic, const std::string& event, std::string payload, bool binary, Nanos timeout,
            ReplyHandler done);
  void leave(const std::string& topic, Nanos timeout, ReplyHandler done);
  // join/push/leave/cast throw std::invalid_argument for a message that cannot be encoded
  // (e.g. a topic over 255 bytes in a binary frame); nothing is sent then.
  // A push whose reply nobody waits for.
  void cast(const std::string& topic, const std::string& event, std::string payload, bool binary);

  // --- messages from the server, buffered from the moment the socket opened ---
  // The first buffered message after `after_seq` on `topic` with `event` (empty event: any).
  const ChannelMessage* find(const std::string& topic, const std::string& event, std::uint64_t after_seq) const;
  // Calls `done` with the first such message, now or when it arrives, or with nullptr on
  // timeout or when the socket closes.
  void wait_message(const std::string& topic, const std::string& event, std::uint64_t after_seq, Nanos timeout,
                    std::function<void(const ChannelMessage*)> done);
  void consume(std::uint64_t seq);

  // --- Presence: kept in sync for a topic from the moment it is asked for ---
  proto::phx::Presence& presence(const std::string& topic);
  std::uint64_t presence_version(const std::string& topic) const;
  // Calls done(true) once the presence of `topic` changes past `after_version`, done(false)
  // on timeout or close.
  void wait_presence(const std::string& topic, std::uint64_t after_version, Nanos timeout,
                     std::function<void(bool)> done);

  bool is_open() const { return open_; }
  bool is_closed() const { return closed_; }    // for good: on_closed() or close() ran
  bool reconnecting() const { return reconnecting_; }
  bool joined(const std::string& topic) const;
  // Joined, or joined when the connection was lost and waiting to rejoin (pushes to it wait).
  bool joined_or_rejoining(const std::string& topic) const;
  // Closes the connection (normal closure) and fails whatever is pending.
  void close(const std::string& reason = "closed by the scenario");
  const ChannelsOptions& options() const { return options_; }

 private:
  // Rejoin: the socket's own join of a channel joined before the connection was lost.
  enum class RequestKind { Join, Push, Leave, Heartbeat, Rejoin };
  struct Pending {
    RequestKind kind;
    std::string topic;
    std::string join_ref;
    Nanos sent_at = 0;
    std::unique_ptr<boost::asio::steady_timer> timer;
    ReplyHandler done;
    // False for a request the socket was not open to write: it is counted sent when it
    // fails, so that sent = completed + failed + in flight, as HTTP counts one never written.
    bool counted_sent = true;
    // Made while the socket reconnected (or its channel rejoined): sent once it can be, with
    // the channel's join_ref of then (phoenix.js's sendBuffer and pushBuffer).
    std::unique_ptr<proto::phx::Message> unsent;
  };
  struct Channel {
    // Errored: joined when the connection was lost, to rejoin; Rejoining: its rejoin is sent.
    enum class State { Joining, Joined, Leaving, Errored, Rejoining, Closed } state = State::Joining;
    std::string join_ref;
    std::string payload;  // the join's, kept for rejoins when options_.reconnect
    unsigned rejoin_tries = 0;
    std::unique_ptr<boost::asio::steady_timer> rejoin_timer;  // after a refused rejoin
    // Shared: a hook may leave the channel (erasing this) while it runs.
    std::shared_ptr<const RejoinHooks> hooks;
    bool waits_for_rejoin() const { return state == State::Errored || state == State::Rejoining; }
  };
  struct Waiter {
    std::string topic;
    std::string event;
    std::uint64_t after_seq = 0;
    std::unique_ptr<boost::asio::steady_timer> timer;
    std::function<void(const ChannelMessage*)> done;
  };
  struct PresenceTopic {
    proto::phx::Presence presence;
    std::uint64_t version = 0;
    std::vector<std::pair<std::uint64_t, std::function<void(bool)>>> waiters;  // (id, done)
  };

  std::string next_ref();
  proto::phx::Frame encode(const proto::phx::Message& m) const;  // may throw std::invalid_argument
  // The same into `out` (replaced, its capacity reused); returns whether the frame is binary.
  bool encode_into(const proto::phx::Message& m, std::string& out) const;
  void send(const proto::phx::Message& m);
  std::string send_request(RequestKind kind, proto::phx::Message m, Nanos timeout, ReplyHandler done);
  void on_reply(const proto::phx::Message& m);
  void on_channel_end(const proto::phx::Message& m, bool crashed);
  void deliver(proto::phx::Message&& m);
  void finish(const std::string& ref, ChannelReply reply);
  void fail_topic(const std::string& topic, const std::string& failure, const std::string& message);
  void record_outcome(RequestKind kind, const Pending& p, const ChannelReply& reply);
  void arm_heartbeat();
  static void heartbeat_due(void* self);
  void send_heartbeat();
  void notify_presence(const std::string& topic);
  void post(std::function<void()> fn);
  void rejoin(const std::string& topic);
  void rejoin_later(const std::string& topic);
  void send_unsent();

  ClientContext& ctx_;
  ChannelsOptions options_;
  Send send_;
  Close close_;
  bool open_ = false;
  bool reconnecting_ = false;  // lost, and the owner reconnects: on_connection_lost()
  std::string closed_reason_;  // why the socket closed, for requests made after it
  bool closed_ = false;
  std::uint64_t ref_counter_ = 0;
  std::uint64_t seq_ = 0;
  // Sized for an idle socket (tens of thousands per process): small maps that free their
  // memory when empty, and a list, which allocates nothing while empty (libstdc++'s
  // std::deque allocates over 500 bytes as soon as it is constructed).
  SmallMap<std::string, Pending> pending_;  // by ref, oldest first (the order unsent ones go in)
  SmallMap<std::string, Channel> channels_;  // by topic
  std::list<ChannelMessage> buffer_;
  std::map<std::uint64_t, Waiter> waiters_;  // by id
  std::uint64_t next_waiter_ = 0;
  std::map<std::string, PresenceTopic> presence_;
  std::map<std::uint64_t, std::unique_ptr<boost::asio::steady_timer>> presence_timers_;  // by waiter id
  WorkerTimer heartbeat_timer_;  // on the worker's shared timer (no Asio timer per socket)
  std::optional<std::string> heartbeat_ref_;
  Nanos heartbeat_sent_at_ = 0;
  bool closing_by_scenario_ = false;

  struct Ids {
    metrics::MetricId join, join_errors, push, push_errors, leave, leave_errors, messages, dropped, heartbeat,
        heartbeat_timeouts, rejoin, rejoin_errors;
  };
  Ids ids_{};
};

}  // namespace stampede::clients
