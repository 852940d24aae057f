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
// shrinks (the VUs running are catching up by themselves) the bucket stays empty; while it
// does not, the bucket refills, so a pool too small for the rate (the start of a run, a
// fast ramp while behind, a server that slowed down) still grows. Arrivals on time are never
// held to it.
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

  explicit CatchUpBudget(Nanos interval = kDefaultInterval, int burst = kDefaultBurst)
      : interval_(interval), burst_(burst) {}

  // One new VU for a late arrival at `now`: true if the budget allows it (and spends it).
  bool try_take(Nanos now) {
    if (next_ < now) next_ = now;  // unused budget accumulates up to `burst`, no more
    if (next_ - now > (burst_ - 1) * interval_) return false;
    next_ += interval_;
    return true;
  }

  // A VU came free for an arrival that had waited for one and is `lag` late at `now`. Sampled
  // once per `interval`: while the lag shrinks, the VUs running are catching up with the
  // backlog by themselves, and the budget stays empty; while it does not (a pool too small
  // for the rate), the budget refills at its pace.
  void vu_came_free(Nanos now, Nanos lag) {
    if (now - sampled_at_ < interval_) return;
    if (lag < sampled_lag_) next_ = std::max(next_, now + burst_ * interval_);
    sampled_at_ = now;
    sampled_lag_ = lag;
  }

  // When try_take will next succeed (at or before `now` if it would now).
  Nanos next_available() const { return next_ - (burst_ - 1) * interval_; }

 private:
  Nanos interval_;
  int burst_;
  // The time by which everything taken so far has been paid back, one `interval` each.
  Nanos next_ = 0;
  Nanos sampled_at_ = -kSecond;  // the last vu_came_free sample, and its lag
  Nanos sampled_lag_ = 0;
};

}  // namespace stampede::engine
