#pragma once
// Draws hold times from a DelaySpec. One per worker thread, seeded from --seed plus the
// worker's index, so a run with a seed is reproducible per thread.
#include <cstdint>
#include <random>

#include "common/clock.hpp"
#include "target/delay_spec.hpp"

namespace stampede::target {

class DelaySampler {
 public:
  DelaySampler(DelaySpec spec, std::uint64_t seed);

  // The next hold time, in [0, kMaxDelayMs] milliseconds.
  Nanos next();

 private:
  double uniform01();        // [0, 1)
  double standard_normal();  // N(0, 1)

  DelaySpec spec_;
  // mt19937_64's output is fixed by the standard, and the transforms below are written out
  // (not std::*_distribution, whose algorithms differ between standard libraries), so a
  // seed gives the same delays everywhere.
  std::mt19937_64 rng_;
};

}  // namespace stampede::target
