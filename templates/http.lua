-- {{name}}: a Stampede scenario for the HTTP side of a Phoenix app (made by `stampede new`).
--
--   stampede run {{path}}                         # the load in `options` below
--   stampede run {{path}} --vus 50 --duration 1m  # or say it on the command line
--   BASE_URL=https://staging.example.com stampede run {{path}}
--
-- Every function and option: {{docs}}/reference/lua.md
-- Editor completion: the `.luarc.json` that `stampede new` wrote points your editor (LuaLS)
-- at Stampede's type definitions.
local stampede = require "stampede"
local http = require "stampede.http"

-- Where your app listens. `mix phx.server` serves http://localhost:4000.
local BASE = stampede.env("BASE_URL", "{{url}}")

-- (a local with its type, so editors complete the options and `vu`)
---@type stampede.Scenario
local scenario = {
  name = "{{name}}",
  options = {
    -- 10 virtual users, each doing `run` again and again for 30 seconds (the closed model).
    -- For requests per second instead: rate = 100, duration = "30s" (the open model).
    vus = 10,
    duration = "30s",
    -- The run fails (exit status 1) when one of these does not hold: a CI gate.
    thresholds = {
      { "http.request", p95 = 500, max = 2000 },  -- milliseconds
      { "status is 200", failed_rate = 0.01 },    -- at most 1% of the checks fail
      { "iteration.errors", count = 0 },           -- no Lua errors in `run`
    },
  },

  -- One iteration of one virtual user: what one visitor does.
  run = function(vu)
    local res = http.get(BASE .. "/", { name = "home" })
    stampede.check("status is 200", res.status == 200)
    stampede.sleep("500ms")  -- think time: a user reads the page
  end,
}

return scenario
