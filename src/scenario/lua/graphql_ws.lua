-- The Lua half of `stampede.graphql_ws` (src/scenario/module_graphql_ws.cpp holds the C half
-- and passes its functions in as `c`, and the streaming clients' shared half,
-- stream_client.lua, as `stream`): the Client methods and the error objects their failures
-- become. Embedded at build time (cmake/ScenarioLua.cmake), syntax-checked by luac5.1
-- (test_docs_reference.py) and tested with a stand-in `c`
-- (tests/unit/scenario/module_lua_test.cpp).
local c, stream = ...
local errors = require "stampede.error"
local json = require "stampede.json"

local M = {}
local Client = {}
Client.__index = Client

function M.connect(url, opts)
  local handle, ack = stream.connected("graphql_ws.connect", c.connect(url, opts))
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

local function payload_of(msg) return msg.payload end

-- The next result of operation `id`. An operation's end stays kept: every later await on it
-- sees it too. `level`: as stream.await's (2 for a tail call from the user's method).
local function await_result(self, id, opts, what, level)
  opts = opts or {}
  local h = self._h
  return stream.await(h, {
    what = what,
    timeout = opts.timeout,
    match = opts.match,
    level = level,
    next = function(after, remaining) return c.next(h, id, after, remaining) end,
    ended = function()
      local closed, why = c.closed(h)
      if closed then return "closed", what .. " " .. id .. ": the connection closed (" .. why .. ")" end
      return "timeout", what .. " " .. id .. ": no result arrived in time"
    end,
    refuse = function(msg)
      if msg.kind == "error" then
        return "graphql_error", what .. " " .. id .. ": the server answered with an error: " ..
          json.encode(msg.payload), msg.payload
      end
      if msg.kind == "complete" then return "complete", what .. " " .. id .. ": the operation completed" end
    end,
    returns = payload_of,
  })
end

-- await(id, {match = fn, timeout = "5s"}) -> the next result ({data = ..., errors = ...})
function Client:await(id, opts)
  return await_result(self, id, opts, "client:await", 2)
end

-- query(query, {variables =, ...}) -> the result of a query or mutation
function Client:query(query, opts)
  local id = self:subscribe(query, opts)
  local result = await_result(self, id, opts, "client:query", 3)
  c.complete(self._h, id)
  return result
end

function Client:unsubscribe(id) c.complete(self._h, id) end
function Client:complete(id) c.complete(self._h, id) end
function Client:finished(id) return c.finished(self._h, id) end
function Client:close() c.close(self._h) end
function Client:is_open() return c.is_open(self._h) end

return M
