#include "scenario/lua_modules.hpp"

#include <lua.hpp>
#include <string>

#include "scenario/scenario_runtime.hpp"

namespace stampede::scenario {

void register_modules(lua_State* L, ScenarioRuntime* /*runtime: reached through runtime_of*/) {
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "preload");
  lua_pushcfunction(L, open_stampede_module);
  lua_setfield(L, -2, "stampede");
  lua_pushcfunction(L, open_http_module);
  lua_setfield(L, -2, "stampede.http");
  lua_pushcfunction(L, open_json_module);
  lua_setfield(L, -2, "stampede.json");
  lua_pop(L, 2);
}

void run_module_lua(lua_State* L, const char* source, const char* chunk_name) {
  if (luaL_loadbuffer(L, source, std::char_traits<char>::length(source), chunk_name) != 0) lua_error(L);
  lua_insert(L, -2);  // chunk below its argument
  lua_call(L, 1, 1);
}

Vu& require_vu(lua_State* L, const char* function_name) {
  Vu* vu = runtime_of(L)->vu_of(L);
  if (vu == nullptr) luaL_error(L, "%s can only be called inside run, setup or teardown", function_name);
  return *vu;
}

}  // namespace stampede::scenario
