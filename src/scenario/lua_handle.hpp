#pragma once
// A C++ object shared with Lua: a full userdata holding a std::shared_ptr<T>, with a
// metatable named `type_name` whose __gc releases it. The userdata keeps the object alive
// while Lua can reach it; C++ (e.g. the end-of-iteration cleanup) holds weak_ptrs.
#include <lua.hpp>

#include <memory>
#include <new>

namespace stampede::scenario {

template <typename T>
void push_handle(lua_State* L, std::shared_ptr<T> object, const char* type_name) {
  void* mem = lua_newuserdata(L, sizeof(std::shared_ptr<T>));
  new (mem) std::shared_ptr<T>(std::move(object));
  if (luaL_newmetatable(L, type_name)) {
    lua_pushcfunction(L, [](lua_State* S) -> int {
      static_cast<std::shared_ptr<T>*>(lua_touserdata(S, 1))->~shared_ptr<T>();
      return 0;
    });
    lua_setfield(L, -2, "__gc");
  }
  lua_setmetatable(L, -2);
}

// The object behind argument `index`; a Lua error when it is not a `type_name` handle.
template <typename T>
T& check_handle(lua_State* L, int index, const char* type_name) {
  auto* p = static_cast<std::shared_ptr<T>*>(luaL_checkudata(L, index, type_name));
  if (!*p) luaL_error(L, "%s: the object was already released", type_name);
  return **p;
}

}  // namespace stampede::scenario
