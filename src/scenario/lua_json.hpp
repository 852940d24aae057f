#pragma once
// Lua values <-> JSON (Boost.JSON). Used for `json =` request bodies, `res:json()`,
// `stampede.json`, and to copy setup()'s result to every worker's Lua state.
//
// Tables with keys 1..n and nothing else become arrays; every other table an object
// (so an empty table is `{}`: Phoenix payloads want objects). `stampede.json.null`
// (a light userdata) stands for JSON null both ways, so arrays keep their holes.
#include <boost/json/value.hpp>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

struct lua_State;

namespace stampede::scenario {

// Throws JsonConversionError naming the path of the first value JSON cannot hold
// (functions, coroutines, userdata, cyclic tables, non-string keys mixed with array keys...).
struct JsonConversionError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

boost::json::value lua_to_json(lua_State* L, int index);
void push_json(lua_State* L, const boost::json::value& v);

// With a say over parts of the value, for the modules whose data carries what JSON cannot
// (Socket.IO's binary attachments): a table the hook converts is not walked further; a value
// the hook pushed (returning true) replaces its JSON.
using TableHook = std::function<std::optional<boost::json::value>(lua_State* L, int index)>;
using ValueHook = std::function<bool(lua_State* L, const boost::json::value& v)>;
boost::json::value lua_to_json(lua_State* L, int index, const TableHook& hook);
void push_json(lua_State* L, const boost::json::value& v, const ValueHook& hook);
// The light userdata that stands for JSON null.
void* json_null_sentinel();

}  // namespace stampede::scenario
