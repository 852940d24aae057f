#pragma once
// Turns a scenario's options and the command line's overrides into the LoadShape to run.
#include <optional>
#include <string>

#include "common/load_shape.hpp"
#include "scenario/scenario_options.hpp"

namespace stampede::engine {

struct LoadOverrides {
  std::optional<long long> vus;
  std::optional<double> rate;
  std::optional<Nanos> duration;
  std::optional<long long> max_vus;
  std::optional<long long> iterations;
};

// How long a run with `iterations` may take when no duration is given: k6's maxDuration
// default for its shared-iterations executor.
constexpr Nanos kIterationsMaxDuration = 10 * 60 * kSecond;

// Throws scenario::ScenarioError naming `where` (the scenario file) when the load is
// missing or contradictory.
LoadShape build_load_shape(const scenario::ScenarioOptions& options, const LoadOverrides& cli, const std::string& where);

// Default cap on VUs in the open model when none is given: enough for every iteration of
// one second at the peak rate to be in flight at once, and at least 100.
long long default_max_vus(const LoadShape& shape);

}  // namespace stampede::engine
