-- Phoenix Presence (docs/guides/phoenix-presence.md): every user joins one topic with
-- Presence tracking and waits until the others can see them.
local stampede = require "stampede"
local channels = require "stampede.channels"

local BASE = stampede.env("BASE_URL", "http://localhost:4000")
local TOPIC = stampede.env("TOPIC", "presence:lobby")

-- (a local with its type, so editors complete the options and `vu`)
---@type stampede.Scenario
local scenario = {
  name = "Presence",
  options = {
    stages = { { "20s", 200 }, { "40s", 200 }, { "10s", 0 } },
    thresholds = {
      { "channel.join", p95 = 250 },
      { "presence.visible", p95 = 1000 },  -- join sent -> our own entry in the synced list
      { "channel.join.errors", count = 0 },
      { "iteration.errors", count = 0 },
    },
  },
  run = function(vu)
    local me = ("user-%d-%d"):format(vu.id, vu.iteration)
    local socket = channels.connect(BASE .. "/socket")
    local presence = channels.presence(socket, TOPIC)  -- tracking starts now: nothing is missed
    local t0 = stampede.now()
    socket:join(TOPIC, { user_id = me })
    local list = presence:await_user(me, { timeout = "5s" })
    stampede.record("presence.visible", stampede.now() - t0)
    local others = 0
    for _ in pairs(list) do others = others + 1 end
    stampede.record("presence.size", others)   -- how many users this one sees (a count, shown as ms)
    stampede.sleep(stampede.env("HOLD", "2s"))  -- stay online; leaving is a presence_diff for everyone
  end,
}

return scenario
