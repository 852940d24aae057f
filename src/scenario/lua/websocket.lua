-- The Lua half of `stampede.websocket` (src/scenario/module_websocket.cpp holds the C half
-- and passes its functions in as `c`): the Socket methods and the error objects their
-- failures become. Embedded at build time (cmake/ScenarioLua.cmake).
local c = ...
local errors = require "stampede.error"
local Socket = {}
Socket.__index = Socket

local M = {}
function M.connect(url, opts)
  local handle, message, reason, status = c.connect(url, opts)
  if not handle then errors.raise("connect_error", "websocket.connect " .. url .. ": " .. message, nil, 2, { reason = reason, status = status }) end
  return setmetatable({ _h = handle, _skipped = {} }, Socket)
end
function Socket:send(text) c.send(self._h, text) end
function Socket:send_binary(data) c.send_binary(self._h, data) end
function Socket:close(code, reason) c.close(self._h, code, reason) end
function Socket:is_open() return c.is_open(self._h) end
-- Messages a match skipped stay, in order, for later awaits (in Lua: taken from C++ once).
function Socket:await(opts)
  opts = opts or {}
  local skipped = self._skipped
  for i = 1, #skipped do
    if not opts.match or opts.match(skipped[i]) then return table.remove(skipped, i) end
  end
  while true do
    local msg, kind, message = c.take(self._h, opts.timeout)
    if not msg then errors.raise(kind, "websocket:await: " .. message, nil, 2) end
    if not opts.match or opts.match(msg) then return msg end
    skipped[#skipped + 1] = msg
  end
end
return M
