#pragma once
// Open model: how fast a worker's VU pool may grow to start arrivals that are already late.
//
// An arrival that is due while no VU is free gets a new one (up to max_vus): that is what
// keeps the load on schedule when the server slows down. But an arrival that is already
// late (the generator fell behind: a stall of the machine, a scheduler slice given to the
// target on the same cores) cannot be made on time by a new VU, and a new VU is the dearest
// thing the worker does (a Lua thread, a connection: connect's port search, the server's
// accept). After a stall, making one for every late arrival grew the pool by thousands,
// and with them the run never caught up again: at 110,000/s a 0.2 s stall of both cores
// left the generator at ~65,000/s, seconds behind, for the rest of the run (bench/RESULTS.md,
// session 7). So late arrivals take the VUs that come free, and the pool grows for them
// from a token bucket: `burst` new VUs, refilled one per `interval`. While the backlog
// shrinks (the VUs running are catching up by themselves), or the worker is hardly ever idle
// (short of CPU, not of VUs), the bucket is held empty; while neither, it refills, so a pool
// too small for the rate (a fast ramp while behind, a server that slowed down) still grows.
// Arrivals on time are never held to it. The run's first second builds the pool from
// nothing, and its first VUs' connects make arrivals late before any VU has come free: it
// may make `start_allowance` more new VUs, whatever the lag does then.
//
// Pure logic over plain times (ns since the run started): the tests drive it on a
// simulated clock.
#include <algorithm>

#include "common/clock.hpp"

namespace stampede::engine {

class CatchUpBudget {
 public:
  // 64 new VUs at once, then one per 4 ms per worker. Measured at 110,000/s on 2 workers
  // with a 0.2 s stall of both cores (bench/RESULTS.md, session 7): one per ms let the pool
  // grow by ~400 during the stall and the run recovered 2 times in 3; one per 4 ms after 16
  // recovered 3 in 3 but the start of a run, whose pool grows mostly from this budget once
  // connects make it late, lagged 70-110 ms (p99 of its first second); 64 then one per 4 ms
  // recovered 6 in 6, with a first second like before in 5 of them (p99 2.5-4.2 ms).
  static constexpr Nanos kDefaultInterval = 4 * kMilli;
  static constexpr int kDefaultBurst = 64;
  // With the burst alone, 10 of 11 runs at 110,000/s lagged 16-126 ms at p99 in their first
  // second; with this allowance 16 of 18 stayed at 3.3-13 ms. A burst of 512 throughout did
  // as well for the start, but one run of 3 then collapsed after a hiccup at its fifth
  // second (docs/design/020, session 8).
  static constexpr int kDefaultStartAllowance = 448;
  static constexpr Nanos kStartWindow = kSecond;
  // Below this share of idle time since the last sample the worker is short of CPU (its
  // loop hardly ever waits for replies): a quarter, where a worker at 100,000/s on 2 shared
  // cores is idle ~15% on average and one waiting for replies far more (docs/design/020).
  static constexpr double kMinIdleShare = 0.25;

  explicit CatchUpBudget(Nanos interval = kDefaultInterval, int burst = kDefaultBurst,
                         int start_allowance = kDefaultStartAllowance)
      : interval_(interval), burst_(burst), start_allowance_(start_allowance) {}

  // One new VU for a late arrival at `now`: true if the budget allows it (and spends it).
  bool try_take(Nanos now) {
    if (now < kStartWindow && start_allowance_ > 0) {
      --start_allowance_;
      return true;
    }
    if (now < held_until_) return false;
    if (next_ < now) next_ = now;  // unused budget accumulates up to `burst`, no more
    if (next_ - now > (burst_ - 1) * interval_) return false;
    next_ += interval_;
    return true;
  }

  // Whether vu_came_free at `now` would take a sample (the caller may then measure
  // `idle_share`, which costs a syscall).
  bool samples_at(Nanos now) const { return now - sampled_at_ >= interval_; }

  // A VU came free for an arrival that had waited for one and is `lag` late at `now`. Sampled
  // once per `interval` (in practice every 10-50 ms: only while arrivals wait). While the lag
  // shrinks, the VUs running are catching up with the backlog by themselves: the budget is
  // emptied and held empty until a sample says otherwise (or for a full refill's time
  // without one). So it is while the worker's loop was idle for less than kMinIdleShare of
  // the time since the last sample (`idle_share`, ThreadIdleProbe): the worker is short of
  // CPU, and new VUs would only add connections for it to serve. Otherwise (a pool too small
  // for the rate: the loop waits for replies while arrivals wait for VUs) it refills at its
  // pace.
  void vu_came_free(Nanos now, Nanos lag, double idle_share = 1.0) {
    if (!samples_at(now)) return;
    if (lag < sampled_lag_ || idle_share < kMinIdleShare) {
      next_ = std::max(next_, now + burst_ * interval_);
      held_until_ = now + burst_ * interval_;
    } else {
      held_until_ = now;
    }
    sampled_at_ = now;
    sampled_lag_ = lag;
  }

  // When try_take will next succeed (at or before `now` if it would now).
  Nanos next_available() const { return std::max(next_ - (burst_ - 1) * interval_, held_until_); }

 private:
  Nanos interval_;
  int burst_;
  int start_allowance_;  // left for the run's first second
  // The time by which everything taken so far has been paid back, one `interval` each.
  Nanos next_ = 0;
  Nanos held_until_ = 0;  // no refill before this (the last sample said the pool was not short)
  Nanos sampled_at_ = -kSecond;  // the last vu_came_free sample, and its lag
  Nanos sampled_lag_ = 0;
};

}  // namespace stampede::engine
