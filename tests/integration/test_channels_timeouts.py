"""Timeouts of stampede.channels against the built-in target: an await ends when its time is
up however busy the topic, and every timeout option takes "500ms" as readily as 500."""
import unittest

from harness import Target, run, write_scenario, main

# A wait that ignores its timeout T runs to the socket's default (10 s, phoenix.js's) or
# forever; each run's graceful_stop (8 s) cuts such an iteration off before it records its
# wait or its checks, and the test fails on the missing row. How long after T a wait that
# kept it ended is the host's business (a sanitizer build on busy cores: seconds), not this
# test's: it judges only that the wait did not end before T.
GRACEFUL_STOP = "8s"


class ChannelsTimeouts(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.target = Target()
        cls.ws = cls.target.url.replace("http://", "ws://") + "/socket"

    @classmethod
    def tearDownClass(cls):
        cls.target.close()

    def run_body(self, body, options):
        path = write_scenario(f"""
local channels = require "stampede.channels"
local stampede = require "stampede"
local URL = "{self.ws}"
return {{ options = {{ {options} }},
         run = function(vu)
{body}
         end }}
""")
        # An await that never ends is cut by graceful_stop; the run still finishes.
        return run(["run", path, "--quiet"], timeout=90)

    def assertChecksPass(self, r):
        self.assertEqual(r.code, 0, r)
        section = r.out.split("\nchecks\n", 1)
        self.assertEqual(len(section), 2, r)
        for line in section[1].splitlines():
            if "%" in line and line.startswith("  "):
                self.assertIn("100.00%", line, r)
            elif not line.startswith("  "):
                break

    def assertEndedByItsTimeout(self, r, name, timeout_ms):
        m = r.metric(name)
        self.assertIsNotNone(m, f"{name}: the wait never ended (cut off by the graceful stop)\n{r!r}")
        self.assertEqual(m["count"], 1, f"{name}\n{r!r}")
        # The summary rounds; the exact >= is a check in the scenario.
        self.assertGreaterEqual(m["max"], timeout_ms - 1, f"{name}\n{r!r}")

    def test_await_times_out_while_messages_that_do_not_match_keep_arriving(self):
        # One VU per variant, one iteration each: a variant that hangs cannot hide the others.
        r = self.run_body("""
  local variants = {
    { "socket.number", 500 }, { "socket.string", "500ms" },
    { "absinthe.number", 500 }, { "absinthe.string", "500ms" },
  }
  local name, timeout = variants[(vu.id - 1) % 4 + 1][1], variants[(vu.id - 1) % 4 + 1][2]
  local socket = channels.connect(URL)
  local absinthe = channels.absinthe(socket)
  -- A subscription pushes every 50 ms: the await sees about ten messages per 500 ms.
  local id = absinthe:subscribe("subscription { commentAdded { id } }", { interval_ms = 50 })
  local skipped = 0
  local function never() skipped = skipped + 1; return false end
  local t0 = stampede.now()
  local ok, err
  if name:find("socket", 1, true) then
    ok, err = pcall(socket.await, socket, id, "subscription:data", { timeout = timeout, match = never })
  else
    ok, err = pcall(absinthe.await, absinthe, id, { timeout = timeout, match = never })
  end
  local elapsed = stampede.now() - t0
  stampede.record("await." .. name, elapsed)
  stampede.check(name .. " raised timeout", not ok and type(err) == "table" and err.kind == "timeout")
  stampede.check(name .. " not before its timeout", elapsed >= 500)
  stampede.check(name .. " saw messages go by", skipped >= 3)
""", options='vus = 4, duration = "100ms", graceful_stop = "' + GRACEFUL_STOP + '"')
        for name in ("socket.number", "socket.string", "absinthe.number", "absinthe.string"):
            self.assertEndedByItsTimeout(r, "await." + name, 500)
        self.assertChecksPass(r)

    def test_presence_await_takes_duration_strings(self):
        r = self.run_body("""
  local socket = channels.connect(URL)
  local presence = channels.presence(socket, "presence:room")
  socket:join("presence:room", { user_id = "me-" .. vu.id })
  presence:await_user("me-" .. vu.id, { timeout = "3s" })
  local function timed(name, fn, ...)
    local t0 = stampede.now()
    local ok, err = pcall(fn, ...)
    local elapsed = stampede.now() - t0
    stampede.record(name, elapsed)
    stampede.check(name .. " raised timeout", not ok and type(err) == "table" and err.kind == "timeout")
    stampede.check(name .. " not before its timeout", elapsed >= 300)
  end
  timed("presence.await_user.string", presence.await_user, presence, "nobody", { timeout = "300ms" })
  timed("presence.await.string", presence.await, presence, function() return false end, { timeout = "300ms" })
  timed("presence.await_user.number", presence.await_user, presence, "nobody", { timeout = 300 })
""", options='vus = 1, duration = "100ms", graceful_stop = "' + GRACEFUL_STOP + '"')
        for name in ("presence.await_user.string", "presence.await.string", "presence.await_user.number"):
            self.assertEndedByItsTimeout(r, name, 300)
        self.assertChecksPass(r)

    def test_a_bad_timeout_is_an_error_naming_it_at_the_callers_line(self):
        r = self.run_body("""
  local socket = channels.connect(URL)
  socket:join("room:lobby")
  local presence = channels.presence(socket, "room:lobby")
  local absinthe = channels.absinthe(socket)
  local bad = { timeout = "soon" }
  local calls = {
    { "socket:join timeout", function() socket:join("room:other", {}, bad) end },
    { "socket:push timeout", function() socket:push("room:lobby", "ping", {}, bad) end },
    { "socket:leave timeout", function() socket:leave("room:lobby", bad) end },
    { "socket:await timeout", function() socket:await("room:lobby", "shout", bad) end },
    { "absinthe:await timeout", function() absinthe:await("x", bad) end },
    { "presence:await timeout", function() presence:await(function() return false end, bad) end },
    { "presence:await_user timeout", function() presence:await_user("nobody", bad) end },
    { "presence:await_user timeout", function() presence:await_user("nobody", { timeout = {} }) end },
  }
  for _, call in ipairs(calls) do
    local ok, err = pcall(call[2])
    local text = tostring(err)
    stampede.check(call[1] .. " is an error", not ok)
    stampede.check(call[1] .. " names the option", text:find(call[1], 1, true) ~= nil)
    stampede.check(call[1] .. " names the value or its type",
      text:find('"soon"', 1, true) ~= nil or text:find("got table", 1, true) ~= nil)
    stampede.check(call[1] .. " points at the scenario", text:find("scenario.lua:", 1, true) ~= nil)
  end
""", options='vus = 1, duration = "100ms", graceful_stop = "' + GRACEFUL_STOP + '"')
        self.assertChecksPass(r)


if __name__ == "__main__":
    main()
