#include "scenario/stream_client_bindings.hpp"

#include <algorithm>

#include "scenario/module_lua.hpp"

namespace stampede::scenario::stream_client {

int open_module(lua_State* L, std::string_view source, const char* chunk_name) {
  lua_pushcfunction(L, l_duration_ms);
  lua_setfield(L, -2, "duration_ms");
  lua_pushvalue(L, -1);
  run_module_lua(L, module_lua::stream_client_lua, "=stampede.stream_client");  // c, stream
  run_module_lua(L, source, chunk_name, 2);
  return 1;
}

int l_duration_ms(lua_State* L) {
  const char* what = luaL_checkstring(L, 2);
  if (lua_isnoneornil(L, 1)) return 0;
  if (lua_type(L, 1) != LUA_TNUMBER && lua_type(L, 1) != LUA_TSTRING)
    luaL_error(L, "%s: expected a duration (milliseconds, or a string such as \"500ms\"), got %s", what,
               luaL_typename(L, 1));
  lua_pushnumber(L, static_cast<double>(duration_arg(L, 1, what, 0)) / kMilli);
  return 1;
}

Nanos remaining_arg(lua_State* L, int index) {
  const double ms = luaL_checknumber(L, index);
  return ms <= 0 ? 0 : std::max<Nanos>(1, static_cast<Nanos>(ms * kMilli));
}

}  // namespace stampede::scenario::stream_client
