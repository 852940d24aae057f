#pragma once
// The server-metrics sampler's logic, on whatever clock and transport it is given: when to
// scrape each endpoint, when a scrape has taken too long, what a reply becomes (parsed,
// turned into series, recorded), and when each second is handed over. Single-threaded: the
// sampler (server_metrics_sampler.hpp) calls it from its own loop; the tests call it on a
// ManualClock with a scripted transport.
//
// Time, from the t0 the run gives (docs/design/038):
//   - Second s is [t0 + s, t0 + s + 1 s); it is delivered as soon as it ends, at
//     t0 + s + 1 s, whatever the endpoints are doing: a scrape in flight never holds it back.
//   - Scrape round k (every endpoint at once) is due at t0 + (k + 1) * every - timeout, so that
//     it ends, or times out, by the end of its interval: its figures land in the second they
//     describe instead of the next one. With every = 1 s and the default 500 ms timeout:
//     t0 + 0.5 s, 1.5 s, ...
//   - A first round at start(), when there is room for it before round 0, so that round 0
//     already gives rates (a counter's rate needs two scrapes).
//   - A scrape still in flight at its deadline (start + timeout) is abandoned (its connection
//     closed) and counts as "timeout". The timeout is shorter than `every`, so the deadline
//     always comes before the next round: there is never more than one scrape in flight per
//     endpoint, and no "still running" case to count (design 038).
//   - Rates are taken over the time between the midpoints of two successful scrapes (between
//     the request and the response the server read its counters; the midpoint is the best
//     guess of when), so a scrape that was slow does not skew the rate after it.
//   - Woken late (a stalled machine), it delivers every second that ended, in order, and
//     skips the scrape rounds it missed but the latest.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "clients/scrape_transport.hpp"
#include "clients/server_metrics_options.hpp"
#include "clients/server_metrics_recorder.hpp"
#include "clients/server_series.hpp"
#include "common/clock.hpp"
#include "metrics/metric_sink.hpp"

namespace stampede::clients {

class ServerMetricsPoller {
 public:
  using Deliver = std::function<void(metrics::Snapshot)>;

  // `options` must be valid (validate_server_metrics). `registry` is the run's; the poller
  // records into a MetricSink of its own over it. `deliver` gets each finished second.
  ServerMetricsPoller(const ServerMetricsOptions& options, metrics::Registry& registry, const Clock& clock,
                      ScrapeTransport& transport, Deliver deliver);
  ~ServerMetricsPoller();
  ServerMetricsPoller(const ServerMetricsPoller&) = delete;
  ServerMetricsPoller& operator=(const ServerMetricsPoller&) = delete;

  // Starts the schedule from `t0` (on `clock`), with a first round at once when there is room
  // for it. Returns when on_wake() is next due.
  Nanos start(Nanos t0);
  // Does what is due at clock.now(): deadlines of scrapes in flight, then seconds that ended,
  // then a scrape round. Returns when it is next due (an absolute time on `clock`).
  Nanos on_wake();
  // Delivers every second that ended and then the current one, partial (at least second 0),
  // and abandons the scrapes in flight (not counted as errors: the run ended, not the
  // endpoint). Nothing is done or delivered after it.
  void stop();

  // "server." + every family name any scrape showed, selected or not, and every metric
  // recorded (with labels): what a threshold on a server series could have named. Sorted.
  std::vector<std::string> exposed_names() const;
  // The seconds delivered so far.
  std::int64_t seconds_delivered() const { return next_second_; }

 private:
  struct Endpoint;

  void start_scrape(std::size_t endpoint, Nanos now);
  void on_reply(std::size_t endpoint, std::uint64_t generation, ScrapeReply&& reply);
  void fail(std::size_t endpoint, std::string_view reason);
  void deliver_due(Nanos now);
  Nanos round_due(std::int64_t round) const;
  Nanos next_wake() const;

  const Nanos every_;
  const Nanos timeout_;
  const std::size_t max_body_bytes_;
  const Clock& clock_;
  ScrapeTransport& transport_;
  Deliver deliver_;
  metrics::MetricSink sink_;
  std::vector<std::unique_ptr<Endpoint>> endpoints_;
  std::unique_ptr<ServerMetricsRecorder> recorder_;
  Nanos t0_ = 0;
  std::int64_t next_second_ = 0;  // the second delivered next
  std::int64_t next_round_ = 0;   // the scrape round due next
  bool started_ = false;
  bool stopped_ = false;
};

// The instance label of each URL: "host:port" ("[::1]:9568"), or host:port and the path
// when two URLs share a host and port. Empty strings for a single URL (no label).
std::vector<std::string> instance_labels(const std::vector<std::string>& urls);

// What server.scrape.errors counts for a reply that is not a usable exposition: "timeout",
// "refused", "status 500", "too large: ...", "parse: line 12: ...", ...; empty when `reply`
// is a 200. (The parse itself is not done here.)
std::string reply_error(const ScrapeReply& reply, std::size_t max_body_bytes);

}  // namespace stampede::clients
