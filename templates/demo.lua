-- The scenario of `stampede demo`: a chat room over Phoenix Channels and a LiveView
-- counter, against the built-in target that `stampede demo` starts in the same process.
-- {{url}}, {{ramp}}, {{hold}} and {{down}} are filled in by the demo (--duration).
local stampede = require "stampede"
local channels = require "stampede.channels"
local live = require "stampede.liveview"

local BASE = "{{url}}"

-- (a local with its type, so editors complete the options and `vu`)
---@type stampede.Scenario
local scenario = {
  name = "Demo.ChatAndCounter",
  options = {
    stages = { { "{{ramp}}", 20 }, { "{{hold}}", 20 }, { "{{down}}", 0 } },
    thresholds = {
      { "channel.join", p95 = 250 },
      { "broadcast.roundtrip", p95 = 250 },
      { "live.join", p95 = 250 },
      { "live.event", p95 = 250 },
      { "count goes up", failed_rate = 0.01 },
      { "iteration.errors", count = 0 },
    },
  },

  run = function(vu)
    -- A chat user: joins the lobby and waits for their own message to come back.
    local socket = channels.connect(BASE .. "/socket", { params = { user_id = tostring(vu.id) } })
    socket:join("room:lobby")
    local body = ("hi from %d (%d)"):format(vu.id, vu.iteration)
    stampede.measure("broadcast.roundtrip", function()
      socket:push("room:lobby", "new_msg", { body = body })
      socket:await("room:lobby", "new_msg", { match = function(p) return p.body == body end })
    end)

    -- The same user in a LiveView tab: the page, the join, two clicks.
    local view = live.connect(BASE .. "/counter")
    view:click("inc")
    local reply = view:click("inc")
    stampede.check("count goes up", reply ~= nil and reply.count == 2)
    stampede.sleep(math.random(100, 300))
  end,
}

return scenario
