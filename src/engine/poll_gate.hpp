#pragma once
// `--cpu-policy adaptive` (the default on two cores and more): whether a worker sleeps in
// its event loop, as `normal` does, or polls it, as `poll` does (IdlePoll), decided from how
// much of its core the worker's own work takes (docs/design/054).
//
// Why both. A sleeping worker pays for every wake-up, in CPU and in lateness; a polling one
// pays nothing per wake-up but holds its core. Measured on this 2-core VM with the target on
// it (bench/max-rate): on quiet cores a worker doing 75-85% of a core of work lost more to
// its sleeps than polling cost the target (no flags 80,000/s, `--cpu-policy poll` 90,000/s,
// session 38); on busy cores polling cost the target more (session 37: 55,000/s against
// 40,000/s). A worker that already works most of its core leaves little for anyone to gain
// from its sleeps; one working half of it (10,000/s with a wake-up per arrival, design 050)
// would hand a local server half a core by polling. So: poll while the work is most of the
// core, sleep otherwise.
//
// Work is the thread's CPU time less its empty polls, and not its time waiting for a CPU:
// a worker pushed off its core by a busy neighbour is not one that gains from holding it.
// Two thresholds and two streaks, so that neither a busy moment (a run's opening second,
// where every VU connects) nor the CPU a poll saves flips the choice back and forth.
//
// Pure logic over plain times: the tests drive it on a simulated clock.
#include "common/clock.hpp"

namespace stampede::engine {

class PollGate {
 public:
  static constexpr Nanos kSampleEvery = 100 * kMilli;
  // Poll once samples for kPollAfter in a row each had work of at least kPollFrom of their
  // time; sleep again once samples for kSleepAfter in a row each had less than kSleepBelow.
  // At 60,000/s a sleeping worker here works 0.52-0.59 of a core, at 80,000/s 0.74-0.76, at
  // 10,000/s (bench/accuracy) under 0.45.
  static constexpr double kPollFrom = 0.65;
  static constexpr double kSleepBelow = 0.45;
  static constexpr Nanos kPollAfter = 300 * kMilli;
  static constexpr Nanos kSleepAfter = kSecond;

  bool polling() const { return polling_; }

  // Whether a sample is due at `now` (the caller then reads its CPU time).
  bool sample_due(Nanos now) const { return now - sampled_at_ >= kSampleEvery; }

  // At `now` the worker thread's CPU time is `cpu` and its time in empty polls `idle_polled`
  // (both running totals, ns). Returns whether it polls from now on. The first call only
  // starts the count.
  bool sample(Nanos now, Nanos cpu, Nanos idle_polled) {
    const Nanos wall = now - sampled_at_;
    const Nanos work = (cpu - cpu_) - (idle_polled - idle_polled_);
    const bool first = started_ == false;
    started_ = true;
    sampled_at_ = now;
    cpu_ = cpu;
    idle_polled_ = idle_polled;
    if (first || wall <= 0) return polling_;
    const double share = static_cast<double>(work) / static_cast<double>(wall);
    // The streak toward the other choice: kept while each sample points that way.
    const bool toward = polling_ ? share < kSleepBelow : share >= kPollFrom;
    streak_ = toward ? streak_ + wall : 0;
    if (polling_) polled_for_ += wall;
    if (streak_ >= (polling_ ? kSleepAfter : kPollAfter)) {
      polling_ = !polling_;
      streak_ = 0;
      ++switches_;
    }
    return polling_;
  }

  // How many times the choice changed (for the tests), and how long the worker polled in all
  // to its last sample (for the summary's generator line).
  int switches() const { return switches_; }
  Nanos polled_for() const { return polled_for_; }

 private:
  bool polling_ = false;
  bool started_ = false;
  Nanos sampled_at_ = 0;
  Nanos cpu_ = 0;
  Nanos idle_polled_ = 0;
  Nanos streak_ = 0;
  int switches_ = 0;
  Nanos polled_for_ = 0;
};

}  // namespace stampede::engine
