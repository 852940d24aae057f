-- The Lua half of `stampede.sse` (src/scenario/module_sse.cpp holds the C half and passes its
-- functions in as `c`, and the streaming clients' shared half, stream_client.lua, as `stream`):
-- the Stream methods and the error objects their failures become. Embedded at build time
-- (cmake/ScenarioLua.cmake), syntax-checked by luac5.1 (test_docs_reference.py) and tested with
-- a stand-in `c` (tests/unit/scenario/module_lua_test.cpp).
local c, stream = ...

local M = {}
local Stream = {}
Stream.__index = Stream

function M.connect(url, opts)
  local handle = stream.connected("sse.connect", c.connect(url, opts))
  return setmetatable({ _h = handle, url = url }, Stream)
end

-- await({event = "price", match = fn, timeout = "5s"}) -> {event=, data=, id=}
function Stream:await(opts)
  opts = opts or {}
  local event = opts.event
  if event ~= nil and type(event) ~= "string" then error("stream:await: event must be a string", 2) end
  local h = self._h
  return stream.await(h, {
    what = "stream:await",
    timeout = opts.timeout,
    match = opts.match,
    next = function(after, remaining) return c.next(h, event, after, remaining) end,
    ended = function()
      local closed, why = c.closed(h)
      if closed then return "closed", "stream:await: the stream closed (" .. why .. ")" end
      return "timeout", "stream:await" .. (event and (" " .. event) or "") .. ": nothing matching arrived in time"
    end,
  })
end

function Stream:close() c.close(self._h) end
function Stream:is_open() return c.is_open(self._h) end
function Stream:last_event_id() return c.last_event_id(self._h) end
function Stream:reconnects() return c.reconnects(self._h) end

return M
