#include "scenario/lua_json.hpp"

#include <cmath>
#include <lua.hpp>
#include <string>
#include <utility>
#include <vector>

namespace stampede::scenario {

namespace {
int null_sentinel_storage;

constexpr std::size_t kMaxDepth = 200;

// The hook of the lua_to_json call in progress (the conversion is recursive and synchronous).
thread_local const TableHook* active_table_hook = nullptr;

// The tables being converted, outermost first: a table among them is a cycle, which JSON
// cannot hold (and which would otherwise be reported at a path 200 levels deep).
using Ancestors = std::vector<std::pair<const void*, std::string>>;

boost::json::value convert(lua_State* L, int index, const std::string& path, Ancestors& ancestors);

// Array when keys are exactly 1..n (n > 0).
bool is_array(lua_State* L, int index, size_t& length) {
  length = lua_objlen(L, index);
  if (length == 0) return false;
  size_t keys = 0;
  lua_pushnil(L);
  while (lua_next(L, index) != 0) {
    lua_pop(L, 1);
    if (lua_type(L, -1) != LUA_TNUMBER) {
      lua_pop(L, 1);
      return false;
    }
    const double k = lua_tonumber(L, -1);
    if (k != std::floor(k) || k < 1 || k > static_cast<double>(length)) {
      lua_pop(L, 1);
      return false;
    }
    ++keys;
  }
  return keys == length;
}

std::string key_string(lua_State* L, int key_index, const std::string& path) {
  if (lua_type(L, key_index) == LUA_TSTRING) {
    size_t n = 0;
    const char* s = lua_tolstring(L, key_index, &n);
    return std::string(s, n);
  }
  if (lua_type(L, key_index) == LUA_TNUMBER) {
    // lua_tolstring would change the key in place and confuse lua_next: copy first.
    lua_pushvalue(L, key_index);
    std::string s = lua_tostring(L, -1);
    lua_pop(L, 1);
    return s;
  }
  throw JsonConversionError("cannot encode a table key of type " + std::string(luaL_typename(L, key_index)) +
                            " at " + path);
}

boost::json::value convert_entries(lua_State* L, int index, const std::string& path, Ancestors& ancestors);

boost::json::value convert_table(lua_State* L, int index, const std::string& path, Ancestors& ancestors) {
  const void* self = lua_topointer(L, index);
  for (const auto& [table, where] : ancestors) {
    if (table == self) throw JsonConversionError("cannot encode a cycle: " + path + " is " + where);
  }
  if (ancestors.size() >= kMaxDepth) throw JsonConversionError("table nested too deep at " + path);
  ancestors.emplace_back(self, path);
  boost::json::value out = convert_entries(L, index, path, ancestors);
  ancestors.pop_back();
  return out;
}

boost::json::value convert_entries(lua_State* L, int index, const std::string& path, Ancestors& ancestors) {
  size_t length = 0;
  if (is_array(L, index, length)) {
    boost::json::array arr;
    arr.reserve(length);
    for (size_t i = 1; i <= length; ++i) {
      lua_rawgeti(L, index, static_cast<int>(i));
      arr.push_back(convert(L, lua_gettop(L), path + "[" + std::to_string(i) + "]", ancestors));
      lua_pop(L, 1);
    }
    return arr;
  }
  boost::json::object obj;
  lua_pushnil(L);
  while (lua_next(L, index) != 0) {
    const int value_index = lua_gettop(L);
    std::string key = key_string(L, value_index - 1, path);
    obj[key] = convert(L, value_index, path + "." + key, ancestors);
    lua_pop(L, 1);
  }
  return obj;
}

boost::json::value convert(lua_State* L, int index, const std::string& path, Ancestors& ancestors) {
  switch (lua_type(L, index)) {
    case LUA_TNIL:
      return nullptr;
    case LUA_TBOOLEAN:
      return lua_toboolean(L, index) != 0;
    case LUA_TNUMBER: {
      const double d = lua_tonumber(L, index);
      if (!std::isfinite(d)) throw JsonConversionError("cannot encode " + std::to_string(d) + " at " + path);
      if (d == std::floor(d) && std::fabs(d) < 9007199254740992.0) return static_cast<std::int64_t>(d);
      return d;
    }
    case LUA_TSTRING: {
      size_t n = 0;
      const char* s = lua_tolstring(L, index, &n);
      return boost::json::string(std::string_view(s, n));
    }
    case LUA_TTABLE:
      if (!lua_checkstack(L, 4)) throw JsonConversionError("Lua stack exhausted at " + path);
      if (active_table_hook != nullptr) {
        if (auto replaced = (*active_table_hook)(L, index)) return std::move(*replaced);
      }
      return convert_table(L, index, path, ancestors);
    case LUA_TLIGHTUSERDATA:
      if (lua_touserdata(L, index) == json_null_sentinel()) return nullptr;
      [[fallthrough]];
    default:
      throw JsonConversionError("cannot encode a " + std::string(luaL_typename(L, index)) + " at " + path);
  }
}
}  // namespace

void* json_null_sentinel() { return &null_sentinel_storage; }

boost::json::value lua_to_json(lua_State* L, int index) {
  if (index < 0 && index > LUA_REGISTRYINDEX) index = lua_gettop(L) + index + 1;
  Ancestors ancestors;
  return convert(L, index, "value", ancestors);
}

boost::json::value lua_to_json(lua_State* L, int index, const TableHook& hook) {
  struct Restore {
    const TableHook* previous = active_table_hook;
    ~Restore() { active_table_hook = previous; }
  } restore;
  active_table_hook = &hook;
  return lua_to_json(L, index);
}

namespace {

void push_value(lua_State* L, const boost::json::value& v, const ValueHook* hook) {
  luaL_checkstack(L, 4, "JSON nested too deep");
  if (hook != nullptr && (*hook)(L, v)) return;
  switch (v.kind()) {
    case boost::json::kind::null:
      lua_pushlightuserdata(L, json_null_sentinel());
      return;
    case boost::json::kind::bool_:
      lua_pushboolean(L, v.get_bool());
      return;
    case boost::json::kind::int64:
      lua_pushnumber(L, static_cast<lua_Number>(v.get_int64()));
      return;
    case boost::json::kind::uint64:
      lua_pushnumber(L, static_cast<lua_Number>(v.get_uint64()));
      return;
    case boost::json::kind::double_:
      lua_pushnumber(L, v.get_double());
      return;
    case boost::json::kind::string: {
      const auto& s = v.get_string();
      lua_pushlstring(L, s.data(), s.size());
      return;
    }
    case boost::json::kind::array: {
      const auto& arr = v.get_array();
      lua_createtable(L, static_cast<int>(arr.size()), 0);
      int i = 1;
      for (const auto& item : arr) {
        push_value(L, item, hook);
        lua_rawseti(L, -2, i++);
      }
      return;
    }
    case boost::json::kind::object: {
      const auto& obj = v.get_object();
      lua_createtable(L, 0, static_cast<int>(obj.size()));
      for (const auto& kv : obj) {
        lua_pushlstring(L, kv.key().data(), kv.key().size());
        push_value(L, kv.value(), hook);
        lua_rawset(L, -3);
      }
      return;
    }
  }
}

}  // namespace

void push_json(lua_State* L, const boost::json::value& v) { push_value(L, v, nullptr); }

void push_json(lua_State* L, const boost::json::value& v, const ValueHook& hook) { push_value(L, v, &hook); }

}  // namespace stampede::scenario
