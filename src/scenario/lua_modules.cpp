#include "scenario/lua_modules.hpp"

#include <lua.hpp>
#include <stdexcept>
#include <string>

#include "common/address_list.hpp"
#include "proto/duration.hpp"
#include "scenario/scenario_runtime.hpp"

namespace stampede::scenario {

void register_modules(lua_State* L, ScenarioRuntime* /*runtime: reached through runtime_of*/) {
  const luaL_Reg modules[] = {{"stampede", open_stampede_module},
                              {"stampede.http", open_http_module},
                              {"stampede.json", open_json_module},
                              {"stampede.error", open_error_module},
                              {"stampede.websocket", open_websocket_module},
                              {"stampede.channels", open_channels_module},
                              {"stampede.liveview", open_liveview_module},
                              {"stampede.sse", open_sse_module},
                              {"stampede.graphql_ws", open_graphql_ws_module},
                              {"stampede.socketio", open_socketio_module}};
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "preload");
  for (const luaL_Reg& module : modules) {
    lua_pushcfunction(L, module.func);
    lua_setfield(L, -2, module.name);
  }
  lua_pop(L, 2);
}

void run_module_lua(lua_State* L, std::string_view source, const char* chunk_name, int nargs) {
  if (luaL_loadbuffer(L, source.data(), source.size(), chunk_name) != 0) lua_error(L);
  lua_insert(L, -1 - nargs);  // the chunk below its arguments
  lua_call(L, nargs, 1);
}

int open_module(lua_State* L, const luaL_Reg* functions, std::string_view source, const char* chunk_name) {
  lua_newtable(L);
  luaL_register(L, nullptr, functions);
  run_module_lua(L, source, chunk_name);
  return 1;
}

Nanos duration_arg(lua_State* L, int index, const char* fn, Nanos fallback) {
  if (lua_isnoneornil(L, index)) return fallback;
  std::string error;
  if (lua_type(L, index) == LUA_TNUMBER) {
    auto d = proto::duration_from_ms(lua_tonumber(L, index), &error);
    if (!d) luaL_error(L, "%s: %s", fn, error.c_str());
    return *d;
  }
  auto d = proto::parse_duration(luaL_checkstring(L, index), &error);
  if (!d) luaL_error(L, "%s: %s", fn, error.c_str());
  return *d;
}

void set_string(lua_State* L, const char* field, const std::string& value) {
  lua_pushlstring(L, value.data(), value.size());
  lua_setfield(L, -2, field);
}

Nanos duration_field(lua_State* L, int index, const char* field, const char* what, Nanos fallback) {
  if (!lua_istable(L, index)) return fallback;
  lua_getfield(L, index, field);
  const Nanos d = duration_arg(L, lua_gettop(L), what, fallback);
  lua_pop(L, 1);
  return d;
}

std::size_t count_field(lua_State* L, int index, const char* field, std::size_t fallback) {
  if (!lua_istable(L, index)) return fallback;
  lua_getfield(L, index, field);
  const std::size_t n = lua_type(L, -1) == LUA_TNUMBER ? static_cast<std::size_t>(lua_tonumber(L, -1)) : fallback;
  lua_pop(L, 1);
  return n;
}

std::vector<std::pair<std::string, std::string>> pairs_arg(lua_State* L, int index, const char* fn, const char* what) {
  std::vector<std::pair<std::string, std::string>> out;
  if (lua_isnoneornil(L, index)) return out;
  if (index < 0) index = lua_gettop(L) + index + 1;
  if (!lua_istable(L, index)) luaL_error(L, "%s: %s must be a table", fn, what);
  lua_pushnil(L);
  while (lua_next(L, index) != 0) {
    if (lua_type(L, -2) == LUA_TNUMBER && lua_istable(L, -1)) {
      lua_rawgeti(L, -1, 1);
      lua_rawgeti(L, -2, 2);
      if (!lua_isstring(L, -2) || !lua_isstring(L, -1)) luaL_error(L, "%s: %s entries must be {name, value}", fn, what);
      out.emplace_back(lua_tostring(L, -2), lua_tostring(L, -1));
      lua_pop(L, 2);
    } else {
      if (lua_type(L, -2) != LUA_TSTRING) luaL_error(L, "%s: %s names must be strings", fn, what);
      if (lua_type(L, -1) == LUA_TBOOLEAN) {
        out.emplace_back(lua_tostring(L, -2), lua_toboolean(L, -1) ? "true" : "false");
      } else if (lua_isstring(L, -1)) {
        lua_pushvalue(L, -1);  // tostring on a copy: never convert the value lua_next walks
        out.emplace_back(lua_tostring(L, -3), lua_tostring(L, -1));
        lua_pop(L, 1);
      } else {
        luaL_error(L, "%s: %s value for \"%s\" must be a string or number", fn, what, lua_tostring(L, -2));
      }
    }
    lua_pop(L, 1);
  }
  return out;
}

void socket_options_arg(lua_State* L, int index, const char* fn, clients::WebSocketSession::ConnectOptions& options) {
  lua_getfield(L, index, "headers");
  for (auto& header : pairs_arg(L, -1, fn, "headers")) options.headers.push_back(std::move(header));
  lua_pop(L, 1);
  lua_getfield(L, index, "compression");
  options.compression = lua_toboolean(L, -1) != 0;
  lua_pop(L, 1);
  lua_getfield(L, index, "insecure");
  if (!lua_isnil(L, -1)) options.insecure = lua_toboolean(L, -1) != 0;
  lua_pop(L, 1);
  lua_getfield(L, index, "local_addresses");
  options.local_addresses = local_addresses_arg(L, -1, fn);
  lua_pop(L, 1);
}

std::vector<boost::asio::ip::address> local_addresses_arg(lua_State* L, int index, const char* fn) {
  if (lua_isnoneornil(L, index)) return {};
  if (index < 0) index = lua_gettop(L) + index + 1;
  std::vector<std::string> items;
  if (lua_type(L, index) == LUA_TSTRING) {
    items.emplace_back(lua_tostring(L, index));
  } else if (lua_istable(L, index)) {
    for (std::size_t i = 1; i <= lua_objlen(L, index); ++i) {
      lua_rawgeti(L, index, static_cast<int>(i));
      if (lua_type(L, -1) != LUA_TSTRING) luaL_error(L, "%s: local_addresses must be strings such as \"127.0.0.2\"", fn);
      items.emplace_back(lua_tostring(L, -1));
      lua_pop(L, 1);
    }
  } else {
    luaL_error(L, "%s: local_addresses must be a string or a list of strings such as \"127.0.0.2-127.0.0.9\"", fn);
  }
  std::string error;
  try {
    return parse_address_list(items);
  } catch (const std::invalid_argument& e) {
    error = e.what();  // luaL_error longjmps: no exception may be in flight
  }
  luaL_error(L, "%s: local_addresses: %s", fn, error.c_str());
  return {};
}

int push_connect_failure(lua_State* co, const std::string& message, const std::string& reason, int status) {
  lua_pushnil(co);
  lua_pushlstring(co, message.data(), message.size());
  lua_pushlstring(co, reason.data(), reason.size());
  lua_pushinteger(co, status);
  return 4;
}

int push_connect_failure(lua_State* co, const std::string& message, const clients::WebSocketSession::ConnectResult& result) {
  return push_connect_failure(co, message, result.error_reason, result.status);
}

Vu& require_vu(lua_State* L, const char* function_name) {
  Vu* vu = runtime_of(L)->vu_of(L);
  if (vu == nullptr) luaL_error(L, "%s can only be called inside run, setup or teardown", function_name);
  return *vu;
}

}  // namespace stampede::scenario
