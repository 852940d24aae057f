#pragma once
// The load a scenario asks for, after CLI overrides: either a closed model (VUs over time)
// or an open model (arrivals per second over time). Pure data.
#include <vector>

#include "common/clock.hpp"

namespace stampede {

// One stage moves a level (VUs, or arrivals per second) in a straight line from where the
// previous stage ended to `target` over `duration`. A stage of duration 0 jumps.
struct Stage {
  Nanos duration = 0;
  double target = 0;
};

enum class LoadModel { Vus, Rate };

struct LoadShape {
  LoadModel model = LoadModel::Vus;
  double start = 0;            // level at t = 0 (VUs, or start_rate)
  std::vector<Stage> stages;   // `vus`+`duration` is one flat stage
  int max_vus = 0;             // rate model: cap on iterations in flight (all workers together)
  Nanos graceful_stop = 0;     // how long a VU no longer needed may finish its iteration
  // Closed model: the run ends once this many iterations have ended, all VUs together (k6's
  // `iterations`, its shared-iterations executor); the duration is then the most it may take.
  // 0: no count, the duration ends it.
  long long iterations = 0;

  Nanos total_duration() const {
    Nanos t = 0;
    for (const Stage& s : stages) t += s.duration;
    return t;
  }
};

// Splits `total` units over `parts` as evenly as possible, remainders to the lowest
// indices, so the parts always add up to the total exactly.
inline long long share_of(long long total, int parts, int index) {
  return total / parts + (index < total % parts ? 1 : 0);
}

// The totals whose share_of(total, parts, index) is `share`: [first, last]. Part `index`
// gains a unit each time the total passes a multiple of `parts` plus `index`.
struct TotalRange {
  long long first;
  long long last;
};
inline TotalRange totals_with_share(long long share, int parts, int index) {
  return {(share - 1) * parts + index + 1, share * parts + index};
}

}  // namespace stampede
