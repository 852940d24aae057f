-- The Lua half of `stampede.http` (src/scenario/module_http.cpp passes the module table in):
-- one function per method over `request`. Embedded at build time (cmake/ScenarioLua.cmake).
local M = ...
local request = M.request
for _, method in ipairs({"get", "post", "put", "patch", "delete", "head", "options"}) do
  local upper = method:upper()
  M[method] = function(url, opts) return request(upper, url, opts) end
end
M.del = M.delete
return M
