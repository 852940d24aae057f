// `stampede.json`: encode, decode and null.
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <lua.hpp>

#include "scenario/lua_json.hpp"
#include "scenario/lua_modules.hpp"

namespace stampede::scenario {

namespace {
int json_encode(lua_State* L) {
  luaL_checkany(L, 1);
  std::string text;
  try {
    text = boost::json::serialize(lua_to_json(L, 1));
  } catch (const std::exception& e) {
    return luaL_error(L, "stampede.json.encode: %s", e.what());
  }
  lua_pushlstring(L, text.data(), text.size());
  return 1;
}

int json_decode(lua_State* L) {
  size_t n = 0;
  const char* s = luaL_checklstring(L, 1, &n);
  boost::system::error_code ec;
  auto value = boost::json::parse(std::string_view(s, n), ec);
  if (ec) return luaL_error(L, "stampede.json.decode: invalid JSON: %s", ec.message().c_str());
  push_json(L, value);
  return 1;
}
}  // namespace

int open_json_module(lua_State* L) {
  lua_createtable(L, 0, 3);
  lua_pushcfunction(L, json_encode);
  lua_setfield(L, -2, "encode");
  lua_pushcfunction(L, json_decode);
  lua_setfield(L, -2, "decode");
  lua_pushlightuserdata(L, json_null_sentinel());
  lua_setfield(L, -2, "null");
  return 1;
}

}  // namespace stampede::scenario
