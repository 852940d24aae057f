-- `stampede.error`: the error objects every module raises (kind, message, response and
-- extras), written in Lua because they are Lua values through and through.
-- Embedded at build time (cmake/ScenarioLua.cmake; src/scenario/module_error.cpp).
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
