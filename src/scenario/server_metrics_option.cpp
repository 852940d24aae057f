#include "scenario/server_metrics_option.hpp"

#include <fmt/format.h>

#include <lua.hpp>

#include "proto/duration.hpp"
#include "scenario/lua_list.hpp"
#include "scenario/scenario_error.hpp"

namespace stampede::scenario {

namespace {

std::string string_at(lua_State* L, int v, const std::string& at, const char* example) {
  if (lua_type(L, v) != LUA_TSTRING)
    throw ScenarioError(fmt::format("{}: expected a string such as {}, got {}", at, example, lua_value_shown(L, v)));
  return lua_tostring(L, v);
}

// A list of strings, or one string standing for a list of one.
std::vector<std::string> strings_at(lua_State* L, int v, const std::string& at, const char* example) {
  std::vector<std::string> out;
  if (lua_type(L, v) == LUA_TSTRING) {
    out.emplace_back(lua_tostring(L, v));
    return out;
  }
  if (!lua_istable(L, v))
    throw ScenarioError(fmt::format("{}: expected a list of strings such as {{ {} }}, got {}", at, example,
                                    lua_value_shown(L, v)));
  require_list(L, v, at, fmt::format("{{ {} }}", example));
  for (std::size_t i = 1; i <= lua_objlen(L, v); ++i) {
    lua_rawgeti(L, v, static_cast<int>(i));
    out.push_back(string_at(L, lua_gettop(L), fmt::format("{}[{}]", at, i), example));
    lua_pop(L, 1);
  }
  return out;
}

Nanos duration_at(lua_State* L, int v, const std::string& at) {
  if (lua_type(L, v) == LUA_TNUMBER) return static_cast<Nanos>(lua_tonumber(L, v) * kMilli);
  std::string error =
      fmt::format("expected a duration such as \"1s\" or a number of milliseconds, got {}", lua_value_shown(L, v));
  if (lua_type(L, v) == LUA_TSTRING) {
    if (auto d = proto::parse_duration(lua_tostring(L, v), &error)) return *d;
  }
  throw ScenarioError(fmt::format("{}: {}", at, error));
}

}  // namespace

clients::ServerMetricsOptions read_server_metrics_option(lua_State* L, int index, const std::string& where) {
  if (index < 0) index = lua_gettop(L) + index + 1;
  clients::ServerMetricsOptions o;
  if (lua_type(L, index) == LUA_TSTRING) {
    o.urls.emplace_back(lua_tostring(L, index));
  } else if (lua_istable(L, index)) {
    bool url = false, urls = false;
    lua_pushnil(L);
    while (lua_next(L, index) != 0) {
      if (lua_type(L, -2) != LUA_TSTRING)
        throw ScenarioError(fmt::format("{}: keys must be names such as url, every, select; got {}", where,
                                        lua_value_shown(L, -2)));
      const std::string key = lua_tostring(L, -2);
      const std::string at = where + "." + key;
      const int v = lua_gettop(L);
      if (key == "url") {
        url = true;
        o.urls.push_back(string_at(L, v, at, "\"http://127.0.0.1:9568/metrics\""));
      } else if (key == "urls") {
        urls = true;
        for (std::string& u : strings_at(L, v, at, "\"http://10.0.0.1:9568/metrics\", \"http://10.0.0.2:9568/metrics\""))
          o.urls.push_back(std::move(u));
      } else if (key == "every") {
        o.every = duration_at(L, v, at);
      } else if (key == "timeout") {
        o.timeout = duration_at(L, v, at);
      } else if (key == "select") {
        o.select = strings_at(L, v, at, "\"beam_*\", \"phoenix_*\"");
      } else {
        throw ScenarioError(fmt::format(
            "{}: unknown key \"{}\": expected one of url, urls, every, select, timeout", where, key));
      }
      lua_pop(L, 1);
    }
    if (url && urls) throw ScenarioError(fmt::format("{}: give either url or urls, not both", where));
  } else {
    throw ScenarioError(fmt::format(
        "{}: expected a table such as {{ url = \"http://127.0.0.1:9568/metrics\", every = \"1s\" }}, got {}", where,
        lua_value_shown(L, index)));
  }
  if (std::string why = clients::validate_server_metrics(o, where); !why.empty()) throw ScenarioError(why);
  return o;
}

}  // namespace stampede::scenario
