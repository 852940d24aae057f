#pragma once
// What the target's GET /metrics reports about one event loop (docs/reference/metrics.md,
// "The built-in target's /metrics"). Like ChannelStats: each worker owns one and is its only
// writer (a relaxed load and store, what a plain increment costs); whoever renders /metrics
// reads them all from its own thread.
#include <array>
#include <cstddef>
#include <cstdint>

#include "common/clock.hpp"
#include "target/channel_stats.hpp"

namespace stampede::target {

// How late an event loop ran a timer that should have fired at a given time: the time its
// other work kept it from anything else. Prometheus-style cumulative buckets are made when
// rendering; these are per bucket.
class LoopLagHistogram {
 public:
  // Upper bounds in seconds; a last bucket above them all is +Inf.
  static constexpr std::array<double, 13> kBounds = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01,
                                                     0.025,  0.05,    0.1,    0.25,  0.5,    1.0};

  void record(Nanos lag);
  // Observations in bucket i (i == kBounds.size(): above the last bound).
  std::uint64_t bucket(std::size_t i) const { return buckets_[i].get(); }
  std::uint64_t count() const { return count_.get(); }
  Nanos sum() const { return static_cast<Nanos>(sum_ns_.get()); }

  // The bucket of `lag`: the first bound it does not exceed.
  static std::size_t bucket_of(Nanos lag);

 private:
  std::array<StatCounter, kBounds.size() + 1> buckets_;
  StatCounter count_;
  StatCounter sum_ns_;
};

// The loop-lag probe: a timer every kLagProbePeriod, each firing's lateness recorded. Its next
// due time: a period after the last one, or a period from now when the loop was so late that
// that time has passed too (the missed firings are not made up: one lateness each).
inline constexpr Nanos kLagProbePeriod = 100 * kMilli;
Nanos next_probe_due(Nanos due, Nanos now, Nanos period = kLagProbePeriod);

struct alignas(64) ServerStats {
  StatCounter connections_accepted;  // TCP connections accepted
  StatCounter connections_ended;     // of them, closed or handed over to a WebSocket
  StatCounter http_requests;         // requests parsed, but GET /metrics and the /__ control endpoints
  LoopLagHistogram loop_lag;
};

}  // namespace stampede::target
