#include "scenario/find_limit_option.hpp"

#include <fmt/format.h>

#include <lua.hpp>

#include "proto/duration.hpp"
#include "scenario/scenario_error.hpp"

namespace stampede::scenario {

namespace {

double number(lua_State* L, int v, const std::string& at) {
  if (lua_type(L, v) != LUA_TNUMBER || lua_tonumber(L, v) < 0)
    throw ScenarioError(fmt::format("{}: expected a number >= 0, got {}", at, luaL_typename(L, v)));
  return lua_tonumber(L, v);
}

Nanos duration(lua_State* L, int v, const std::string& at) {
  if (lua_type(L, v) == LUA_TNUMBER && lua_tonumber(L, v) >= 0) return static_cast<Nanos>(lua_tonumber(L, v) * kMilli);
  std::string error = fmt::format("expected a duration such as \"20s\" or a number of milliseconds, got a {}",
                                  luaL_typename(L, v));
  if (lua_type(L, v) == LUA_TSTRING) {
    if (auto d = proto::parse_duration(lua_tostring(L, v), &error)) return *d;
  }
  throw ScenarioError(fmt::format("{}: {}", at, error));
}

}  // namespace

FindLimitOption read_find_limit_option(lua_State* L, int index, const std::string& where) {
  if (!lua_istable(L, index))
    throw ScenarioError(fmt::format("{}: expected a table such as {{ by = \"rate\", step = 100, up_to = 2000 }}", where));
  if (index < 0) index = lua_gettop(L) + index + 1;
  FindLimitOption o;
  lua_pushnil(L);
  while (lua_next(L, index) != 0) {
    if (lua_type(L, -2) != LUA_TSTRING) throw ScenarioError(where + ": keys must be names such as by, step, up_to");
    const std::string key = lua_tostring(L, -2);
    const std::string at = where + "." + key;
    const int v = lua_gettop(L);
    if (key == "by") {
      const char* s = lua_type(L, v) == LUA_TSTRING ? lua_tostring(L, v) : "";
      if (std::string_view(s) != "vus" && std::string_view(s) != "rate")
        throw ScenarioError(fmt::format("{}: expected \"vus\" or \"rate\"", at));
      o.by = s;
    } else if (key == "start") {
      o.start = number(L, v, at);
    } else if (key == "step") {
      o.step = number(L, v, at);
    } else if (key == "up_to") {
      o.up_to = number(L, v, at);
    } else if (key == "resolution") {
      o.resolution = number(L, v, at);
    } else if (key == "hold") {
      o.hold = duration(L, v, at);
    } else if (key == "ramp") {
      o.ramp = duration(L, v, at);
    } else if (key == "refine") {
      o.refine = lua_toboolean(L, v) != 0;
    } else {
      throw ScenarioError(fmt::format(
          "{}: unknown key \"{}\": expected one of by, start, step, up_to, hold, ramp, refine, resolution", where, key));
    }
    lua_pop(L, 1);
  }
  return o;
}

}  // namespace stampede::scenario
