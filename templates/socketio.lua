-- {{name}}: a Stampede scenario for a Socket.IO v4 server (made by `stampede new --socketio`).
--
-- Connects to a namespace over the WebSocket transport (give `transport = "polling"` to open
-- by long-polling and upgrade, as socket.io-client does by default), emits an event with an
-- acknowledgement and awaits the server's answer. The event names are examples: change them
-- to your app's.
--
--   stampede run {{path}}
--   BASE_URL=http://127.0.0.1:3000 stampede run {{path}} --vus 500 --duration 2m
--
-- Every function and option: {{docs}}/reference/lua.md
local stampede = require "stampede"
local sio = require "stampede.socketio"

local BASE = stampede.env("BASE_URL", "{{url}}")
local NAMESPACE = "/"

-- (a local with its type, so editors complete the options and `vu`)
---@type stampede.Scenario
local scenario = {
  name = "{{name}}",
  options = {
    vus = 10,
    duration = "30s",
    thresholds = {
      { "socketio.connect", p95 = 500 },   -- handshake and the namespace's CONNECT, ms
      { "socketio.emit", p95 = 250 },      -- an emit to its acknowledgement
      { "socketio.errors", count = 0 },
      { "iteration.errors", count = 0 },
    },
  },

  run = function(vu)
    local io = sio.connect(BASE, { namespace = NAMESPACE, auth = { user = "vu-" .. vu.id } })
    for i = 1, 5 do
      local text = ("hello %d from vu %d"):format(i, vu.id)
      local ack = io:emit("message", { text = text }, { ack = true, timeout = "5s" })
      stampede.check("acknowledged", ack ~= nil)
      local msg = io:await("message", { match = function(m) return m.text == text end, timeout = "5s" })
      stampede.check("answered", msg.text == text)
      stampede.sleep("200ms")
    end
    io:close()
  end,
}

return scenario
