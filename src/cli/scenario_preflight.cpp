#include "cli/scenario_preflight.hpp"

#include <cstdio>

#include "cli/scenario_execution.hpp"
#include "engine/load_plan.hpp"
#include "metrics/metric_sink.hpp"
#include "scenario/scenario_error.hpp"

namespace stampede::cli {

bool all_scenarios_load(const RunArgs& args) {
  for (const auto& file : args.files) {
    try {
      metrics::Registry registry;
      const PreparedScenario scenario = load_scenario(file, args, registry);
      if (!args.find_limit.enabled()) engine::build_load_shape(scenario.options, args.overrides, file);
    } catch (const scenario::ScenarioError& e) {
      std::fprintf(stderr, "error: %s\n", e.what());
      return false;
    }
  }
  return true;
}

}  // namespace stampede::cli
