#include "scenario/scenario_options.hpp"

#include <fmt/format.h>

#include <cmath>
#include <lua.hpp>
#include <string_view>

#include "proto/duration.hpp"
#include "scenario/lua_list.hpp"
#include "scenario/server_metrics_option.hpp"
#include "scenario/scenario_error.hpp"
#include "scenario/threshold_options.hpp"

namespace stampede::scenario {

namespace {

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

// VUs are whole: 2.5 used to run 2 without a word.
long long read_count(lua_State* L, int index, const std::string& where, double min) {
  const double v = read_number(L, index, where, min);
  if (v != std::floor(v)) throw ScenarioError(fmt::format("{}: expected a whole number of VUs, got {:g}", where, v));
  if (v > 1e9) throw ScenarioError(fmt::format("{}: must be at most 1000000000, got {:g}", where, v));
  return static_cast<long long>(v);
}

// The duration ([1] or duration =) or the target ([2] or target =) of a stage, pushed; a
// stage that gives one both ways is ambiguous.
void push_stage_part(lua_State* L, int stage, int position, const char* name, const std::string& at) {
  lua_rawgeti(L, stage, position);
  lua_getfield(L, stage, name);
  if (!lua_isnil(L, -1) && !lua_isnil(L, -2))
    throw ScenarioError(fmt::format("{}: the {} is given twice, as [{}] and as {} =", at, name, position, name));
  if (lua_isnil(L, -1)) lua_pop(L, 1);
  else lua_remove(L, -2);
}

// A stage has a duration and a target and nothing else: `{"30s", 10, ramp = "linear"}` or a
// third item would be ignored, and the load would not be the one the user meant.
void require_stage_keys(lua_State* L, int stage, const std::string& at) {
  lua_pushnil(L);
  while (lua_next(L, stage) != 0) {
    const int key = lua_gettop(L) - 1;
    const bool known = lua_type(L, key) == LUA_TNUMBER
                           ? lua_tonumber(L, key) == 1 || lua_tonumber(L, key) == 2
                           : lua_type(L, key) == LUA_TSTRING && (std::string_view(lua_tostring(L, key)) == "duration" ||
                                                                std::string_view(lua_tostring(L, key)) == "target");
    if (!known) {
      const std::string shown = lua_type(L, key) == LUA_TNUMBER ? fmt::format("[{}]", lua_value_shown(L, key))
                                                                : lua_value_shown(L, key);
      throw ScenarioError(fmt::format("{}: unknown key {}: a stage is {{duration, target}}, such as {{\"30s\", 100}}",
                                      at, shown));
    }
    lua_pop(L, 1);
  }
}

// stages = { {"30s", 500}, {duration = "1m", target = 500} }
std::vector<Stage> read_stages(lua_State* L, int index, const std::string& where, const std::string& key) {
  if (!lua_istable(L, index)) throw ScenarioError(where + ": expected a list of {duration, target} pairs");
  require_list(L, index, where, key + " = { {\"30s\", 100}, {\"1m\", 100} }");
  std::vector<Stage> stages;
  const size_t n = lua_objlen(L, index);
  for (size_t i = 1; i <= n; ++i) {
    const std::string at = fmt::format("{}[{}]", where, i);
    lua_rawgeti(L, index, static_cast<int>(i));
    const int stage = lua_gettop(L);
    if (!lua_istable(L, stage)) throw ScenarioError(at + ": expected {duration, target}, such as {\"30s\", 100}");
    require_stage_keys(L, stage, at);
    push_stage_part(L, stage, 1, "duration", at);
    if (lua_isnil(L, -1)) throw ScenarioError(at + ": missing the duration, as in {\"30s\", 100}");
    Stage s;
    s.duration = read_duration(L, lua_gettop(L), at + " duration");
    lua_pop(L, 1);
    push_stage_part(L, stage, 2, "target", at);
    if (lua_isnil(L, -1)) throw ScenarioError(at + ": missing the target, as in {\"30s\", 100}");
    s.target = read_number(L, lua_gettop(L), at + " target", 0);
    lua_pop(L, 2);
    stages.push_back(s);
  }
  if (stages.empty()) throw ScenarioError(where + ": needs at least one stage");
  return stages;
}

}  // namespace

const std::vector<std::string>& option_keys() {
  static const std::vector<std::string> keys = {"vus",        "duration",   "stages",         "rate",
                                                "start_rate", "rate_stages", "max_vus",       "iterations", "graceful_stop",
                                                "thresholds", "local_addresses", "insecure",   "find_limit",
                                                "http2",      "server_metrics"};
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
      o.vus = read_count(L, v, at, 0);
    } else if (key == "duration") {
      o.duration = read_duration(L, v, at);
    } else if (key == "stages") {
      o.stages = read_stages(L, v, at, key);
    } else if (key == "rate") {
      o.rate = read_number(L, v, at, 0);
    } else if (key == "start_rate") {
      o.start_rate = read_number(L, v, at, 0);
    } else if (key == "rate_stages") {
      o.rate_stages = read_stages(L, v, at, key);
    } else if (key == "max_vus") {
      o.max_vus = read_count(L, v, at, 1);
    } else if (key == "iterations") {
      o.iterations = read_count(L, v, at, 1);
    } else if (key == "graceful_stop") {
      o.graceful_stop = read_duration(L, v, at);
    } else if (key == "thresholds") {
      o.thresholds = read_thresholds(L, v, at);
    } else if (key == "find_limit") {
      o.find_limit = read_find_limit_option(L, v, at);
    } else if (key == "server_metrics") {
      o.server_metrics = read_server_metrics_option(L, v, at);
    } else if (key == "insecure") {
      o.insecure = lua_toboolean(L, v) != 0;
    } else if (key == "http2") {
      if (lua_type(L, v) != LUA_TBOOLEAN) throw ScenarioError(at + ": expected true or false");
      o.http2 = lua_toboolean(L, v) != 0;
    } else if (key == "local_addresses") {
      if (lua_type(L, v) == LUA_TSTRING) {
        o.local_addresses.emplace_back(lua_tostring(L, v));
      } else if (lua_istable(L, v)) {
        require_list(L, v, at, "local_addresses = { \"127.0.0.2\", \"127.0.0.3\" }");
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
      throw ScenarioError(fmt::format("{}: unknown option \"{}\": expected one of {}", where, key,
                                      fmt::join(option_keys(), ", ")));
    }
    lua_pop(L, 1);
  }
  return o;
}

}  // namespace stampede::scenario
