#pragma once
// `stampede run --find-limit[=vus|rate] --start N --step N --up-to N --hold D --ramp D
// --refine[=RESOLUTION]` as typed; each one overrides the scenario's options.find_limit.
#include <CLI/App.hpp>

#include <optional>
#include <string>

#include "common/clock.hpp"
#include "engine/find_limit_plan.hpp"
#include "scenario/find_limit_option.hpp"

namespace stampede::cli {

struct FindLimitArgs {
  std::string by;  // "" when --find-limit was not given; "scenario" when given without a value
  std::optional<double> start, step, up_to;
  std::string hold, ramp;  // durations as typed ("" when not given)
  std::string refine;      // "" not given; "auto": step / 8; else a resolution
  bool enabled() const { return !by.empty(); }
};

void add_find_limit_options(CLI::App& run, FindLimitArgs& args);

// The settings for one scenario: the command line over the scenario's options over the
// defaults (5 s ramp, 30 s hold). Throws std::invalid_argument with a sentence.
engine::FindLimitSettings find_limit_settings(const FindLimitArgs& args,
                                              const std::optional<scenario::FindLimitOption>& option);

}  // namespace stampede::cli
