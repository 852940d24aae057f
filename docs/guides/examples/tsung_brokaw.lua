-- Tsung's brokaw.xml (a Phoenix Presence load test) rewritten for Stampede; see
-- docs/guides/coming-from-k6-or-tsung.md.
--
-- What it exercises: many users join one topic whose channel tracks them with
-- Phoenix.Presence, so every join (and every leave) becomes a presence_diff sent to every
-- user on the topic, and each joiner receives the whole presence_state. The cost grows with
-- the square of the users: the interesting figure is how long a new user takes to appear.
--
-- Users arrive at a fixed rate and stay online for HOLD with heartbeats, like Tsung's
-- session (connect, phx_join with the user's id, heartbeat loop).
local stampede = require "stampede"
local channels = require "stampede.channels"

local BASE = stampede.env("BASE_URL", "http://localhost:4000")
local TOPIC = stampede.env("TOPIC", "presence:lobby")
local HOLD = stampede.env("HOLD", "10m")

-- (a local with its type, so editors complete the options and `vu`)
---@type stampede.Scenario
local scenario = {
  name = "Tsung.BrokawPresence",
  options = {
    rate = 100,               -- users arriving per second
    duration = "5m",          -- 30,000 users on one topic at the end
    max_vus = 40000,
    thresholds = {
      { "channel.join", p95 = 500 },
      { "presence.visible", p95 = 2000 },
      { "channel.join.errors", count = 0 },
      { "iterations.dropped", count = 0 },
    },
  },
  run = function(vu)
    local me = "user-" .. vu.id
    local socket = channels.connect(BASE .. "/socket", { heartbeat = "30s", buffer = 10000 })
    local presence = channels.presence(socket, TOPIC)
    local t0 = stampede.now()
    socket:join(TOPIC, { user_id = me })
    presence:await_user(me, { timeout = "30s" })
    stampede.record("presence.visible", stampede.now() - t0)
    stampede.sleep(HOLD)
  end,
}

return scenario
