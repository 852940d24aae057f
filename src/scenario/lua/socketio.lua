-- The Lua half of `stampede.socketio` (src/scenario/module_socketio.cpp holds the C half and
-- passes its functions in as `c`, and the streaming clients' shared half, stream_client.lua, as
-- `stream`): the Socket methods, the argument lists, and the error objects failures become.
-- Embedded at build time (cmake/ScenarioLua.cmake), syntax-checked by luac5.1
-- (test_docs_reference.py) and tested with a stand-in `c`
-- (tests/unit/scenario/module_lua_test.cpp).
local c, stream = ...
local errors = require "stampede.error"

local M = {}
local Socket = {}
Socket.__index = Socket

-- sio.binary(bytes): sent as a binary attachment, not as a JSON string.
function M.binary(bytes)
  assert(type(bytes) == "string", "socketio.binary(bytes): bytes must be a string")
  return setmetatable({ data = bytes }, c.Binary)
end

-- sio.args(a, b, ...): several arguments for one emit (or ack).
local Args = {}
function M.args(...)
  return setmetatable({ n = select("#", ...), ... }, Args)
end
local function arg_list(data)
  if data == nil then return {} end
  if getmetatable(data) == Args then
    local list = {}
    for i = 1, data.n do list[i] = data[i] end
    return list
  end
  return { data }
end

-- The namespace of a URL's path, as socket.io-client reads io("http://host/chat").
local function url_namespace(url)
  local path = url:match("^%a+://[^/?#]+(/[^?#]*)")
  if path == nil or path == "" or path == "/" then return "/" end
  return path
end

function M.connect(url, opts)
  opts = opts or {}
  local nsp = opts.namespace or url_namespace(url)
  local base = url:match("^(%a+://[^/?#]+)") or url
  local handle, sid = stream.connected("socketio.connect", c.connect(base, opts, nsp))
  return setmetatable({ _h = handle, namespace = nsp, id = sid, url = url }, Socket)
end

-- of(namespace, {auth = ...}): another namespace on the same connection.
function Socket:of(nsp, opts)
  opts = opts or {}
  local sid, message, reason = c.join(self._h, nsp, opts.auth)
  if not sid then errors.raise("connect_error", "socket:of " .. nsp .. ": " .. message, nil, 2, { reason = reason }) end
  return setmetatable({ _h = self._h, namespace = nsp, id = sid, url = self.url }, Socket)
end

-- emit(event, data, {ack = true, timeout = "5s"}) -> the ack's arguments (with ack)
function Socket:emit(event, data, opts)
  opts = opts or {}
  local timeout = stream.duration_ms(opts.timeout, "socket:emit timeout", 2)
  if not opts.ack then
    c.emit(self._h, self.namespace, event, arg_list(data), false)
    return
  end
  local args, message, reason = c.emit(self._h, self.namespace, event, arg_list(data), true, timeout)
  if not args then
    errors.raise(reason == "ack timeout" and "timeout" or "closed", "socket:emit " .. event .. ": " .. message, nil, 2,
      { reason = reason })
  end
  return unpack(args)
end

local function first_argument(msg) return msg.args[1], msg end

-- await(event, {match = fn, timeout = "5s"}) -> the first argument, and the message
-- {event=, args=, namespace=, ack_id=}. match(first_argument, message).
function Socket:await(event, opts)
  opts = opts or {}
  local h, nsp = self._h, self.namespace
  return stream.await(h, {
    what = "socket:await",
    timeout = opts.timeout,
    match = opts.match,
    next = function(after, remaining) return c.next(h, nsp, event, after, remaining) end,
    ended = function()
      local reason = c.disconnect_reason(h, nsp)
      if reason then
        return "closed", "socket:await " .. (event or "*") .. ": disconnected (" .. reason .. ")", { reason = reason }
      end
      return "timeout", "socket:await " .. (event or "*") .. ": nothing matching arrived in time"
    end,
    returns = first_argument,
  })
end

-- ack(message, data): answers an event the server sent with an ack callback.
function Socket:ack(msg, data)
  if type(msg) ~= "table" or msg.ack_id == nil then error("socket:ack: the message does not ask for an ack", 2) end
  c.ack(self._h, msg.namespace or self.namespace, msg.ack_id, arg_list(data))
end

function Socket:disconnect() c.leave(self._h, self.namespace) end
function Socket:close() c.close(self._h) end
function Socket:connected() return c.connected(self._h, self.namespace) end
function Socket:disconnect_reason() return c.disconnect_reason(self._h, self.namespace) end

return M
