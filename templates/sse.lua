-- {{name}}: a Stampede scenario for a Server-Sent Events stream (made by `stampede new --sse`).
--
-- Opens a text/event-stream as a browser's EventSource does (reconnecting with
-- Last-Event-ID when the server ends the stream) and awaits its events. The path below is the
-- event stream of `stampede target` (10 events a second); change it to yours.
--
--   stampede run {{path}}
--   BASE_URL=http://127.0.0.1:4000 stampede run {{path}} --vus 500 --duration 2m
--
-- Every function and option: {{docs}}/reference/lua.md
local stampede = require "stampede"
local sse = require "stampede.sse"

local BASE = stampede.env("BASE_URL", "{{url}}")
local PATH = "/events?rate=10"

-- (a local with its type, so editors complete the options and `vu`)
---@type stampede.Scenario
local scenario = {
  name = "{{name}}",
  options = {
    vus = 10,
    duration = "30s",
    thresholds = {
      { "sse.connect", p95 = 500 },       -- connect and the response head, ms
      { "event.wait", p95 = 1000 },       -- our own timing, below
      { "sse.errors", count = 0 },
      { "iteration.errors", count = 0 },
    },
  },

  run = function(vu)
    local stream = sse.connect(BASE .. PATH, { headers = { ["user-agent"] = "stampede vu " .. vu.id } })
    local last = 0
    for _ = 1, 10 do
      stampede.measure("event.wait", function()
        local ev = stream:await({ timeout = "5s" })      -- {event=, data=, id=}
        stampede.check("ids go up", tonumber(ev.id) == nil or tonumber(ev.id) > last)
        last = tonumber(ev.id) or last
      end)
    end
    stream:close()
  end,
}

return scenario
