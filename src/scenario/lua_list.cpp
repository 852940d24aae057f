#include "scenario/lua_list.hpp"

#include <fmt/format.h>

#include <cmath>
#include <lua.hpp>

#include "scenario/scenario_error.hpp"

namespace stampede::scenario {

std::string lua_value_shown(lua_State* L, int index) {
  switch (lua_type(L, index)) {
    case LUA_TSTRING: return fmt::format("\"{}\"", lua_tostring(L, index));
    case LUA_TNUMBER: return fmt::format("{:g}", lua_tonumber(L, index));
    case LUA_TBOOLEAN: return lua_toboolean(L, index) != 0 ? "true" : "false";
    case LUA_TTABLE: return "{...}";
    default: return luaL_typename(L, index);
  }
}

void require_list(lua_State* L, int index, const std::string& where, const std::string& list_form) {
  if (index < 0) index = lua_gettop(L) + index + 1;
  const double n = static_cast<double>(lua_objlen(L, index));
  lua_pushnil(L);
  while (lua_next(L, index) != 0) {
    const int key = lua_gettop(L) - 1;
    const bool entry = lua_type(L, key) == LUA_TNUMBER && lua_tonumber(L, key) >= 1 &&
                       lua_tonumber(L, key) <= n && std::floor(lua_tonumber(L, key)) == lua_tonumber(L, key);
    if (!entry) {
      // A number key past a hole ({a, nil, c}) shows as [3], a name as "name".
      const std::string shown_key = lua_type(L, key) == LUA_TNUMBER ? fmt::format("[{}]", lua_value_shown(L, key))
                                                                    : lua_value_shown(L, key);
      const std::string message = fmt::format("{}: {} = {} is not a list entry: write {}", where, shown_key,
                                              lua_value_shown(L, key + 1), list_form);
      lua_pop(L, 2);
      throw ScenarioError(message);
    }
    lua_pop(L, 1);
  }
}

}  // namespace stampede::scenario
