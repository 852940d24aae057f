-- {{name}}: a Stampede scenario for a plain WebSocket endpoint (made by `stampede new --websocket`).
--
-- For a WebSock handler (or any WebSocket server) that answers text messages. For Phoenix
-- Channels, `stampede new NAME --channels` is the better start: it speaks their protocol.
-- The path below is the echo endpoint of `stampede target`; change it to yours.
--
--   stampede run {{path}}
--
-- Every function and option: {{docs}}/reference/lua.md
local stampede = require "stampede"
local websocket = require "stampede.websocket"

local BASE = stampede.env("BASE_URL", "{{url}}")
local PATH = "/ws"

-- (a local with its type, so editors complete the options and `vu`)
---@type stampede.Scenario
local scenario = {
  name = "{{name}}",
  options = {
    vus = 10,
    duration = "30s",
    thresholds = {
      { "ws.connect", p95 = 500 },        -- TCP connect and the upgrade handshake, ms
      { "message.roundtrip", p95 = 100 }, -- our own timing, below
      { "ws.connect.errors", count = 0 },
      { "iteration.errors", count = 0 },
    },
  },

  run = function(vu)
    -- http:// becomes ws://, https:// becomes wss://.
    local ws = websocket.connect((BASE:gsub("^http", "ws")) .. PATH)
    for i = 1, 5 do
      local text = ("hello %d from %d"):format(i, vu.id)
      stampede.measure("message.roundtrip", function()
        ws:send(text)
        local msg = ws:await({ match = function(m) return m.data == text end, timeout = "5s" })
        stampede.check("echoed", msg.data == text)
      end)
      stampede.sleep("200ms")
    end
    ws:close()
  end,
}

return scenario
