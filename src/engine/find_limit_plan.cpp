#include "engine/find_limit_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace stampede::engine {

namespace {
// A staircase of a million steps is a typo, and its plan would not fit in memory usefully.
constexpr double kMaxSteps = 10'000;
}  // namespace

void whole_seconds(Nanos from, Nanos to, std::int64_t& first, std::int64_t& last) {
  first = (from + kSecond - 1) / kSecond;
  last = to / kSecond - 1;
}

void validate(const FindLimitSettings& s) {
  const char* unit = s.by == LimitBy::Rate ? "iterations per second" : "VUs";
  if (!(s.step > 0)) throw std::invalid_argument(fmt::format("--step must be above zero ({}), got {}", unit, s.step));
  if (!(s.start >= 0)) throw std::invalid_argument(fmt::format("--start cannot be negative, got {}", s.start));
  const double first = s.start > 0 ? s.start : s.step;
  if (!(s.up_to >= first))
    throw std::invalid_argument(fmt::format("--up-to ({}) must be at least the first step ({} {})", s.up_to, first, unit));
  if ((s.up_to - first) / s.step + 1 > kMaxSteps)
    throw std::invalid_argument(fmt::format("--find-limit would take more than {} steps: raise --step", kMaxSteps));
  if (s.by == LimitBy::Vus && (first != std::floor(first) || s.step != std::floor(s.step) || s.up_to != std::floor(s.up_to)))
    throw std::invalid_argument("--start, --step and --up-to are whole numbers of VUs");
  if (s.ramp < 0) throw std::invalid_argument("--ramp cannot be negative");
  if (s.resolution < 0) throw std::invalid_argument("--refine's resolution cannot be negative");
  std::int64_t a = 0, b = 0;
  whole_seconds(s.ramp, s.ramp + s.hold, a, b);
  if (s.hold <= 0 || b < a)
    throw std::invalid_argument(fmt::format(
        "--hold ({:.3g}s after a {:.3g}s ramp) covers no whole second of the run to judge: use at least 1s, "
        "and whole seconds for --ramp and --hold",
        static_cast<double>(s.hold) / kSecond, static_cast<double>(s.ramp) / kSecond));
}

std::vector<StepWindow> plan_steps(const FindLimitSettings& s) {
  validate(s);
  std::vector<double> levels;
  const double first = s.start > 0 ? s.start : s.step;
  for (double level = first; level <= s.up_to + 1e-9 * s.step; level = first + s.step * static_cast<double>(levels.size()))
    levels.push_back(std::min(level, s.up_to));
  if (levels.back() < s.up_to) levels.push_back(s.up_to);

  std::vector<StepWindow> steps;
  Nanos t = 0;
  for (double level : levels) {
    StepWindow w;
    w.level = level;
    w.ramp_start = t;
    w.hold_start = t + s.ramp;
    w.hold_end = w.hold_start + s.hold;
    whole_seconds(w.hold_start, w.hold_end, w.first_second, w.last_second);
    steps.push_back(w);
    t = w.hold_end;
  }
  return steps;
}

namespace {
LoadShape shape_from(const FindLimitSettings& s, const LoadShape& base) {
  LoadShape shape;
  shape.model = s.by == LimitBy::Rate ? LoadModel::Rate : LoadModel::Vus;
  shape.start = 0;
  shape.graceful_stop = base.graceful_stop;
  shape.max_vus = base.max_vus;
  return shape;
}

void cap_vus_for_rate(LoadShape& shape, const LoadShape& base, double peak) {
  // A rate needs a cap on iterations in flight: the scenario's (when it has a rate model),
  // otherwise the default for the peak rate of the staircase.
  if (shape.model != LoadModel::Rate) return;
  if (base.model != LoadModel::Rate || base.max_vus <= 0)
    shape.max_vus = static_cast<int>(std::max(100.0, std::ceil(peak)));
}
}  // namespace

LoadShape staircase_shape(const FindLimitSettings& s, const std::vector<StepWindow>& steps, const LoadShape& base) {
  LoadShape shape = shape_from(s, base);
  double peak = 0;
  for (const StepWindow& w : steps) {
    shape.stages.push_back({w.hold_start - w.ramp_start, w.level});
    shape.stages.push_back({w.hold_end - w.hold_start, w.level});
    peak = std::max(peak, w.level);
  }
  cap_vus_for_rate(shape, base, peak);
  return shape;
}

StepWindow single_step(const FindLimitSettings& s, double level) {
  StepWindow w;
  w.level = level;
  w.ramp_start = 0;
  w.hold_start = s.ramp;
  w.hold_end = s.ramp + s.hold;
  whole_seconds(w.hold_start, w.hold_end, w.first_second, w.last_second);
  return w;
}

LoadShape single_step_shape(const FindLimitSettings& s, double level, const LoadShape& base) {
  const StepWindow w = single_step(s, level);
  return staircase_shape(s, {w}, base);
}

double refine_resolution(const FindLimitSettings& s) {
  const double r = s.resolution > 0 ? s.resolution : s.step / 8;
  return s.by == LimitBy::Vus ? std::max(1.0, r) : r;
}

}  // namespace stampede::engine
