#pragma once
// `--find-limit`: the load as a staircase. Step i ramps (in a straight line, for `ramp`)
// from the previous level to start + i * step and holds it for `hold`; the last step is
// `up_to` even when it is not a whole number of steps away. Thresholds are judged over the
// whole seconds of each step's hold only, so the ramp and the step before never count.
//
// Pure data and arithmetic: the caller runs the LoadShape, and StepJudge (step_judge.hpp)
// says when a step's hold is complete.
#include <cstdint>
#include <string>
#include <vector>

#include "common/load_shape.hpp"

namespace stampede::engine {

enum class LimitBy { Vus, Rate };

struct FindLimitSettings {
  LimitBy by = LimitBy::Vus;
  double start = 0;  // 0: the first step is `step`
  double step = 0;
  double up_to = 0;
  Nanos ramp = 5 * kSecond;
  Nanos hold = 30 * kSecond;
  bool refine = false;
  double resolution = 0;  // --refine stops when the bracket is this narrow; 0: step / 8
};

// One step: its level and the whole seconds of the run (second s covers [s, s + 1) s after
// the start) that its hold covers.
struct StepWindow {
  double level = 0;
  Nanos ramp_start = 0;
  Nanos hold_start = 0;
  Nanos hold_end = 0;
  std::int64_t first_second = 0;
  std::int64_t last_second = -1;
};

// Throws std::invalid_argument with a sentence naming the setting when the settings make no
// staircase (no step, up_to below start, a hold that covers no whole second...).
void validate(const FindLimitSettings& settings);

// The steps of the staircase, from the first level to up_to.
std::vector<StepWindow> plan_steps(const FindLimitSettings& settings);

// The whole staircase as a load: model from `settings.by`; max_vus and graceful_stop from
// `base` (the scenario's own load, after CLI overrides).
LoadShape staircase_shape(const FindLimitSettings& settings, const std::vector<StepWindow>& steps,
                          const LoadShape& base);

// One level on its own (a --refine probe): ramp from zero to `level`, then hold it.
StepWindow single_step(const FindLimitSettings& settings, double level);
LoadShape single_step_shape(const FindLimitSettings& settings, double level, const LoadShape& base);

// The whole seconds of [from, to): ceil(from) .. floor(to) - 1 (empty when last < first).
void whole_seconds(Nanos from, Nanos to, std::int64_t& first, std::int64_t& last);

// The narrowest bracket --refine settles for.
double refine_resolution(const FindLimitSettings& settings);

}  // namespace stampede::engine
