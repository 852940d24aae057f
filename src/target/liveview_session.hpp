#pragma once
// One LiveView socket (/live/websocket), server side: what Phoenix.LiveView.Socket and its
// channels do with the frames of one WebSocket (../shared/phoenix-protocol.md §5, §6; the
// model of every frame is tests/vectors/liveview-captures/). The socket's part (decoding,
// heartbeats, encoding) is PhoenixSocket's, shared with ChannelsSession. Frames in, frames out
// through a ChannelsSink, time passed in, no sockets: tested frame by frame.
//
// Topics:
//   phoenix      heartbeat -> ok reply
//   lv:<id>      a LiveView: phx_join mounts it (or refuses: stale, unauthorized, join
//                crashed, a redirect), then event, live_patch, allow_upload, progress,
//                cids_will_destroy, cids_destroyed; phx_leave stops it (phx_close, then the reply)
//   lvu:<ref>    an upload entry: phx_join with the entry's token, binary "chunk" pushes
//
// A join is checked as LiveView checks it, and refused with {"reason":"stale"} unless:
//   - the socket has a session: the upgrade carried the _demo_key cookie and a _csrf_token
//     that matches it (Phoenix loads the session only then);
//   - params._csrf_token matches that session too;
//   - "session" is a data-phx-session token this target signed, of this dialect's format,
//     less than two weeks old, whose id is the topic's suffix;
//   - "url" is an absolute URL (or "redirect", after a live navigation).
// A URL that routes to another view (or, for "redirect", another live_session) is
// {"reason":"unauthorized"}, as in Phoenix.
//
// Join refs follow the Phoenix of the dialect: 1.8.12 for 1.x (a message with another join_ref
// is dropped), 1.7.24 for 0.20 (it still reaches the channel).
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.hpp"
#include "proto/phoenix_message.hpp"
#include "target/channels_bus.hpp"
#include "target/channels_session.hpp"
#include "target/liveview.hpp"
#include "target/liveview_socket_connect.hpp"
#include "target/liveview_tokens.hpp"
#include "target/phoenix_socket.hpp"

namespace stampede::target {

class LiveViewPostsStore;

// What the sessions of one worker share.
struct LiveViewServices {
  ChannelsBus& bus;  // scratch buffers, counters, unique integers ("pids")
  TokenRandom& random;
  LiveViewPostsStore& posts;
};

class LiveViewSession {
 public:
  // Phoenix >= 1.7.24 refuses joins beyond 100 channels per socket; upload channels count.
  static constexpr std::size_t kMaxChannels = 100;

  LiveViewSession(LiveViewConnectInfo info, proto::phx::Serializer serializer, LiveViewServices services,
                  ChannelsSink& sink);
  ~LiveViewSession();
  LiveViewSession(const LiveViewSession&) = delete;
  LiveViewSession& operator=(const LiveViewSession&) = delete;

  // One WebSocket message from the client. An undecodable frame closes the socket with 1011.
  void handle_frame(std::string_view data, bool binary, Nanos now);
  // Stops the upload channels whose chunk_timeout passed.
  void handle_time(Nanos now);
  std::optional<Nanos> next_due() const;
  // The socket is gone: every view stops. Idempotent.
  void handle_disconnect();

  std::size_t channel_count() const { return views_.size() + uploads_.size(); }

 private:
  static constexpr std::size_t kIdLength = 20;  // "phx-" and 16 characters

  struct ViewChannel {
    std::array<char, kIdLength> id{};  // the topic is "lv:" + id
    std::optional<std::string> join_ref;
    std::uint32_t pid = 0;  // named by this view's upload tokens
    std::unique_ptr<LiveView> view;
  };
  struct UploadChannel {
    std::string topic;  // "lvu:" + whatever the client chose
    std::optional<std::string> join_ref;
    std::uint32_t view_pid = 0;
    std::string entry_ref;
    Nanos chunk_deadline = 0;  // 0: no chunk yet, or the entry is complete
  };
  // "lv:" + id, without allocating.
  struct Topic {
    std::array<char, 3 + kIdLength> text{};
    std::string_view view() const { return {text.data(), text.size()}; }
  };
  static Topic topic_of(const ViewChannel& channel);

  void handle_message(proto::phx::Message& message, Nanos now);
  void leave(const proto::phx::Message& message);
  bool accepts_join_ref(const std::optional<std::string>& channel_ref,
                        const std::optional<std::string>& message_ref) const;

  // lv:* (liveview_session_join.cpp)
  void join_view(proto::phx::Message& message);
  // The join_ref of a channel a duplicate join replaced (itself possibly null), if any.
  using ReplacedJoin = std::optional<std::optional<std::string>>;
  // The first steps of every join (§3.6): a channel already on the topic stops (`replaced`
  // gets its join_ref, for the phx_close that follows the reply), and a socket at its channel
  // limit refuses the join. False when it was refused.
  bool make_room_for_join(const proto::phx::Message& message, const std::optional<std::string>& join_ref,
                          ReplacedJoin& replaced);
  void refuse_join(const proto::phx::Message& message, const std::optional<std::string>& join_ref,
                   std::string_view response_json, const ReplacedJoin& replaced);
  // lv:* (liveview_session_events.cpp)
  void handle_view_message(std::size_t index, proto::phx::Message& message);
  void handle_event(std::size_t index, const proto::phx::Message& message, const boost::json::object& payload);
  void handle_live_patch(std::size_t index, const proto::phx::Message& message, const boost::json::object& payload);
  void handle_allow_upload(std::size_t index, const proto::phx::Message& message, const boost::json::object& payload);
  void handle_progress(std::size_t index, const proto::phx::Message& message, const boost::json::object& payload);
  void apply(std::size_t index, const proto::phx::Message& message, ViewOutcome& outcome);
  // The diff of `changed` (with the reply map, if any) as JSON; empty when nothing changed.
  std::string render_diff(const LiveView& view, Changed changed, std::string_view reply_map);
  void crash_view(std::size_t index);
  void remove_view(std::size_t index);
  ViewChannel* find_view(std::string_view topic);
  ViewChannel* find_view_by_pid(std::uint32_t pid);

  // lvu:* (liveview_session_uploads.cpp)
  void join_upload(proto::phx::Message& message);
  void handle_upload_message(std::size_t index, const proto::phx::Message& message, Nanos now);
  // Closes (phx_close) the upload channels of view `pid` whose entries are gone, or all of them.
  void close_uploads_of(std::uint32_t pid, bool only_gone_entries);
  void remove_upload(std::size_t index);
  UploadChannel* find_upload(std::string_view topic);

  LiveViewConnectInfo info_;
  LiveViewServices services_;
  PhoenixSocket socket_;
  std::vector<ViewChannel> views_;
  std::vector<UploadChannel> uploads_;
  bool disconnected_ = false;
};

}  // namespace stampede::target
