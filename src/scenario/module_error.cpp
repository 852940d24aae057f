// `stampede.error`: the error objects every client raises. A table with `kind` (join_error,
// push_error, timeout, channel_crashed, closed, connect_error, ...), `message`, the server's
// `response` where there is one, and a __tostring that reads well in the run summary.
#include <lua.hpp>

#include "scenario/lua_modules.hpp"
#include "scenario/module_lua.hpp"

namespace stampede::scenario {

int open_error_module(lua_State* L) {
  lua_newtable(L);
  run_module_lua(L, module_lua::error_lua, "=stampede.error");
  return 1;
}

}  // namespace stampede::scenario
