local c = ...
local errors = require "stampede.error"
local json = require "stampede.json"
local now = require("stampede").now

local M = {}
local Client = {}
Client.__index = Client

local function duration_ms(value, what, level)
  if value == nil then return nil end
  local ok, result = pcall(c.duration_ms, value, what)
  if not ok then error(result, level + 1) end
  return result
end

function M.connect(url, opts)
  local handle, ack, reason, status = c.connect(url, opts)
  if not handle then
    errors.raise("connect_error", "graphql_ws.connect " .. ack, nil, 2, { reason = reason, status = status })
  end
  return setmetatable({ _h = handle, url = url, ack = ack }, Client)
end

-- subscribe(query, {variables =, operation_name =, extensions =}) -> id
function Client:subscribe(query, opts)
  opts = opts or {}
  local ok, id = pcall(c.subscribe, self._h, query, opts.variables, opts.operation_name, opts.extensions)
  if not ok then
    if not c.is_open(self._h) then errors.raise("closed", "client:subscribe: " .. tostring(id), nil, 2) end
    error("client:subscribe: " .. tostring(id), 2)
  end
  return id
end

-- Reached by tail calls only, so that level 2 of its errors is the user's line.
local function await_result(self, id, opts, what)
  opts = opts or {}
  local deadline = now() + (duration_ms(opts.timeout, what .. " timeout", 3) or 10000)
  local after = 0
  while true do
    local msg = c.next(self._h, id, after, deadline - now())
    if not msg then
      local closed, why = c.closed(self._h)
      if closed then errors.raise("closed", what .. " " .. id .. ": the connection closed (" .. why .. ")", nil, 3) end
      errors.raise("timeout", what .. " " .. id .. ": no result arrived in time", nil, 3)
    end
    -- An operation's end stays kept: every later await on it sees it too.
    if msg.kind == "error" then
      errors.raise("graphql_error", what .. " " .. id .. ": the server answered with an error: " ..
        json.encode(msg.payload), msg.payload, 3)
    end
    if msg.kind == "complete" then
      errors.raise("complete", what .. " " .. id .. ": the operation completed", nil, 3)
    end
    if not opts.match or opts.match(msg.payload) then
      c.consume(self._h, msg.seq)
      return msg.payload
    end
    after = msg.seq
  end
end

-- await(id, {match = fn, timeout = "5s"}) -> the next result ({data = ..., errors = ...})
function Client:await(id, opts)
  return await_result(self, id, opts, "client:await")
end

-- query(query, {variables =, ...}) -> the result of a query or mutation
function Client:query(query, opts)
  local id = self:subscribe(query, opts)
  local result = await_result(self, id, opts, "client:query")
  c.complete(self._h, id)
  return result
end

function Client:unsubscribe(id) c.complete(self._h, id) end
function Client:complete(id) c.complete(self._h, id) end
function Client:finished(id) return c.finished(self._h, id) end
function Client:close() c.close(self._h) end
function Client:is_open() return c.is_open(self._h) end

return M
