local c = ...
local errors = require "stampede.error"
local now = require("stampede").now

local M = {}
local Stream = {}
Stream.__index = Stream

local function duration_ms(value, what, level)
  if value == nil then return nil end
  local ok, result = pcall(c.duration_ms, value, what)
  if not ok then error(result, level + 1) end
  return result
end

function M.connect(url, opts)
  local handle, message, reason, status = c.connect(url, opts)
  if not handle then
    errors.raise("connect_error", "sse.connect " .. message, nil, 2, { reason = reason, status = status })
  end
  return setmetatable({ _h = handle, url = url }, Stream)
end

-- await({event = "price", match = fn, timeout = "5s"}) -> {event=, data=, id=}
-- One deadline for the whole call: events that do not match spend it like silence does.
function Stream:await(opts)
  opts = opts or {}
  if opts.event ~= nil and type(opts.event) ~= "string" then error("stream:await: event must be a string", 2) end
  local deadline = now() + (duration_ms(opts.timeout, "stream:await timeout", 2) or 10000)
  local after = 0
  while true do
    local ev = c.next(self._h, opts.event, after, deadline - now())
    if not ev then
      local closed, why = c.closed(self._h)
      if closed then errors.raise("closed", "stream:await: the stream closed (" .. why .. ")", nil, 2) end
      errors.raise("timeout", "stream:await" .. (opts.event and (" " .. opts.event) or "") ..
        ": nothing matching arrived in time", nil, 2)
    end
    if not opts.match or opts.match(ev) then
      c.consume(self._h, ev.seq)
      ev.seq = nil
      return ev
    end
    after = ev.seq
  end
end

function Stream:close() c.close(self._h) end
function Stream:is_open() return c.is_open(self._h) end
function Stream:last_event_id() return c.last_event_id(self._h) end
function Stream:reconnects() return c.reconnects(self._h) end

return M
