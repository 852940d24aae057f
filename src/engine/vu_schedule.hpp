#pragma once
// Closed model: how many VUs should be running at time t (ns since the run started).
// Within a stage the count moves in a straight line; the count is the line truncated toward
// the stage's start level, so it reaches each stage's target exactly when the stage ends.
#include <optional>

#include "common/load_shape.hpp"

namespace stampede::engine {

class VuSchedule {
 public:
  explicit VuSchedule(const LoadShape& shape) : shape_(shape) {}

  long long vus_at(Nanos t) const;
  // The first time after `t` at which vus_at changes, or nullopt when it never changes again
  // before the end of the last stage.
  std::optional<Nanos> next_change_after(Nanos t) const {
    const long long now = vus_at(t);
    return next_outside_after(t, now, now);
  }
  // The first time after `t` at which vus_at leaves [lo, hi], which holds vus_at(t), or
  // nullopt when it never does. A worker with share_of() of the VUs asks when its own share
  // changes (totals_with_share): with 56 ranks ramping 1,000 VUs a second, waking at every change
  // of the total woke each rank 1,000 times a second to add 18 VUs.
  std::optional<Nanos> next_outside_after(Nanos t, long long lo, long long hi) const;
  Nanos end() const { return shape_.total_duration(); }

 private:
  LoadShape shape_;
};

}  // namespace stampede::engine
