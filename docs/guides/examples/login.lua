-- Pages behind a login (docs/guides/pages-behind-a-login.md): log in once per VU, then
-- load the LiveView that needs the session. Against `stampede target`, /login?user=NAME
-- puts the user in the session and redirects to /dashboard ("Hello NAME").
local stampede = require "stampede"
local http = require "stampede.http"
local live = require "stampede.liveview"

local BASE = stampede.env("BASE_URL", "http://localhost:4000")

-- (a local with its type, so editors complete the options and `vu`)
---@type stampede.Scenario
local scenario = {
  name = "PagesBehindALogin",
  options = {
    vus = 10,
    duration = "30s",
    thresholds = {
      { "live.join", p95 = 250 },
      { "logged in", failed_rate = 0 },
      { "iteration.errors", count = 0 },
    },
  },
  run = function(vu)
    local user = "user" .. vu.id
    if vu.iteration == 0 then
      -- The session cookie stays in this VU's jar for every later iteration.
      local res = http.get(BASE .. "/login?user=" .. user, { name = "login" })
      stampede.check("login answered", res.status == 200)
    end
    local view = live.connect(BASE .. "/dashboard")
    stampede.check("logged in", view:text("#greeting") == "Hello " .. user)
    stampede.sleep("500ms")
  end,
}

return scenario
