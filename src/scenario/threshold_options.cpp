#include "scenario/threshold_options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <lua.hpp>

#include "metrics/builtin_metrics.hpp"
#include "metrics/threshold.hpp"
#include "scenario/lua_list.hpp"
#include "scenario/scenario_error.hpp"

namespace stampede::scenario {

namespace {

constexpr const char* kListForm = "thresholds = { {\"http.request\", p95 = 250} }";

// What a limit is written as, for the message when it is not a number: `p95 = "250ms"` is
// the natural first try, and "expected a number" alone does not say the unit is implied.
std::string limit_form(const std::string& key) {
  switch (metrics::aggregation_unit(key)) {
    case metrics::AggregationUnit::Milliseconds: return fmt::format("a number of milliseconds, as in {} = 250", key);
    case metrics::AggregationUnit::Ratio: return fmt::format("a ratio from 0 to 1, as in {} = 0.01", key);
    case metrics::AggregationUnit::PerSecond: return fmt::format("a number per second, as in {} = 100", key);
    case metrics::AggregationUnit::Count: break;
  }
  return fmt::format("a number, as in {} = 0", key);
}

double read_limit(lua_State* L, int index, const std::string& at, const std::string& key) {
  if (lua_type(L, index) != LUA_TNUMBER)
    throw ScenarioError(fmt::format("{}: expected {}, got {} {}", at, limit_form(key),
                                    lua_type(L, index) == LUA_TSTRING ? "the string" : "a",
                                    lua_type(L, index) == LUA_TSTRING ? lua_value_shown(L, index)
                                                                      : luaL_typename(L, index)));
  const double v = lua_tonumber(L, index);
  if (!(v >= 0)) throw ScenarioError(fmt::format("{}: must be at least 0, got {:g}", at, v));
  return v;
}

}  // namespace

const std::vector<std::string>& threshold_keys() {
  static const std::vector<std::string> keys = {"min", "mean", "p50",  "p90",    "p95",        "p99",
                                                "max", "count", "rate", "failed", "failed_rate"};
  return keys;
}

std::vector<ThresholdOption> read_thresholds(lua_State* L, int index, const std::string& where) {
  if (!lua_istable(L, index)) throw ScenarioError(where + ": expected a list such as { {\"http.request\", p95 = 250} }");
  if (index < 0) index = lua_gettop(L) + index + 1;
  require_list(L, index, where, kListForm);
  const std::vector<std::string>& keys = threshold_keys();
  std::vector<ThresholdOption> out;
  const size_t n = lua_objlen(L, index);
  for (size_t i = 1; i <= n; ++i) {
    const std::string at = fmt::format("{}[{}]", where, i);
    lua_rawgeti(L, index, static_cast<int>(i));
    const int entry = lua_gettop(L);
    if (!lua_istable(L, entry)) throw ScenarioError(at + ": expected {\"metric\", p95 = 250}");
    lua_rawgeti(L, entry, 1);
    if (lua_type(L, -1) != LUA_TSTRING) throw ScenarioError(at + ": the first item must be the metric name");
    const std::string metric = lua_tostring(L, -1);
    lua_pop(L, 1);
    const std::optional<metrics::Kind> known = metrics::builtin_kind(metric);
    lua_pushnil(L);
    while (lua_next(L, entry) != 0) {
      if (lua_type(L, -2) == LUA_TSTRING) {
        const std::string key = lua_tostring(L, -2);
        if (std::find(keys.begin(), keys.end(), key) == keys.end())
          throw ScenarioError(fmt::format("{} ({}): unknown threshold key \"{}\": expected one of {}", at, metric, key,
                                          fmt::join(keys, ", ")));
        if (known) {
          if (std::string why = metrics::applicability_error(key, metric, *known); !why.empty())
            throw ScenarioError(fmt::format("{} ({}): {}", at, metric, why));
        }
      } else if (!(lua_type(L, -2) == LUA_TNUMBER && lua_tonumber(L, -2) == 1)) {
        throw ScenarioError(at + ": only the metric name may be unnamed, as in {\"http.request\", p95 = 250}");
      }
      lua_pop(L, 1);
    }
    // In the order of threshold_keys(), not lua_next's: a table's hash order is not the
    // order they were written in, and the verdicts should print the same way on every run.
    size_t limits = 0;
    for (const std::string& key : keys) {
      lua_getfield(L, entry, key.c_str());
      if (!lua_isnil(L, -1)) {
        out.push_back({metric, key, read_limit(L, lua_gettop(L), fmt::format("{} ({}) {}", at, metric, key), key)});
        ++limits;
      }
      lua_pop(L, 1);
    }
    if (limits == 0) throw ScenarioError(fmt::format("{} ({}): no limit given, such as p95 = 250", at, metric));
    lua_pop(L, 1);
  }
  return out;
}

}  // namespace stampede::scenario
