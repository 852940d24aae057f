#include "scenario/scenario_options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <lua.hpp>

#include "metrics/builtin_metrics.hpp"
#include "metrics/threshold.hpp"
#include "proto/duration.hpp"
#include "scenario/scenario_error.hpp"

namespace stampede::scenario {

namespace {

const std::vector<std::string> kThresholdKeys = {"min", "mean", "p50", "p90", "p95", "p99", "max",
                                                 "count", "rate", "failed", "failed_rate"};

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

Nanos read_duration(lua_State* L, int index, const std::string& where) {
  std::string error;
  std::optional<Nanos> d;
  if (lua_type(L, index) == LUA_TNUMBER) {
    d = proto::duration_from_ms(lua_tonumber(L, index), &error);
  } else if (lua_type(L, index) == LUA_TSTRING) {
    d = proto::parse_duration(lua_tostring(L, index), &error);
  } else {
    error = fmt::format("expected a duration such as \"30s\" or a number of milliseconds, got a {}",
                        luaL_typename(L, index));
  }
  if (!d) throw ScenarioError(fmt::format("{}: {}", where, error));
  return *d;
}

double read_number(lua_State* L, int index, const std::string& where, double min) {
  if (lua_type(L, index) != LUA_TNUMBER)
    throw ScenarioError(fmt::format("{}: expected a number, got a {}", where, luaL_typename(L, index)));
  const double v = lua_tonumber(L, index);
  if (v < min) throw ScenarioError(fmt::format("{}: must be at least {}, got {}", where, min, v));
  return v;
}

// stages = { {"30s", 500}, {duration = "1m", target = 500} }
std::vector<Stage> read_stages(lua_State* L, int index, const std::string& where) {
  if (!lua_istable(L, index)) throw ScenarioError(where + ": expected a list of {duration, target} pairs");
  std::vector<Stage> stages;
  const size_t n = lua_objlen(L, index);
  for (size_t i = 1; i <= n; ++i) {
    const std::string at = fmt::format("{}[{}]", where, i);
    lua_rawgeti(L, index, static_cast<int>(i));
    const int stage = lua_gettop(L);
    if (!lua_istable(L, stage)) throw ScenarioError(at + ": expected {duration, target}, such as {\"30s\", 100}");
    lua_rawgeti(L, stage, 1);
    if (lua_isnil(L, -1)) {
      lua_pop(L, 1);
      lua_getfield(L, stage, "duration");
    }
    if (lua_isnil(L, -1)) throw ScenarioError(at + ": missing the duration, as in {\"30s\", 100}");
    Stage s;
    s.duration = read_duration(L, lua_gettop(L), at + " duration");
    lua_pop(L, 1);
    lua_rawgeti(L, stage, 2);
    if (lua_isnil(L, -1)) {
      lua_pop(L, 1);
      lua_getfield(L, stage, "target");
    }
    if (lua_isnil(L, -1)) throw ScenarioError(at + ": missing the target, as in {\"30s\", 100}");
    s.target = read_number(L, lua_gettop(L), at + " target", 0);
    lua_pop(L, 2);
    stages.push_back(s);
  }
  if (stages.empty()) throw ScenarioError(where + ": needs at least one stage");
  return stages;
}

// thresholds = { {"http.request", p95 = 250, max = 2000}, {"checks", failed_rate = 0.01} }
std::vector<ThresholdOption> read_thresholds(lua_State* L, int index, const std::string& where) {
  if (!lua_istable(L, index)) throw ScenarioError(where + ": expected a list such as { {\"http.request\", p95 = 250} }");
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
    const std::optional<metrics::Kind> builtin = metrics::builtin_kind(metric);
    lua_pushnil(L);
    while (lua_next(L, entry) != 0) {
      if (lua_type(L, -2) == LUA_TSTRING) {
        const std::string key = lua_tostring(L, -2);
        if (std::find(kThresholdKeys.begin(), kThresholdKeys.end(), key) == kThresholdKeys.end())
          throw ScenarioError(fmt::format("{} ({}): unknown threshold key \"{}\": expected one of {}", at, metric, key,
                                          join(kThresholdKeys)));
        if (builtin) {
          if (std::string why = metrics::applicability_error(key, metric, *builtin); !why.empty())
            throw ScenarioError(fmt::format("{} ({}): {}", at, metric, why));
        }
      } else if (!(lua_type(L, -2) == LUA_TNUMBER && lua_tonumber(L, -2) == 1)) {
        throw ScenarioError(at + ": only the metric name may be unnamed, as in {\"http.request\", p95 = 250}");
      }
      lua_pop(L, 1);
    }
    // In the order of kThresholdKeys, not lua_next's: a table's hash order is not the order
    // they were written in, and the verdicts should print the same way on every run.
    size_t keys = 0;
    for (const std::string& key : kThresholdKeys) {
      lua_getfield(L, entry, key.c_str());
      if (!lua_isnil(L, -1)) {
        out.push_back({metric, key, read_number(L, lua_gettop(L), fmt::format("{} ({}) {}", at, metric, key), 0)});
        ++keys;
      }
      lua_pop(L, 1);
    }
    if (keys == 0) throw ScenarioError(fmt::format("{} ({}): no limit given, such as p95 = 250", at, metric));
    lua_pop(L, 1);
  }
  return out;
}

}  // namespace

const std::vector<std::string>& option_keys() {
  static const std::vector<std::string> keys = {"vus",        "duration",   "stages",         "rate",
                                                "start_rate", "rate_stages", "max_vus",       "graceful_stop",
                                                "thresholds", "local_addresses", "insecure",   "find_limit"};
  return keys;
}

ScenarioOptions read_options(lua_State* L, int index, const std::string& where) {
  ScenarioOptions o;
  if (lua_isnil(L, index)) return o;
  if (!lua_istable(L, index)) throw ScenarioError(where + ": expected a table");
  if (index < 0) index = lua_gettop(L) + index + 1;
  lua_pushnil(L);
  while (lua_next(L, index) != 0) {
    if (lua_type(L, -2) != LUA_TSTRING) throw ScenarioError(where + ": option names must be strings");
    const std::string key = lua_tostring(L, -2);
    const std::string at = where + "." + key;
    const int v = lua_gettop(L);
    if (key == "vus") {
      o.vus = static_cast<long long>(read_number(L, v, at, 0));
    } else if (key == "duration") {
      o.duration = read_duration(L, v, at);
    } else if (key == "stages") {
      o.stages = read_stages(L, v, at);
    } else if (key == "rate") {
      o.rate = read_number(L, v, at, 0);
    } else if (key == "start_rate") {
      o.start_rate = read_number(L, v, at, 0);
    } else if (key == "rate_stages") {
      o.rate_stages = read_stages(L, v, at);
    } else if (key == "max_vus") {
      o.max_vus = static_cast<long long>(read_number(L, v, at, 1));
    } else if (key == "graceful_stop") {
      o.graceful_stop = read_duration(L, v, at);
    } else if (key == "thresholds") {
      o.thresholds = read_thresholds(L, v, at);
    } else if (key == "find_limit") {
      o.find_limit = read_find_limit_option(L, v, at);
    } else if (key == "insecure") {
      o.insecure = lua_toboolean(L, v) != 0;
    } else if (key == "local_addresses") {
      if (lua_type(L, v) == LUA_TSTRING) {
        o.local_addresses.emplace_back(lua_tostring(L, v));
      } else if (lua_istable(L, v)) {
        for (size_t i = 1; i <= lua_objlen(L, v); ++i) {
          lua_rawgeti(L, v, static_cast<int>(i));
          if (lua_type(L, -1) != LUA_TSTRING) throw ScenarioError(at + ": expected strings such as \"127.0.0.2\"");
          o.local_addresses.emplace_back(lua_tostring(L, -1));
          lua_pop(L, 1);
        }
      } else {
        throw ScenarioError(at + ": expected a list of addresses or a range such as \"127.0.0.2-127.0.0.50\"");
      }
    } else {
      throw ScenarioError(fmt::format("{}: unknown option \"{}\": expected one of {}", where, key, join(option_keys())));
    }
    lua_pop(L, 1);
  }
  return o;
}

}  // namespace stampede::scenario
