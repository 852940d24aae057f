-- Tsung's phoenix.xml (the "2 million WebSocket connections" benchmark of the Phoenix team)
-- rewritten for Stampede; see docs/guides/coming-from-k6-or-tsung.md.
--
-- What the Tsung file does, as its authors described it: users arrive at a fixed rate
-- (an <arrivalphase> with <users arrivalrate=.../>), each opens /socket/websocket, sends a
-- phx_join for "rooms:lobby", then loops forever sending a heartbeat every 30 s
-- (<for> ... <thinktime value="30"/> ... heartbeat), so connections only accumulate.
--
-- Here: an open model (`rate`: users arriving per second) whose iterations are the users;
-- each holds its socket for HOLD, the client sends phoenix.js's heartbeats by itself.
-- One machine gives ~64k connections per source address: spread them with
-- --local-addresses, and over machines with MPI (docs/guides/spreading-the-load.md).
local stampede = require "stampede"
local channels = require "stampede.channels"

local BASE = stampede.env("BASE_URL", "http://localhost:4000")
local TOPIC = stampede.env("TOPIC", "rooms:lobby")  -- the chat example's topic
local HOLD = stampede.env("HOLD", "40m")   -- longer than the arrivals: everyone is online at the end
local HEARTBEAT = stampede.env("HEARTBEAT", "30s")  -- phoenix.js's interval, as in the Tsung file

-- (a local with its type, so editors complete the options and `vu`)
---@type stampede.Scenario
local scenario = {
  name = "Tsung.Phoenix2M",
  options = {
    rate = 1000,              -- users per second, Tsung's arrivalrate
    duration = "34m",         -- 2,000,000 users at 1,000/s
    max_vus = 2100000,        -- every user is in flight at once (they hold their socket)
    local_addresses = stampede.env("LOCAL_ADDRESSES", nil),
    thresholds = {
      { "ws.connect", p95 = 1000 },
      { "channel.join", p95 = 1000 },
      { "channel.heartbeat", p95 = 1000 },
      { "ws.connect.errors", count = 0 },
      { "channel.join.errors", count = 0 },
      { "iterations.dropped", count = 0 },
    },
  },
  run = function(vu)
    local socket = channels.connect(BASE .. "/socket", { heartbeat = HEARTBEAT })
    socket:join(TOPIC, { user = tostring(vu.id) })
    stampede.sleep(HOLD)
  end,
}

return scenario
