#pragma once
// Open model: the pacer's quantum (ArrivalPacer), chosen from how far apart the worker's
// arrivals are and how idle its thread has been. Three levels:
//   - fine (100 µs) for arrivals at least 100 µs apart (up to 10,000/s per worker): each
//     wakes the loop on its own, on time, nothing coalesced; at most 10,000 wake-ups a
//     second, whatever else runs. At 10,000/s the precise quantum left arrivals ~0.15 ms late
//     at the median, most of the 0.25 ms that bench/accuracy allows (issue 36), for ~0.15 of
//     a core less on this VM (docs/design/050);
//   - precise (250 µs) for denser arrivals: each starts at most 0.25 ms late;
//   - frugal (500 µs) for denser arrivals while the thread is short of CPU: half the precise
//     wake-ups, arrivals up to 0.5 ms late (recorded as lag, like any lateness).
//
// Why frugal: on the VMs we measure on, a thread's sleep and wake-up costs it 25-50 µs of
// CPU, so at 250 µs two workers pay for ~8,000 wake-ups a second whatever the rate. At
// 60,000/s on 2 shared cores (2 workers and a one-thread target) a 500 µs quantum took the
// generator from 14.2-15.4 to 12.7-13.1 µs of CPU per request and the target (bigger bursts
// reach it) from 9.0-9.9 to 8.6-8.7 µs (docs/design/022). A worker with CPU to spare gains
// nothing from the saving and keeps the precision. Sparse arrivals are never frugal: there
// the saving is a few thousand wake-ups a second, and the price a quarter of a millisecond
// on every arrival.
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
  static constexpr Nanos kFine = 100 * kMicro;
  static constexpr Nanos kPrecise = ArrivalPacer::kDefaultQuantum;  // 250 µs
  static constexpr Nanos kFrugal = 500 * kMicro;
  static constexpr Nanos kSampleEvery = 100 * kMilli;
  // For dense arrivals: idle less than this share of a sample's time, frugal; more than
  // kPreciseAbove, precise.
  static constexpr double kFrugalBelow = 0.5;
  static constexpr double kPreciseAbove = 0.7;

  // Whether a sample is due at `now` (the caller then asks its idle probe).
  bool sample_due(Nanos now) const { return now - sampled_at_ >= kSampleEvery; }

  // The worker's thread was idle `idle_share` of the time since the last sample, and its
  // next arrivals are `spacing` apart (ArrivalPacer::spacing). Returns the quantum from now on.
  Nanos sample(Nanos now, double idle_share, Nanos spacing) {
    sampled_at_ = now;
    if (spacing >= kFine) {
      quantum_ = kFine;
    } else if (idle_share < kFrugalBelow) {
      quantum_ = kFrugal;
    } else if (idle_share > kPreciseAbove || quantum_ == kFine) {
      quantum_ = kPrecise;
    }
    return quantum_;
  }

  Nanos quantum() const { return quantum_; }

 private:
  Nanos quantum_ = kPrecise;
  Nanos sampled_at_ = -kSampleEvery;
};

}  // namespace stampede::engine
