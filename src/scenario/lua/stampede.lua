-- The Lua half of `stampede` (src/scenario/module_stampede.cpp passes the module table in):
-- stampede.measure, which must run the user's function as a Lua call (it may yield).
-- Embedded at build time (cmake/ScenarioLua.cmake).
local M = ...
local now_ns, record_ns = M._now_ns, M._record_ns
local pack = function(...) return { n = select("#", ...), ... } end
function M.measure(name, fn, ...)
  if type(fn) ~= "function" then error("stampede.measure(name, fn): fn must be a function", 2) end
  local t0 = now_ns()
  local r = pack(pcall(fn, ...))
  record_ns(name, now_ns() - t0)
  if not r[1] then error(r[2], 0) end
  return unpack(r, 2, r.n)
end
return M
