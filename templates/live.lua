-- {{name}}: a Stampede scenario for a Phoenix LiveView (made by `stampede new --live`).
--
-- Each iteration is one browser tab: it GETs the page, opens the LiveView socket
-- ("/live", as in endpoint.ex), joins, and clicks. The page and the event below are the
-- counter of `stampede target` (try: stampede target --listen 127.0.0.1:4000);
-- change them to one of your LiveViews and one of its phx-click events.
--
--   stampede run {{path}}
--
-- Every function and option: {{docs}}/reference/lua.md
-- Pages behind a login: {{docs}}/guides/pages-behind-a-login.md
local stampede = require "stampede"
local live = require "stampede.liveview"

local BASE = stampede.env("BASE_URL", "{{url}}")
local PAGE = "/counter"   -- a path served by `live "/counter", CounterLive` in your router
local EVENT = "inc"       -- a phx-click="inc" on that page

-- (a local with its type, so editors complete the options and `vu`)
---@type stampede.Scenario
local scenario = {
  name = "{{name}}",
  options = {
    vus = 10,
    duration = "30s",
    thresholds = {
      { "live.page", p95 = 500 },    -- the page's GET (the "dead" render), ms
      { "live.join", p95 = 250 },    -- joining the LiveView over its socket
      { "live.event", p95 = 250 },   -- a click to its reply (the diff)
      { "live.join.errors", count = 0 },
      { "iteration.errors", count = 0 },
    },
  },

  run = function(vu)
    local view = live.connect(BASE .. PAGE)
    stampede.check("page has a title", view:title() ~= nil)
    for _ = 1, 3 do
      view:click(EVENT)           -- the value sent is read from the element, as a browser does
      stampede.sleep("300ms")     -- a user does not click in a tight loop
    end
    -- view:text("#count"), view:change("validate", {...}), view:submit("save", {...}): see the reference.
  end,
}

return scenario
