// `stampede.error`: the error objects every client raises. A table with `kind` (join_error,
// push_error, timeout, channel_crashed, closed, connect_error, ...), `message`, the server's
// `response` where there is one, and a __tostring that reads well in the run summary.
#include <lua.hpp>

#include "scenario/lua_modules.hpp"

namespace stampede::scenario {

namespace {
constexpr const char* kErrorLua = R"lua(
local M = {}
local mt = { __tostring = function(e) return e.message end }
M.mt = mt
function M.new(kind, message, response, extra)
  local e = { kind = kind, message = message, response = response }
  if extra then for k, v in pairs(extra) do e[k] = v end end
  return setmetatable(e, mt)
end
-- level: as for error(); 1 = the caller of raise.
function M.raise(kind, message, response, level, extra)
  error(M.new(kind, message, response, extra), (level or 1) + 1)
end
function M.is(value, kind)
  return getmetatable(value) == mt and (kind == nil or value.kind == kind)
end
return M
)lua";
}  // namespace

int open_error_module(lua_State* L) {
  lua_newtable(L);
  run_module_lua(L, kErrorLua, "=stampede.error");
  return 1;
}

}  // namespace stampede::scenario
