-- {{name}}: a Stampede scenario for Phoenix Channels (made by `stampede new --channels`).
--
-- It speaks to the socket of the Phoenix guide's chat example:
--   socket "/socket", MyAppWeb.UserSocket            (endpoint.ex)
--   channel "room:*", MyAppWeb.RoomChannel           (user_socket.ex)
-- where "new_msg" broadcasts %{body: ...} to the room. Change the topic and events to yours.
--
--   stampede run {{path}}
--   BASE_URL=http://127.0.0.1:4000 stampede run {{path}} --vus 500 --duration 2m
--
-- Every function and option: {{docs}}/reference/lua.md
local stampede = require "stampede"
local channels = require "stampede.channels"

local BASE = stampede.env("BASE_URL", "{{url}}")
local TOPIC = "room:lobby"

-- (a local with its type, so editors complete the options and `vu`)
---@type stampede.Scenario
local scenario = {
  name = "{{name}}",
  options = {
    -- Ramp up to 50 users, hold, ramp down: each stage moves the user count in a line.
    -- `--vus N --duration D` on the command line replaces them (N users throughout).
    stages = { { "10s", 50 }, { "30s", 50 }, { "5s", 0 } },
    thresholds = {
      { "ws.connect", p95 = 500 },                 -- the socket's handshake, ms
      { "channel.join", p95 = 250 },               -- phx_join to its reply
      { "broadcast.roundtrip", p95 = 500 },        -- our own timing, below
      { "channel.join.errors", count = 0 },
      { "iteration.errors", count = 0 },
    },
  },

  run = function(vu)
    -- "/websocket" and "vsn" are added as phoenix.js does; params reach UserSocket.connect/3.
    local socket = channels.connect(BASE .. "/socket", { params = { user_id = tostring(vu.id) } })
    socket:join(TOPIC, {})

    -- A message to the room, timed until our own broadcast comes back to us.
    stampede.measure("broadcast.roundtrip", function()
      socket:push(TOPIC, "new_msg", { body = "hello from " .. vu.id })
      socket:await(TOPIC, "new_msg", {
        match = function(payload) return payload.body == "hello from " .. vu.id end,
        timeout = "5s",
      })
    end)

    stampede.sleep("1s")  -- stay in the room a while (the socket heartbeats meanwhile)
    -- The socket is closed when the iteration ends, however it ends.
  end,
}

return scenario
