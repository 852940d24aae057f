#pragma once
// options.thresholds, read and checked before the run: every key it does not know, every
// limit that is not a number, and every aggregation a metric known in advance cannot have
// is a usage error (exit 2) rather than a verdict after the whole load has run.
#include <string>
#include <vector>

#include "scenario/scenario_options.hpp"

struct lua_State;

namespace stampede::scenario {

// Reads `{ {"http.request", p95 = 250, max = 2000}, {"checks", failed_rate = 0.01} }` at
// `index`. `where` prefixes every error ("api.lua: options.thresholds"). Throws ScenarioError.
std::vector<ThresholdOption> read_thresholds(lua_State* L, int index, const std::string& where);

// The threshold keys, in the order their verdicts print.
const std::vector<std::string>& threshold_keys();

}  // namespace stampede::scenario
