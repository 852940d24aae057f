-- The Lua half of `stampede.channels` (src/scenario/module_channels.cpp holds the C half and
-- passes its functions in as `c`, and the streaming clients' shared half, stream_client.lua, as
-- `stream`): the user-facing methods, and the error objects their failures become. No protocol
-- here: topics, payloads and replies are the C++ clients' (clients/channels_socket.hpp,
-- clients/absinthe_client.hpp). Embedded at build time (cmake/ScenarioLua.cmake),
-- syntax-checked by luac5.1 (test_docs_reference.py) and tested with a stand-in `c`
-- (tests/unit/scenario/module_lua_test.cpp).
local c, stream = ...
local errors = require "stampede.error"
local json = require "stampede.json"
local now = require("stampede").now
local duration_ms = stream.duration_ms

local M = {}
local Socket = {}
Socket.__index = Socket

local Binary = {}
Binary.__index = Binary
-- channels.binary(data): send `data` as a V2 binary frame instead of JSON.
function M.binary(data)
  assert(type(data) == "string", "channels.binary(data): data must be a string")
  return setmetatable({ data = data }, Binary)
end
local function split_payload(payload)
  if getmetatable(payload) == Binary then return payload.data, true end
  return payload, false
end

function M.connect(url, opts)
  local handle = stream.connected("channels.connect", c.connect(url, opts))
  return setmetatable({ _h = handle, url = url }, Socket)
end

-- (ok, status, response, failure, message, raw) from C -> the response, or an error object.
local function outcome(what, ok, status, response, failure, message, raw, level)
  if ok then return response end
  level = (level or 2) + 1
  if failure == "" then
    local text = raw ~= "" and raw or status
    local kind = what:find("join", 1, true) and "join_error" or (what:find("leave", 1, true) and "leave_error" or "push_error")
    local verb = kind == "join_error" and "refused" or ("replied " .. status)
    errors.raise(kind, what .. " " .. verb .. ": " .. text, response, level, { status = status })
  end
  errors.raise(failure, what .. ": " .. message, nil, level)
end

function Socket:join(topic, payload, opts)
  opts = opts or {}
  local timeout = duration_ms(opts.timeout, "socket:join timeout", 2)
  return outcome("channel.join " .. topic, c.join(self._h, topic, payload, timeout))
end

function Socket:push(topic, event, payload, opts)
  opts = opts or {}
  local data, binary = split_payload(payload)
  local timeout = duration_ms(opts.timeout, "socket:push timeout", 2)
  return outcome("channel.push " .. topic .. " " .. event, c.push(self._h, topic, event, data, binary, timeout))
end

function Socket:leave(topic, opts)
  opts = opts or {}
  local timeout = duration_ms(opts.timeout, "socket:leave timeout", 2)
  return outcome("channel.leave " .. topic, c.leave(self._h, topic, timeout))
end

function Socket:cast(topic, event, payload)
  local data, binary = split_payload(payload)
  c.cast(self._h, topic, event, data, binary)
end

-- stream.await over `next(after, remaining)`: `returns(msg)` is what the await returns and
-- what `match` is asked about. Reached by tail calls only, so that level 2 of its errors is the
-- user's line.
local function await_loop(h, what, label, timeout, next, match, returns)
  return stream.await(h, {
    what = what,
    timeout = timeout,
    match = match,
    next = next,
    ended = function()
      if c.is_open(h) then return "timeout", what .. " " .. label .. ": nothing matching arrived in time" end
      return "closed", what .. " " .. label .. ": the socket closed"
    end,
    returns = returns,
  })
end

local function payload_and_message(msg) return msg.payload, msg end

-- await(topic, event, {match = fn(payload, msg), timeout = ...}) -> payload, msg
function Socket:await(topic, event, opts)
  opts = opts or {}
  local h = self._h
  return await_loop(h, "socket:await", topic .. " " .. (event or "*"), opts.timeout,
    function(after, remaining) return c.next(h, topic, event or "", after, remaining) end,
    opts.match, payload_and_message)
end

function Socket:close() c.close(self._h) end
function Socket:is_open() return c.is_open(self._h) end

-- Presence -------------------------------------------------------------------------------
local Presence = {}
Presence.__index = Presence

function M.presence(socket, topic)
  local p = setmetatable({ socket = socket, topic = topic }, Presence)
  c.presence_list(socket._h, topic)  -- starts tracking now: nothing received since the join is lost
  return p
end

function Presence:list()
  local list = c.presence_list(self.socket._h, self.topic)
  return list
end

-- Reached by tail calls only, so that level 2 of its errors is the user's line.
local function await_presence(self, fn, opts, what)
  opts = opts or {}
  local budget = duration_ms(opts.timeout, what .. " timeout", 2) or c.default_timeout(self.socket._h)
  local deadline = now() + budget
  while true do
    local list, version = c.presence_list(self.socket._h, self.topic)
    if fn(list) then return list end
    local remaining = deadline - now()
    if remaining <= 0 or not c.presence_wait(self.socket._h, self.topic, version, remaining) then
      errors.raise("timeout", what .. " " .. self.topic .. ": the condition did not become true in time", nil, 2)
    end
  end
end

function Presence:await(fn, opts)
  return await_presence(self, fn, opts, "presence:await")
end

function Presence:await_user(id, opts)
  id = tostring(id)
  return await_presence(self, function(list) return list[id] ~= nil end, opts, "presence:await_user")
end

-- Absinthe ---------------------------------------------------------------------------------
local Absinthe = {}
Absinthe.__index = Absinthe
local CONTROL = c.ABSINTHE_CONTROL
local DOC = "channel.push " .. CONTROL .. " doc"

function M.absinthe(socket, opts)
  opts = opts or {}
  local timeout = duration_ms(opts.timeout, "socket:join timeout", 2)
  outcome("channel.join " .. CONTROL, c.absinthe_join(socket._h, timeout))
  return setmetatable({ socket = socket }, Absinthe)
end

-- subscribe(query, variables) -> subscriptionId
function Absinthe:subscribe(query, variables, opts)
  opts = opts or {}
  local timeout = duration_ms(opts.timeout, "socket:push timeout", 2)
  local ok, status, response, failure, message, raw, id = c.absinthe_doc(self.socket._h, query, variables, timeout)
  response = outcome(DOC, ok, status, response, failure, message, raw)
  if not id then
    errors.raise("subscription_error", "absinthe doc did not start a subscription: " .. json.encode(response), response, 2)
  end
  return id
end

local function result_and_payload(msg) return msg.result, msg.payload end

-- await(subscription_id, {match = fn(result, payload), timeout}) -> the GraphQL result of the
-- next data push, and the push's payload
function Absinthe:await(subscription_id, opts)
  opts = opts or {}
  local h = self.socket._h
  return await_loop(h, "absinthe:await", subscription_id, opts.timeout,
    function(after, remaining) return c.absinthe_next(h, subscription_id, after, remaining) end,
    opts.match, result_and_payload)
end

function Absinthe:unsubscribe(subscription_id, opts)
  opts = opts or {}
  local timeout = duration_ms(opts.timeout, "socket:push timeout", 2)
  return outcome("channel.push " .. CONTROL .. " unsubscribe", c.absinthe_unsubscribe(self.socket._h, subscription_id, timeout))
end

-- Absinthe queries and mutations over the socket: the reply carries the data.
function Absinthe:run(query, variables, opts)
  opts = opts or {}
  local timeout = duration_ms(opts.timeout, "socket:push timeout", 2)
  local ok, status, response, failure, message, raw = c.absinthe_doc(self.socket._h, query, variables, timeout)
  return outcome(DOC, ok, status, response, failure, message, raw)
end

return M
