#pragma once
// Counters of the WebSocket side of the target (GET /__channels): channels and LiveView. WebSocket traffic is not
// part of the HTTP truth; these say what the channel server saw, for tests and benches.
//
// Each worker owns one ChannelStats and is its only writer; whoever answers /__channels
// (another worker's thread) reads them all. A single writer needs no read-modify-write: a
// relaxed load and store cost what a plain increment costs, and the reader sees a recent value.
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace stampede::target {

class StatCounter {
 public:
  void add(std::uint64_t n = 1) { value_.store(value_.load(std::memory_order_relaxed) + n, std::memory_order_relaxed); }
  std::uint64_t get() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<std::uint64_t> value_{0};
};

struct alignas(64) ChannelStats {
  StatCounter sockets_opened;         // WebSockets accepted (channels and echo)
  StatCounter sockets_closed;
  StatCounter channel_sockets_opened;  // of them, on /socket/websocket
  StatCounter liveview_sockets_opened;  // of them, on /live/websocket (and its /lv020, /lv1x twins)
  StatCounter channel_sockets_closed;   // sockets_closed, of channel sockets
  StatCounter liveview_sockets_closed;  // and of LiveView sockets
  StatCounter frames_received;        // Phoenix messages decoded (heartbeats included)
  StatCounter heartbeats;
  StatCounter joins;                  // accepted joins
  StatCounter joins_refused;          // error replies to phx_join (unauthorized, unmatched, limit)
  StatCounter leaves;
  StatCounter pushes_received;        // events to a joined channel
  StatCounter replies_sent;           // phx_reply frames
  StatCounter pushes_sent;            // channel pushes: presence_state, subscription:data
  StatCounter broadcasts_published;   // new_msg, shout, presence_diff (once each)
  StatCounter broadcasts_delivered;   // frames those turned into, one per subscribed socket
  StatCounter channel_crashes;        // phx_error sent
  StatCounter socket_errors;          // sockets closed with 1011 for an undecodable frame
  StatCounter idle_timeouts;
  StatCounter echo_messages;          // messages echoed on /ws
  StatCounter upload_chunks;          // LiveView upload chunks taken
};

// {"sockets_open":N,"sockets_opened":N,...}: the sum over every worker.
std::string channel_stats_to_json(const std::vector<const ChannelStats*>& workers);

}  // namespace stampede::target
