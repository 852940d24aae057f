#pragma once
// One event loop of the target, run by one thread: its acceptor, its connections, its delay
// sampler and its record of held times. Nothing here is shared with other workers, so the
// hot path takes no lock; the truth collector reaches a worker only by posting to its loop.
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "common/clock.hpp"
#include "target/asio_types.hpp"
#include "target/capacity_limit.hpp"
#include "target/delay_sampler.hpp"
#include "target/held_responder.hpp"
#include "target/hold_queue.hpp"
#include "target/http_date.hpp"
#include "target/liveview_dialect.hpp"
#include "target/route_table.hpp"
#include "target/server_stats.hpp"

namespace stampede::target {

class TruthCollector;
class Connection;
struct PendingResponse;
class ChannelsHub;
class ChannelsBus;
class LiveViewPostsStore;
class LongPollHub;
class LongPollSessions;
class TargetMetrics;
}  // namespace stampede::target

namespace boost::asio::ssl {
class context;
}

namespace stampede::target {

// What all workers read and none change after start.
struct WorkerShared {
  const RouteTable* routes = nullptr;
  TruthCollector* truth = nullptr;
  ChannelsHub* channels = nullptr;
  DelaySpec delay;
  std::optional<CapacitySpec> capacity;  // --capacity: slower past this many requests in flight
  unsigned worker_count = 1;
  Nanos ws_idle_timeout = 60 * kSecond;  // a WebSocket that sends nothing for this long is closed
  bool ws_compress = false;              // accept permessage-deflate when offered
  Nanos longpoll_session_lifetime = 0;   // a LongPoll session ends this long after it opened (0: never)
  LiveViewDialect liveview_dialect = LiveViewDialect::V1;  // of the pages under "/" and /live/websocket
  LiveViewPostsStore* liveview_posts = nullptr;            // the LiveView demo's posts
  TargetMetrics* metrics = nullptr;                        // GET /metrics
  LongPollHub* longpoll = nullptr;                         // routes LongPoll requests to their session's worker
  boost::asio::ssl::context* tls = nullptr;  // the TLS listener's (--tls-listen): HTTP/2 only
};

class Worker {
 public:
  Worker(const WorkerShared& shared, unsigned index, std::uint64_t seed);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Binds and listens; throws boost::system::system_error. With `share_port` the port may be
  // bound by the other workers too (SO_REUSEPORT: the kernel spreads connections).
  void listen(const asio::ip::tcp::endpoint& endpoint, bool share_port);
  std::uint16_t port() const;
  // The same for the TLS listener (HTTP/2 over TLS, WorkerShared::tls).
  void listen_tls(const asio::ip::tcp::endpoint& endpoint, bool share_port);
  std::uint16_t tls_port() const;

  // Runs the loop on the calling thread until stop().
  void run();
  // Safe from any thread: the loop returns; connections are closed when the worker is destroyed.
  void stop();

  asio::io_context& io() { return io_; }
  const WorkerShared& shared() const { return shared_; }

  // The rest is for the worker's own thread (connections, or jobs posted to the loop).
  std::vector<Nanos>& held_times() { return held_; }
  DelaySampler& sampler() { return sampler_; }
  RouteState& route_state() { return route_state_; }
  InFlightLimit& in_flight() { return in_flight_; }
  std::string_view date_line() { return date_.header_line(); }
  // Scratch space for reads, shared by every connection of this worker, so an idle
  // connection owns no read buffer.
  std::string& read_buffer() { return read_buffer_; }
  // Scratch space for permessage-deflate: one for what is inflated, one for what is deflated.
  std::string& inflate_buffer() { return inflate_buffer_; }
  std::string& deflate_buffer() { return deflate_buffer_; }
  // Output buffers lent to WebSocket connections while they have something to write, and
  // taken back when it is written: an idle socket owns none, a busy one allocates none.
  std::string take_output_buffer();
  void return_output_buffer(std::string& buffer);
  ChannelsBus& channels();
  // What GET /metrics reports of this loop; the channel counters, or null without channels.
  ServerStats& server_stats() { return server_stats_; }
  const ChannelStats* channel_stats() const;
  // Starts the event-loop lag probe (once). On this worker's thread: post it.
  void start_lag_probe();

  // Holds `slot` of `connection` until `due`, then calls its end_hold (which marks it ready
  // and writes it, unless the connection closed meanwhile). The hold keeps the connection alive.
  void hold(Nanos due, std::shared_ptr<HeldResponder> connection, PendingResponse& slot);
  // A connection read requests: ends the holds that are due (see HoldQueue).
  void requests_read();

  unsigned index() const { return index_; }
  // This worker's LongPoll sessions (made on first use) and their timer: call longpoll_touched()
  // after each call into them (worker_longpoll.cpp).
  LongPollSessions& longpoll();
  void longpoll_touched();

 private:
  struct HeldResponse {
    std::shared_ptr<HeldResponder> connection;
    PendingResponse* slot;
  };

  void accept_next();
  void accept_next_tls();
  // An accept failed: stops when the acceptor closed, else calls `again` (now, or after a
  // back-off when the process is out of descriptors or memory).
  void accept_failed(const boost::system::error_code& ec, void (Worker::*again)());
  std::size_t end_due_holds(Nanos now);
  void arm_hold_timer();
  void arm_lag_timer();
  void on_longpoll_timer();

  const WorkerShared& shared_;
  unsigned index_;
  std::vector<Nanos> held_;
  DelaySampler sampler_;
  RouteState route_state_;
  InFlightLimit in_flight_;
  HttpDateCache date_;
  std::string read_buffer_;
  std::string inflate_buffer_;
  std::string deflate_buffer_;
  std::vector<std::string> spare_output_;
  ChannelsBus* channels_ = nullptr;
  ServerStats server_stats_;  // before io_: connections count their end into it as they go
  // Declared after the state above so it is destroyed first: destroying it destroys the
  // pending handlers, which own the connections, which use that state until they go.
  asio::io_context io_;
  Acceptor acceptor_;
  Acceptor tls_acceptor_;
  Timer accept_backoff_;
  Timer tls_accept_backoff_;
  // After io_, so the held connections go while their loop still exists.
  HoldQueue<HeldResponse> holds_;
  Timer hold_timer_;
  Nanos hold_timer_at_ = kNotArmed;
  Timer lag_timer_;
  Nanos lag_due_ = 0;  // when the lag probe's timer should fire; 0 before start_lag_probe()
  static constexpr Nanos kNotArmed = std::numeric_limits<Nanos>::max();
  // After io_: the sessions' held polls and their timer go while the loop exists.
  std::unique_ptr<LongPollSessions> longpoll_;
  Timer longpoll_timer_;
  Nanos longpoll_timer_at_ = kNotArmed;
  bool longpoll_flush_posted_ = false;
};

}  // namespace stampede::target
