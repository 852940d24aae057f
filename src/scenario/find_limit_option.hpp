#pragma once
// `find_limit = { by = "rate", start = 100, step = 100, up_to = 2000, hold = "20s", ramp = "5s",
// refine = true }` in a scenario's options: how `stampede run --find-limit` steps the load
// for this scenario (the command line's --start, --step ... override each field).
#include <optional>
#include <string>

#include "common/clock.hpp"

struct lua_State;

namespace stampede::scenario {

struct FindLimitOption {
  std::optional<std::string> by;  // "vus" or "rate"
  std::optional<double> start, step, up_to, resolution;
  std::optional<Nanos> hold, ramp;
  std::optional<bool> refine;
};

// Reads the table at `index`; throws ScenarioError naming `where` and the bad key.
FindLimitOption read_find_limit_option(lua_State* L, int index, const std::string& where);

}  // namespace stampede::scenario
