"""stampede.channels end to end against the built-in target's Phoenix socket: what
phoenix.js does, measured, with every failure a clear error."""
import json
import re
import time
import unittest
import urllib.request

from harness import Target, run, write_scenario, main


class Channels(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.target = Target()
        cls.ws = cls.target.url.replace("http://", "ws://") + "/socket"

    @classmethod
    def tearDownClass(cls):
        cls.target.close()

    def run_body(self, body, options='vus = 2, iterations = 2', args=()):
        # By default each of 2 VUs runs BODY once: the run ends when the last has.
        path = write_scenario(f"""
local channels = require "stampede.channels"
local stampede = require "stampede"
local URL = "{self.ws}"
return {{ options = {{ {options} }},
         run = function(vu)
{body}
         end }}
""")
        return run(["run", path, "--quiet", *args])

    def assertChecksPass(self, r):
        self.assertEqual(r.code, 0, r)
        section = r.out.split("\nchecks\n", 1)
        self.assertEqual(len(section), 2, r)
        for line in section[1].splitlines():
            if "%" in line and line.startswith("  "):  # check rows are indented; the generator line is not
                self.assertIn("100.00%", line, r)
            elif not line.startswith("  "):
                break

    def test_join_push_reply_and_broadcast_roundtrip(self):
        r = self.run_body("""
  local socket = channels.connect(URL, { params = { token = "t" } })
  stampede.check("joined", type(socket:join("room:lobby")) == "table")
  local reply = socket:push("room:lobby", "ping", { n = vu.id })
  stampede.check("reply carries the response", reply.n == vu.id)
  stampede.measure("broadcast.roundtrip", function()
    socket:cast("room:lobby", "shout", { from = vu.id })
    socket:await("room:lobby", "shout", { match = function(p) return p.from == vu.id end })
  end)
  socket:push("room:lobby", "new_msg", { body = "hi from " .. vu.id })
  socket:leave("room:lobby")
""")
        self.assertChecksPass(r)
        # One iteration in each of the 2 VUs.
        for m, n in (("ws.connect", 2), ("channel.join", 2), ("channel.push", 4), ("channel.leave", 2),
                     ("broadcast.roundtrip", 2)):
            self.assertEqual(r.metric(m)["count"], n, m + "\n" + repr(r))
        self.assertGreater(r.metric("channel.messages")["count"], 0, r)
        self.assertEqual(r.metric("iteration.errors")["count"], 0, r)

    def test_refused_join_raises_a_readable_error(self):
        r = self.run_body("""
  local socket = channels.connect(URL)
  local ok, err = pcall(socket.join, socket, "room:private")
  stampede.check("refused", not ok and err.kind == "join_error" and err.response.reason == "unauthorized")
  socket:join("room:private")
""")
        self.assertEqual(r.code, 0, r)
        self.assertIn('channel.join room:private refused: {"reason":"unauthorized"}', r.out)
        self.assertEqual(r.metric("channel.join.errors")["count"], 4, r)  # two in each VU's iteration
        self.assertIn("refused", r.reasons("channel.join.errors"), r)

    def test_crash_fails_pending_push_at_once(self):
        r = self.run_body("""
  local socket = channels.connect(URL)
  socket:join("room:crashy")
  local ok, err = pcall(socket.push, socket, "room:crashy", "crash", {})
  -- At once: a push that waited for its reply instead would end at its timeout, as "timeout".
  stampede.check("channel_crashed", not ok and err.kind == "channel_crashed")
""")
        self.assertChecksPass(r)

    def test_push_without_reply_times_out(self):
        r = self.run_body("""
  local socket = channels.connect(URL)
  socket:join("room:quiet")
  local ok, err = pcall(socket.push, socket, "room:quiet", "no_handler", {}, { timeout = 200 })
  stampede.check("timeout", not ok and err.kind == "timeout")
""", options='vus = 1, iterations = 1')
        self.assertChecksPass(r)
        self.assertRegex(r.out, r"\n\s+timeout\s+\d+")

    def test_binary_push_gets_a_binary_reply(self):
        r = self.run_body("""
  local socket = channels.connect(URL)
  socket:join("room:bin")
  local data = string.char(0, 1, 2, 255) .. string.rep("x", 300)
  local reply = socket:push("room:bin", "upload", channels.binary(data))
  stampede.check("bytes echoed", reply == data)
""")
        self.assertChecksPass(r)

    def test_serializer_v1(self):
        r = self.run_body("""
  local socket = channels.connect(URL, { serializer = "1.0.0" })
  socket:join("room:v1")
  stampede.check("v1 reply", socket:push("room:v1", "ping", { v = 1 }).v == 1)
""")
        self.assertChecksPass(r)

    def test_custom_serializer_table(self):
        r = self.run_body("""
  local json = require "stampede.json"
  local null = json.null
  local serializer = {
    encode = function(m)
      return json.encode({ m.join_ref or null, m.ref or null, m.topic, m.event, m.payload }), false
    end,
    decode = function(data, binary)
      local a = json.decode(data)
      local function s(v) if v == null then return nil end return v end
      return { join_ref = s(a[1]), ref = s(a[2]), topic = a[3], event = a[4], payload = a[5] }
    end,
  }
  local socket = channels.connect(URL, { serializer = serializer })
  socket:join("room:custom")
  stampede.check("custom codec works", socket:push("room:custom", "ping", { c = true }).c == true)
""")
        self.assertChecksPass(r)

    def channel_stats(self):
        with urllib.request.urlopen(self.target.url + "/__channels", timeout=5) as resp:
            return json.loads(resp.read())

    def test_heartbeats_are_sent_and_timed(self):
        before = self.channel_stats()["heartbeats"]
        r = self.run_body("""
  local socket = channels.connect(URL, { heartbeat = 100 })
  socket:join("room:hb")
  stampede.sleep(450)
""")
        self.assertEqual(r.code, 0, r)
        # Every heartbeat timed is one the target received and answered; each socket closes
        # with its iteration (whole: the run ends when the last has), so at most its last
        # heartbeat was still unanswered then. How many fit in the run is the host's business, not this test's.
        received = self.channel_stats()["heartbeats"] - before
        timed = r.metric("channel.heartbeat")["count"]
        self.assertGreater(timed, 0, r)
        self.assertLessEqual(timed, received, r)
        self.assertLessEqual(received - timed, r.metric("iterations")["count"], r)

    def test_presence_sync(self):
        r = self.run_body("""
  local a = channels.connect(URL)
  local b = channels.connect(URL)
  local presence = channels.presence(a, "presence:room")
  a:join("presence:room", { user_id = "alice-" .. vu.id })
  b:join("presence:room", { user_id = "bob-" .. vu.id })
  presence:await_user("bob-" .. vu.id, { timeout = 3000 })
  local list = presence:list()
  stampede.check("both present", list["alice-" .. vu.id] ~= nil and #list["bob-" .. vu.id].metas >= 1)
  b:close()
  presence:await(function(l) return l["bob-" .. vu.id] == nil end, { timeout = 3000 })
  stampede.check("bob left", presence:list()["bob-" .. vu.id] == nil)
""")
        self.assertChecksPass(r)

    def test_absinthe_subscription(self):
        r = self.run_body("""
  local socket = channels.connect(URL)
  local absinthe = channels.absinthe(socket)
  local id = absinthe:subscribe("subscription { commentAdded { id body } }", { interval_ms = 50 })
  stampede.check("subscription id", id:find("__absinthe__:doc:", 1, true) == 1)
  local result = absinthe:await(id, { timeout = 3000 })
  stampede.check("data arrives", type(result.data) == "table")
  absinthe:unsubscribe(id)
""", options='vus = 1, iterations = 1')
        self.assertChecksPass(r)

    def test_sockets_are_closed_when_the_iteration_ends(self):
        opened = self.channel_stats()["channel_sockets_opened"]
        # 30 arrivals in 1 s, every one finished (graceful_stop), each VU's first one (and
        # every other) ending in an error without closing its socket: exactly 30 connects,
        # however fast the host, where a closed model's count is how fast the host is.
        r = self.run_body("""
  local socket = channels.connect(URL)
  socket:join("room:leak")
  if vu.iteration % 2 == 0 then error("leaving without closing") end
""", options='rate = 30, duration = "1s", graceful_stop = "5s"')
        self.assertEqual(r.code, 0, r)
        self.assertEqual(r.metric("iterations")["count"], 30, r)
        self.assertEqual(r.metric("ws.connect")["count"], 30, r)
        self.assertEqual(self.channel_stats()["channel_sockets_opened"] - opened, 30)
        self.assertGreater(r.metric("iteration.errors")["count"], 0, r)
        # The target may still be reading the last close frames: give it a moment.
        deadline = time.time() + 3
        while True:
            with urllib.request.urlopen(self.target.url + "/__channels", timeout=5) as resp:
                stats = json.loads(resp.read())
            if stats.get("sockets_open") == 0 or time.time() > deadline:
                break
            time.sleep(0.05)
        self.assertEqual(stats.get("sockets_open"), 0, stats)

    def test_connect_error_names_the_url_and_what_to_try(self):
        r = self.run_body("""
  local ok, err = pcall(channels.connect, URL:gsub("/socket$", "/nowhere"))
  stampede.check("connect_error", not ok and err.kind == "connect_error")
  error(err)
""", options='vus = 1, iterations = 1')
        self.assertEqual(r.code, 0, r)
        self.assertIn("/nowhere/websocket", r.out)
        self.assertIn("404", r.out)


class PushOnASocketTheServerClosed(unittest.TestCase):
    def test_fails_closed_with_the_reason_and_is_counted_sent_and_failed(self):
        # The push is never written, but it was a request the user made that failed: counted
        # sent and failed at once, as HTTP counts one it could not write (the tally read
        # "2 sent, 2 completed, 1 failed"), and the error says why the socket had closed.
        with Target(extra=("--ws-idle-timeout", "1s")) as target:
            path = write_scenario(f"""
local channels = require "stampede.channels"
local stampede = require "stampede"
return {{ options = {{ vus = 1, iterations = 1 }},
         run = function()
  local socket = channels.connect("{target.url.replace("http://", "ws://")}/socket", {{ heartbeat = false }})
  socket:join("room:lobby")
  stampede.sleep(2000)   -- the target closes a socket idle for 1 s
  local ok, err = pcall(socket.push, socket, "room:lobby", "ping", {{}})
  stampede.check("closed", not ok and err.kind == "closed")
  stampede.check("says why", not ok and tostring(err):find("the socket is not open (", 1, true) ~= nil)
end }}
""")
            r = run(["run", path, "--quiet"])
        self.assertEqual(r.code, 0, r)
        self.assertIn("100.00%  (1 / 1)", r.out.split("checks", 1)[1].splitlines()[1], r)
        self.assertIn("100.00%  (1 / 1)", r.out.split("checks", 1)[1].splitlines()[2], r)
        m = re.search(r"requests: (\d+) sent, (\d+) completed, (\d+) failed, (\d+) in flight", r.out)
        sent, completed, failed, in_flight = (int(g) for g in m.groups())
        self.assertEqual((failed, in_flight), (1, 0), r)
        self.assertEqual(sent, completed + failed, r)
        self.assertEqual(r.metric("channel.push.errors")["count"], 1, r)


if __name__ == "__main__":
    main()
