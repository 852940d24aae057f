-- Recorded.LiveView020: a scenario recorded from http://127.0.0.1:4000 on 2026-11-30T05:45:19.462Z
-- (HAR 1.2 from WebInspector 537.36), made by `stampede convert lv-0.20.har`.
-- Recorded: 6 pages, 6 LiveViews, 19 LiveView events, 1 live navigation, 1 upload.
-- Left out: 19 static assets (--keep-static), 6 heartbeats, 10 frames the clients send by
-- themselves (joins of nested views and uploads, progress, leaves, chunks).
-- Not hard-coded: 12 per-session values (CSRF and session tokens, join refs: the clients read this
-- session's at run time).
--
--   stampede run loadtest/recorded.lua --vus 50 --duration 1m
--
-- Every function and option: docs/reference/lua.md
local stampede = require "stampede"
local live = require "stampede.liveview"

-- Where the app listens: BASE_URL=https://staging.example.com stampede run ...
local BASE = stampede.env("BASE_URL", "http://127.0.0.1:4000")

-- A LiveView action that navigated when it was recorded (push_navigate, redirect): run it
-- and follow where it leads, as the browser did. Returns the view.
local function follow(view, action, ...)
  local ok, err = pcall(view[action], view, ...)
  if ok then error(action .. " did not navigate away as it did when recorded", 2) end
  if type(err) == "table" and (err.kind == "live_redirect" or err.kind == "redirect") then
    return view:follow(err)
  end
  error(err, 0)
end

-- (a local with its type, so editors complete the options and `vu`)
---@type stampede.Scenario
local scenario = {
  name = "Recorded.LiveView020",
  options = {
    -- `stampede run FILE --vus 50 --duration 1m` replaces these.
    vus = 10,
    duration = "30s",
    thresholds = {
      { "live.join", p95 = 500 },
      { "live.event", p95 = 500 },
      { "iteration.errors", count = 0 },
    },
  },

  run = function(vu)
    local view = live.connect(BASE .. "/counter")
    stampede.sleep("770ms")
    view:click("inc")
    stampede.sleep("540ms")
    view:click("inc")
    stampede.sleep("530ms")
    view:click("inc_noreply")
    stampede.sleep("1100ms")
    view:close()  -- a new page: the browser left the last one
    view = live.connect(BASE .. "/posts/new")
    stampede.sleep("590ms")
    view:change("validate", { post = { title = " ", body = "" } }, { field = "post[title]" })
    stampede.sleep("580ms")
    -- typing "Golden post" into post[title]: one phx-change per keystroke, as recorded
    for n = 1, 11 do
      view:change("validate", { post = { title = ("Golden post"):sub(1, n), body = "" } }, { field = "post[title]" })
    end
    stampede.sleep("550ms")
    view = follow(view, "submit", "save", { post = { title = "Golden post", body = "" } })
    stampede.sleep("1180ms")
    view:close()  -- a new page: the browser left the last one
    view = live.connect(BASE .. "/posts")
    stampede.sleep("610ms")
    view:patch("/posts?page=2")
    stampede.sleep("1120ms")
    view:close()  -- a new page: the browser left the last one
    view = live.connect(BASE .. "/components")
    stampede.sleep("610ms")
    view:click("bump", nil, { target = 1 })
    stampede.sleep("550ms")
    view:click("bump", nil, { target = 1 })
    stampede.sleep("1160ms")
    view:close()  -- a new page: the browser left the last one
    view = live.connect(BASE .. "/upload")
    stampede.sleep("1130ms")
    -- the file's content is made up: only its size (and name) were recorded
    view:upload("avatar", { { name = "golden_150000.bin", content = ("x"):rep(150000), type = "application/octet-stream" } })
    view:submit("save", {})
    stampede.sleep("1120ms")
    view:close()  -- a new page: the browser left the last one
    view = live.connect(BASE .. "/login?user=alice")
  end,
}

return scenario
