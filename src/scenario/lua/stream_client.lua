-- What the Lua halves of the streaming clients share (stampede.channels, stampede.sse,
-- stampede.graphql_ws, stampede.socketio): timeout options, connect errors, and the await loop
-- over a C half's next/consume. No protocol here: what a message is, what ends a wait and what
-- an await returns are each module's. A module's C half runs this chunk with its `c`
-- (scenario/stream_client_bindings.cpp: open_module) and passes what it returns to the module's
-- own Lua half as its second argument; scenarios cannot require it. Embedded at build time
-- (cmake/ScenarioLua.cmake), syntax-checked by luac5.1 (test_docs_reference.py) and tested with
-- a stand-in `c` (tests/unit/scenario/module_lua_test.cpp).
local c = ...
local errors = require "stampede.error"
local now = require("stampede").now

local S = {}

-- A timeout option in ms (nil when not given). A bad one is an error at `level`, as error()
-- counts from the function calling this: the user's line, not this module's.
function S.duration_ms(value, what, level)
  if value == nil then return nil end
  local ok, result = pcall(c.duration_ms, value, what)
  if not ok then error(result, level + 1) end
  return result
end

-- c.connect's answer -> the handle and what came with it. A failure (nil, message, reason,
-- status) is a connect_error named after `what` ("sse.connect"), with err.reason and err.status.
function S.connected(what, handle, ...)
  if not handle then
    local message, reason, status = ...
    errors.raise("connect_error", what .. " " .. message, nil, 3, { reason = reason, status = status })
  end
  return handle, ...
end

local function the_message(msg) return msg end

-- One deadline for the whole call: messages that do not match spend the time like silence
-- does, so a busy stream cannot keep an await alive past its timeout. Past the deadline `next`
-- still reads what is already kept (it arrived in time), but waits for nothing more.
-- `w` says what the caller's await is about:
--   what     names it in the timeout option's error ("stream:await" -> "stream:await timeout")
--   timeout  the option as given (default 10 s)
--   next     function(after, remaining_ms) -> the first message after seq `after`, or nil
--   ended    function() -> kind, message, extra: the error when next gave nothing (closed, or
--            out of time)
--   refuse   (optional) function(msg) -> kind, message, response for a message that ends the
--            wait with an error, nothing for one that may be awaited
--   match    the user's match function (optional), asked about returns(msg)
--   returns  (optional) function(msg) -> what the await returns; default: the message
--   level    the user's line, as error() counts from here: 2 (the default) when the caller's
--            await reaches this by tail calls only, 3 when a method calls it and goes on
-- The message taken is consumed (c.consume), and its seq, the C half's cursor, taken off it.
function S.await(h, w)
  local level = w.level or 2
  local deadline = now() + (S.duration_ms(w.timeout, w.what .. " timeout", level) or 10000)
  local returns = w.returns or the_message
  local after = 0
  while true do
    local msg = w.next(after, deadline - now())
    if not msg then
      local kind, message, extra = w.ended()
      errors.raise(kind, message, nil, level, extra)
    end
    if w.refuse then
      local kind, message, response = w.refuse(msg)
      if kind then errors.raise(kind, message, response, level) end
    end
    if not w.match or w.match(returns(msg)) then
      c.consume(h, msg.seq)
      msg.seq = nil
      return returns(msg)
    end
    after = msg.seq
  end
end

return S
