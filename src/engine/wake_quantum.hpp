#pragma once
// Open model: the pacer's quantum (ArrivalPacer), chosen from how idle the worker's thread
// has been. A worker with time to spare wakes every 250 µs at most, so arrivals start at
// most 0.25 ms late; a worker short of CPU wakes every 500 µs at most: half the wake-ups,
// arrivals up to 0.5 ms late (recorded as lag, like any lateness).
//
// Why: on the VMs we measure on, a thread's sleep and wake-up costs it 25-50 µs of CPU, so
// at 250 µs two workers pay for ~8,000 wake-ups a second whatever the rate. At 60,000/s on
// 2 shared cores (2 workers and a one-thread target) a 500 µs quantum took the generator
// from 14.2-15.4 to 12.7-13.1 µs of CPU per request and the target (bigger bursts reach it)
// from 9.0-9.9 to 8.6-8.7 µs (docs/design/022). A worker with CPU to spare gains nothing
// from the saving and keeps the precision.
//
// Idle is neither on a CPU nor waiting for one (ThreadIdleProbe), so a worker that waits on
// a run queue behind the target counts as short of CPU: that is when wake-ups cost most.
// Two thresholds, so that the CPU a longer quantum saves does not flip it back at once.
// Pure logic over plain times and shares: the tests drive it without a thread.
#include "common/clock.hpp"
#include "engine/arrival_pacer.hpp"

namespace stampede::engine {

class WakeQuantum {
 public:
  static constexpr Nanos kPrecise = ArrivalPacer::kDefaultQuantum;  // 250 µs (a polling worker's: 50 µs)
  static constexpr Nanos kFrugal = 500 * kMicro;
  static constexpr Nanos kSampleEvery = 100 * kMilli;
  // Idle less than this share of a sample's time: frugal. More than kPreciseAbove: precise.
  static constexpr double kFrugalBelow = 0.5;
  static constexpr double kPreciseAbove = 0.7;

  // `precise`: the quantum with time to spare (ArrivalPacer::kPollingQuantum for a polling worker).
  explicit WakeQuantum(Nanos precise = kPrecise) : precise_(precise), quantum_(precise) {}

  // Whether a sample is due at `now` (the caller then asks its idle probe).
  bool sample_due(Nanos now) const { return now - sampled_at_ >= kSampleEvery; }

  // The worker's thread was idle `idle_share` of the time since the last sample. Returns
  // the quantum from now on.
  Nanos sample(Nanos now, double idle_share) {
    sampled_at_ = now;
    if (idle_share < kFrugalBelow) quantum_ = kFrugal;
    if (idle_share > kPreciseAbove) quantum_ = precise_;
    return quantum_;
  }

  Nanos quantum() const { return quantum_; }

 private:
  Nanos precise_;
  Nanos quantum_;
  Nanos sampled_at_ = -kSampleEvery;
};

}  // namespace stampede::engine
