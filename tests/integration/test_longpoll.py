"""Phoenix's LongPoll transport (`transport = "longpoll"`) end to end: stampede.channels and
stampede.liveview against the built-in target's /socket/longpoll and /live/longpoll, with the
same channel.* / live.* metrics as over a WebSocket plus longpoll.poll; and servers that speak
LongPoll badly (410 mid-session, garbage, 500, 403, a connection closed early, a stall, a POST
refused), each costing longpoll.errors with a reason, never a crash or a hang. The official
phoenix.js LongPoll client checks the target's side in test_target_phoenix_js.py."""
import json
import socket
import threading
import time
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from browser_check import require_browser, run_check
from harness import Target, run, write_scenario, main


def channels_scenario(url, body, vus=2):
    """Each of VUS VUs runs `body` once (a count of iterations, one a VU: the run ends when the
    last has, however busy the cores)."""
    return write_scenario(f"""
local channels = require "stampede.channels"
local stampede = require "stampede"
local URL = "{url}"
return {{ options = {{ vus = {vus}, iterations = {vus} }},
         run = function(vu)
{body}
         end }}
""")


def assert_checks_pass(test, r):
    test.assertEqual(r.code, 0, r)
    section = r.out.split("\nchecks\n", 1)
    test.assertEqual(len(section), 2, r)
    for line in section[1].splitlines():
        if not line.startswith("  "):
            break
        if "%" in line:
            test.assertIn("100.00%", line, r)


def count(r, name):
    """The count column of `name`'s summary row; 0 when the row is absent."""
    for line in r.out.splitlines():
        parts = line.split()
        if parts[:1] == [name] and len(parts) >= 2 and parts[1].isdigit():
            return int(parts[1])
    row = r.metric(name) if name.endswith(".errors") else None
    return row["count"] if row else 0


def requests_line(r):
    for line in r.out.splitlines():
        if line.startswith("requests: "):
            parts = line.split()
            return {"sent": int(parts[1]), "completed": int(parts[3]), "failed": int(parts[5])}
    return None


class AgainstTheTarget(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.target = Target(threads=2)  # a poll and its POSTs may reach different workers
        cls.url = cls.target.url + "/socket"

    @classmethod
    def tearDownClass(cls):
        cls.target.close()

    def test_channels_join_push_broadcast_and_leave(self):
        for serializer in ("2.0.0", "1.0.0"):
            with self.subTest(serializer=serializer):
                r = run(["run", channels_scenario(self.url, f"""
  local socket = channels.connect(URL, {{ transport = "longpoll", serializer = "{serializer}",
                                          params = {{ user_id = "u" .. vu.id }} }})
  stampede.check("joined", type(socket:join("room:lobby")) == "table")
  local reply = socket:push("room:lobby", "ping", {{ n = vu.id }})
  stampede.check("the reply carries the response", reply.n == vu.id)
  socket:cast("room:lobby", "shout", {{ from = vu.id }})
  local heard = socket:await("room:lobby", "shout", {{ match = function(p) return p.from == vu.id end }})
  stampede.check("the broadcast came back", heard.from == vu.id)
  socket:push("room:lobby", "new_msg", {{ body = "hi" }})
  socket:leave("room:lobby")
"""), "--quiet"])
                assert_checks_pass(self, r)
                # One iteration a VU: each joined, pushed twice and left once.
                for m, n in (("iterations", 2), ("channel.join", 2), ("channel.push", 4), ("channel.leave", 2)):
                    self.assertEqual(count(r, m), n, m + "\n" + repr(r))
                for m in ("longpoll.poll", "channel.messages"):
                    self.assertGreater(count(r, m), 0, m + "\n" + repr(r))
                for m in ("channel.join.errors", "channel.push.errors", "channel.leave.errors", "longpoll.errors",
                          "iteration.errors", "vu.crashes"):
                    self.assertEqual(count(r, m), 0, m + "\n" + repr(r))
                # No WebSocket, and the polls are not HTTP requests of the scenario.
                self.assertEqual(count(r, "ws.connect"), 0, r)
                self.assertEqual(count(r, "http.request"), 0, r)
                # Requests: each socket's opening GET, and every join, push and leave.
                counts = requests_line(r)
                self.assertEqual(counts["failed"], 0, r)
                iterations = count(r, "iterations")
                channel_requests = sum(count(r, m) for m in ("channel.join", "channel.push", "channel.leave"))
                self.assertGreaterEqual(counts["completed"], iterations + channel_requests, r)
                self.assertEqual(counts["sent"], counts["completed"], r)  # whole iterations: none cut off

    def test_a_held_poll_carries_a_broadcast_and_empty_polls_end_with_204(self):
        # One VU listens on a topic; the server holds its poll until the other VU's broadcast.
        r = run(["run", channels_scenario(self.url, """
  local socket = channels.connect(URL, { transport = "longpoll" })
  socket:join("room:held")
  if vu.id == 1 then
    local m = socket:await("room:held", "shout", { timeout = "5s" })
    stampede.check("the held poll brought the broadcast", m.late == true)
  else
    stampede.sleep(300)
    socket:push("room:held", "shout", { late = true })
    stampede.sleep(100)
  end
"""), "--quiet"])
        assert_checks_pass(self, r)
        poll = r.metric("longpoll.poll")  # rows with counts: every column is a number
        # The listener's poll was held about 300 ms before the broadcast answered it (a lower
        # bound: the broadcast cannot come sooner; no upper bound is judged on the wall clock).
        self.assertGreater(poll["max"], 200, r)

    def test_liveview_counter_and_form_over_longpoll(self):
        path = write_scenario(f"""
local live = require "stampede.liveview"
local stampede = require "stampede"
local BASE = "{self.target.url}"
-- One iteration a VU, each whole (the run ends when the last has): the comparison below wants
-- no page GET counted as an http.request that never reached live.page.
return {{ options = {{ vus = 2, iterations = 2 }},
         run = function(vu)
  local view = live.connect(BASE .. "/counter", {{ transport = "longpoll" }})
  stampede.check("starts at 0", view:text("#count") == "0")
  local reply = view:click("inc")
  stampede.check("the reply map comes back", type(reply) == "table" and reply.count == 1)
  stampede.check("the diff is merged", view:text("#count") == "1")
  local form = live.connect(BASE .. "/posts/new", {{ transport = "longpoll" }})
  form:change("validate", {{ post = {{ title = " " }} }})
  stampede.check("blank title refused", form:text(".error") == "can't be blank")
  local ok, err = pcall(form.submit, form, "save", {{ post = {{ title = "Hi from " .. vu.id }} }})
  stampede.check("save navigates", not ok and err.kind == "live_redirect")
  form = form:follow(err)
  stampede.check("the flash is shown", form:text("#flash-info") == "Post created")
         end }}
""")
        r = run(["run", path, "--quiet"])
        assert_checks_pass(self, r)
        # One iteration a VU: two pages, three views joined (the navigation joins the third), a
        # click, a change and a submit.
        for m, n in (("live.page", 4), ("live.join", 6), ("live.event", 6), ("live.navigate", 2)):
            self.assertEqual(count(r, m), n, m + "\n" + repr(r))
        self.assertGreater(count(r, "longpoll.poll"), 0, r)
        for m in ("live.page.errors", "live.join.errors", "live.event.errors", "live.navigate.errors",
                  "longpoll.errors", "iteration.errors", "vu.crashes"):
            self.assertEqual(count(r, m), 0, m + "\n" + repr(r))
        self.assertEqual(count(r, "ws.connect"), 0, r)
        # The page GETs are HTTP requests (as a browser's); the polls are not.
        self.assertEqual(count(r, "http.request"), count(r, "live.page"), r)

    def test_a_bad_transport_name_is_a_clear_error(self):
        r = run(["run", channels_scenario(self.url, """
  channels.connect(URL, { transport = "carrier-pigeon" })
""", vus=1), "--quiet"])
        self.assertEqual(count(r, "iteration.errors"), 1, r)
        self.assertIn('transport must be "websocket" or "longpoll"', r.out + r.err, r)


# ---------------------------------------------------------------------------------------------
# A LongPoll server that misbehaves, one way per mount path: /<behaviour>/socket/longpoll.

OPENED = {"messages": [], "status": 410, "token": "T1"}
JOIN_OK = '["1","1","room:a","phx_reply",{"status":"ok","response":{}}]'


class Reconnects(unittest.TestCase):
    """A server that loses its sessions mid-run (the target's --longpoll-session-lifetime: each
    ends 1 s after it opened, its held poll answered 410): the socket reconnects with a new
    session, rejoins its channel and keeps pushing, as phoenix.js does."""

    @classmethod
    def setUpClass(cls):
        cls.target = Target(threads=2, extra=("--longpoll-session-lifetime", "1s"))
        cls.url = cls.target.url + "/socket"

    @classmethod
    def tearDownClass(cls):
        cls.target.close()

    def test_the_socket_reconnects_rejoins_and_keeps_pushing(self):
        # The sessions end on the target's clock (1 s after each opened), so each VU pushes
        # until the target has taken four rejoins and the VU 20 answers, rather than for a
        # time in which a busy host would fit fewer of either; 30 s is only a hang guard.
        r = run(["run", channels_scenario(self.url, """
  local http = require "stampede.http"
  local json = require "stampede.json"
  local function joins() return json.decode(http.get(STATS).body).joins end
  local socket = channels.connect(URL, { transport = "longpoll", params = { user_id = "u" .. vu.id } })
  socket:join("room:lobby", { hello = vu.id })
  -- Joins the target took since: rejoins, but for the other VU's first join maybe.
  local before = joins()
  local answered, lost = 0, 0
  local give_up = stampede.now() + 30000
  while (joins() - before < 5 or answered < 20) and stampede.now() < give_up do
    local ok, reply = pcall(socket.push, socket, "room:lobby", "ping", { n = answered })
    if ok then
      stampede.check("each answer is its push's", reply.n == answered)
      answered = answered + 1
    else
      -- Only a push in flight as the session went fails, and it fails closed.
      stampede.check("a push fails only closed", reply.kind == "closed")
      lost = lost + 1
    end
    stampede.sleep(20)
  end
  stampede.check("the target took four rejoins or more", joins() - before >= 5)
  stampede.check("pushes went on across the reconnects", answered >= 20)
  -- The rejoined channel hears its broadcasts again (retried: a session may go meanwhile).
  local heard = false
  for try = 1, 3 do
    socket:push("room:lobby", "ping", { n = -1 }, { timeout = "5s" })
    socket:cast("room:lobby", "shout", { from = vu.id, try = try })
    local ok = pcall(socket.await, socket, "room:lobby", "shout",
                     { timeout = "900ms", match = function(p) return p.from == vu.id and p.try == try end })
    if ok then heard = true break end
  end
  stampede.check("the rejoined channel hears broadcasts", heard)
""".replace("STATS", json.dumps(self.target.url + "/__channels")),
                 ), "--quiet"], timeout=120)
        self.assertEqual(r.code, 0, r)
        assert_checks_pass(self, r)
        self.assertEqual(count(r, "vu.crashes"), 0, r)
        self.assertEqual(count(r, "iteration.errors"), 0, r)
        reconnects = count(r, "channel.reconnects")
        # Every rejoin the target took followed a reconnect (checked above: four or more).
        self.assertGreaterEqual(reconnects, 4, r)
        # What ended each connection: the session gone (a held poll's 410, or a POST's).
        self.assertEqual(list(r.reasons("longpoll.errors")), ["session_gone"], r)
        self.assertGreaterEqual(r.reasons("longpoll.errors")["session_gone"], reconnects, r)
        self.assertEqual(count(r, "channel.reconnect.errors"), 0, r)
        # Every reconnect rejoined room:lobby; a rejoin cut by the next loss counts closed.
        rejoin_errors = r.reasons("channel.rejoin.errors")
        self.assertLessEqual(set(rejoin_errors), {"closed"}, r)
        self.assertEqual(count(r, "channel.rejoin") + sum(rejoin_errors.values()), reconnects, r)
        self.assertEqual(count(r, "channel.join"), 2, r)  # the scenario's own joins only
        self.assertLessEqual(set(r.reasons("channel.push.errors")), {"closed"}, r)

    def test_a_liveview_reconnects_rejoins_and_shows_the_remounted_page(self):
        # Each VU clicks the counter while its LongPoll session goes every second, until it has
        # seen the server remount the view three times (30 s is only a hang guard). The
        # server mounts the view again on each rejoin (its count back to 0), so each reply's
        # count is the previous one + 1 or, just after a rejoin, 1; the page shows each reply's
        # count. Then the VU idles through a session loss: the rejoin reply's page replaced the
        # old one, so the page shows the remounted 0, not the count it had. Each remount seen
        # is a reconnect of its own (remounts.seen).
        path = write_scenario(f"""
local live = require "stampede.liveview"
local stampede = require "stampede"
return {{ options = {{ vus = 2, iterations = 2 }},
         run = function(vu)
  local view = live.connect("{self.target.url}/counter", {{ transport = "longpoll" }})
  local last, clicks, resets, lost = 0, 0, 0, 0
  local give_up = stampede.now() + 30000
  while resets < 3 and stampede.now() < give_up do
    local ok, reply = pcall(view.click, view, "inc")
    if ok then
      clicks = clicks + 1
      if reply.count ~= last + 1 then
        stampede.check("a count that starts over starts from the remounted 0", reply.count == 1)
        resets = resets + 1
        stampede.increment("remounts.seen")
      end
      last = reply.count
      stampede.check("the page shows the server's count", view:text("#count") == tostring(reply.count))
    else
      -- Only a click in flight as the session went fails, and it fails closed.
      stampede.check("a click fails only closed", reply.kind == "closed")
      lost = lost + 1
    end
    stampede.sleep(15)
  end
  stampede.check("the server remounted the view after session losses", resets >= 3)
  stampede.check("clicks went on across the reconnects", clicks > resets)
  stampede.check("the view is still live", view:is_open())
  for round = 1, 2 do
    view:click("inc")
    view:click("inc")
    stampede.check("clicked", tonumber(view:text("#count")) >= 1)
    stampede.sleep(2200)  -- a session lost (every ~1 s) and the view rejoined meanwhile
    local remounted = view:text("#count") == "0"
    stampede.check("the rejoin reply's page replaced the old one", remounted)
    if remounted then stampede.increment("remounts.seen") end
  end
  local reply = view:click("inc")
  stampede.check("and clicks go on from there", reply.count == 1 and view:text("#count") == "1")
         end }}
""")
        r = run(["run", path, "--quiet"], timeout=120)
        self.assertEqual(r.code, 0, r)
        assert_checks_pass(self, r)
        self.assertEqual(count(r, "vu.crashes"), 0, r)
        self.assertEqual(count(r, "iteration.errors"), 0, r)
        reconnects = count(r, "channel.reconnects")
        # Each VU saw three remounts while clicking and one in each idle round, each after a
        # reconnect of its own (and maybe more it did not see).
        self.assertEqual(count(r, "remounts.seen"), 2 * (3 + 2), r)
        self.assertGreaterEqual(reconnects, count(r, "remounts.seen"), r)
        self.assertEqual(list(r.reasons("longpoll.errors")), ["session_gone"], r)
        self.assertEqual(count(r, "channel.reconnect.errors"), 0, r)
        # Each reconnect rejoined the counter; a rejoin cut by the next loss counts closed.
        rejoin_errors = r.reasons("live.rejoin.errors")
        self.assertLessEqual(set(rejoin_errors), {"closed"}, r)
        self.assertEqual(count(r, "live.rejoin") + sum(rejoin_errors.values()), reconnects, r)
        self.assertEqual(count(r, "live.join"), 2, r)  # the first joins only
        self.assertEqual(count(r, "live.join.errors"), 0, r)
        self.assertLessEqual(set(r.reasons("live.event.errors")), {"closed"}, r)
        self.assertEqual(count(r, "channel.rejoin"), 0, r)  # LiveView's are live.rejoin

    def test_a_liveview_without_reconnect_closes(self):
        path = write_scenario(f"""
local live = require "stampede.liveview"
local stampede = require "stampede"
return {{ options = {{ vus = 1, iterations = 1 }},
         run = function(vu)
  local view = live.connect("{self.target.url}/counter", {{ transport = "longpoll", reconnect = false }})
  view:click("inc")
  stampede.sleep(1800)
  stampede.check("closed for good", not view:is_open())
  local ok, err = pcall(view.click, view, "inc")
  stampede.check("and says so", not ok and err.kind == "closed")
  stampede.check("the last page stays readable", view:text("#count") == "1")
         end }}
""")
        r = run(["run", path, "--quiet"])
        assert_checks_pass(self, r)
        self.assertEqual(r.reasons("longpoll.errors"), {"session_gone": 1}, r)
        self.assertEqual(count(r, "channel.reconnects"), 0, r)
        self.assertEqual(count(r, "live.rejoin"), 0, r)

    def test_the_official_liveview_js_reconnects_over_longpoll_against_the_target(self):
        # What the client above does, done by phoenix_live_view's own JS in Chromium against the
        # same target: its rejoin payload (_mounts 1, same tokens) and the remounted page.
        # Its own target with 3 s sessions: a browser beside busy test suites needs more than the
        # class's 1 s to rejoin and click three times inside one session.
        require_browser()
        target = Target(threads=2, extra=("--longpoll-session-lifetime", "3s"))
        try:
            run_check(self, "liveview_longpoll_reconnect_check.js", "--url", target.url)
        finally:
            target.close()

    def test_without_reconnect_the_socket_closes(self):
        r = run(["run", channels_scenario(self.url, """
  local socket = channels.connect(URL, { transport = "longpoll", reconnect = false })
  socket:join("room:lobby")
  stampede.sleep(1800)
  stampede.check("closed for good", not socket:is_open())
  local ok, err = pcall(socket.push, socket, "room:lobby", "ping", {})
  stampede.check("and says so", not ok and err.kind == "closed")
""", vus=1), "--quiet"])
        assert_checks_pass(self, r)
        self.assertEqual(r.reasons("longpoll.errors"), {"session_gone": 1}, r)
        self.assertEqual(count(r, "channel.reconnects"), 0, r)

    def test_a_websocket_reconnects_when_asked(self):
        # The same socket over a WebSocket with reconnect = true: the target closes an idle
        # WebSocket after --ws-idle-timeout (heartbeats off, so nothing keeps it alive).
        with Target(extra=("--ws-idle-timeout", "500ms")) as target:
            r = run(["run", channels_scenario(target.url + "/socket", """
  local socket = channels.connect(URL, { reconnect = true, heartbeat = false })
  socket:join("room:lobby")
  stampede.sleep(1300)
  local reply = socket:push("room:lobby", "ping", { n = 7 }, { timeout = "5s" })
  stampede.check("a push after the reconnect is answered", reply.n == 7)
""", vus=1), "--quiet"])
        assert_checks_pass(self, r)
        self.assertGreaterEqual(count(r, "channel.reconnects"), 1, r)
        self.assertEqual(count(r, "channel.rejoin"), count(r, "channel.reconnects"), r)
        self.assertGreaterEqual(sum(r.reasons("ws.disconnects").values()), 1, r)
        self.assertEqual(count(r, "vu.crashes"), 0, r)


class Misbehaving(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, obj_or_text, status=200):
        body = (obj_or_text if isinstance(obj_or_text, str) else json.dumps(obj_or_text)).encode()
        try:
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client closed first (its iteration ended): nothing to answer

    def close_without_answer(self):
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def do_GET(self):
        url = urlsplit(self.path)
        behaviour = url.path.split("/")[1]
        if behaviour == "stats":  # what the server did so far, for the scenarios to wait on
            with self.server.lock:
                return self.answer({"opened": dict(self.server.opened)})
        token = parse_qs(url.query).get("token")
        if behaviour == "forbidden":
            return self.answer({"status": 403})
        if behaviour == "stall_connect":
            time.sleep(3)
            return self.close_without_answer()
        if not token:
            if behaviour == "gone_then_forbidden":
                # The first socket opens; every later one (the reconnects) is refused.
                with self.server.lock:
                    self.server.opened[behaviour] = self.server.opened.get(behaviour, 0) + 1
                    if self.server.opened[behaviour] > 1:
                        return self.answer({"status": 403})
            return self.answer(OPENED)
        server = self.server
        with server.lock:
            server.polls[behaviour] = server.polls.get(behaviour, 0) + 1
            first = server.polls[behaviour] == 1
        if behaviour == "gone" or behaviour == "gone_then_forbidden":
            time.sleep(0.2)
            return self.answer({"messages": [], "status": 410, "token": "T2"})
        if behaviour == "garbage":
            return self.answer("<html><body>502 Bad Gateway</body></html>", status=502)
        if behaviour == "error500":
            return self.answer({"status": 500}, status=500)
        if behaviour == "close_early":
            return self.close_without_answer()
        if behaviour == "unknown_status":
            return self.answer({"status": 302, "token": "T1", "messages": []})
        if behaviour == "post_refused" or behaviour == "gone_after_join":
            # Holds the poll a moment, then answers with the join's reply once.
            time.sleep(0.2)
            if behaviour == "gone_after_join" and not first:
                return self.answer({"messages": [], "status": 410, "token": "T9"})
            return self.answer({"messages": [JOIN_OK] if first and behaviour == "gone_after_join" else [],
                                "status": 200 if first and behaviour == "gone_after_join" else 204, "token": "T1"})
        self.answer({"messages": [], "status": 204, "token": "T1"})

    def do_POST(self):
        length = int(self.headers.get("content-length", "0"))
        self.rfile.read(length)
        behaviour = urlsplit(self.path).path.split("/")[1]
        if behaviour == "post_refused":
            return self.answer({"status": 401})
        self.answer({"status": 200})


class MisbehavingServer:
    def __init__(self):
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Misbehaving)
        self.server.daemon_threads = True
        self.server.lock = threading.Lock()
        self.server.polls = {}
        self.server.opened = {}
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def opened(self):
        """{behaviour: sockets opened (or refused) so far}, for the behaviours that count them."""
        with self.server.lock:
            return dict(self.server.opened)

    def close(self):
        self.server.shutdown()
        self.server.server_close()


class BadServers(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = MisbehavingServer()

    @classmethod
    def tearDownClass(cls):
        cls.server.close()

    def run_against(self, behaviour, body, timeout=60):
        # A hang would be the harness's timeout.
        r = run(["run", channels_scenario(f"{self.server.url}/{behaviour}/socket", body,
                                          vus=1)], timeout=timeout)
        self.assertEqual(r.code, 0, r)
        self.assertEqual(count(r, "vu.crashes"), 0, r)
        self.assertEqual(count(r, "iteration.errors"), 0, r)
        return r

    def socket_ends(self, behaviour, reason):
        """The socket opens, then the server's answer to a poll ends it with `reason`."""
        r = self.run_against(behaviour, """
  local socket = channels.connect(URL, { transport = "longpoll", timeout = "5s", reconnect = false })
  local ok, err = pcall(socket.join, socket, "room:a")
  stampede.check("the join failed closed", not ok and err.kind == "closed")
  stampede.check("the socket is closed", not socket:is_open())
""")
        self.assertEqual(r.code, 0, r)
        self.assertIn("100.00%", r.out, r)
        self.assertEqual(r.reasons("longpoll.errors"), {reason: 1}, r)
        self.assertEqual(r.reasons("channel.join.errors"), {"closed": 1}, r)
        return r

    def test_a_410_mid_session_is_session_gone(self):
        self.socket_ends("gone", "session_gone")

    def test_a_garbage_answer_is_invalid_response(self):
        self.socket_ends("garbage", "invalid_response")

    def test_a_500_is_server_error(self):
        self.socket_ends("error500", "server_error")

    def test_a_connection_closed_without_an_answer(self):
        r = self.run_against("close_early", """
  local socket = channels.connect(URL, { transport = "longpoll", timeout = "5s", reconnect = false })
  local ok, err = pcall(socket.join, socket, "room:a")
  stampede.check("the join failed closed", not ok and err.kind == "closed")
""")
        reasons = r.reasons("longpoll.errors")
        self.assertEqual(sum(reasons.values()), 1, r)
        self.assertIn(next(iter(reasons)), ("closed", "reset", "protocol"), r)

    def test_an_unknown_status_closes_instead_of_hanging(self):
        self.socket_ends("unknown_status", "unhandled_status")

    def test_a_refused_post_is_publish_failed(self):
        self.socket_ends("post_refused", "publish_failed")

    def test_a_session_gone_after_a_join(self):
        r = self.run_against("gone_after_join", """
  local socket = channels.connect(URL, { transport = "longpoll", timeout = "5s", reconnect = false })
  stampede.check("joined", type(socket:join("room:a")) == "table")
  local ok, err = pcall(socket.await, socket, "room:a", "never", { timeout = "5s" })
  stampede.check("the await ended", not ok)
  stampede.check("the socket is closed", not socket:is_open())
""")
        self.assertEqual(r.code, 0, r)
        self.assertNotIn("0.00%", r.out.replace("100.00%", ""), r)
        self.assertEqual(r.reasons("longpoll.errors"), {"session_gone": 1}, r)

    def test_reconnects_that_fail_back_off_and_are_counted(self):
        # The session goes 0.2 s after the connect; every reconnect is refused (403). The VU
        # waits until the server has refused seven (30 s is only a hang guard), not for a time
        # in which a busy host would fit fewer tries; its push then ends the iteration in the
        # second of back-off before the eighth.
        r = self.run_against("gone_then_forbidden", """
  local http = require "stampede.http"
  local json = require "stampede.json"
  local function refused() return (json.decode(http.get(STATS).body).opened.gone_then_forbidden or 1) - 1 end
  local socket = channels.connect(URL, { transport = "longpoll", timeout = "5s" })
  local give_up = stampede.now() + 30000
  while refused() < 7 and stampede.now() < give_up do stampede.sleep(50) end
  stampede.check("not open while it reconnects", not socket:is_open())
  local ok, err = pcall(socket.push, socket, "room:a", "ping", {}, { timeout = "300ms" })
  stampede.check("a push waits for the reconnect, then times out", not ok and err.kind == "timeout")
""".replace("STATS", json.dumps(self.server.url + "/stats")))
        self.assertEqual(r.code, 0, r)
        self.assertIn("100.00%", r.out, r)
        self.assertEqual(r.reasons("longpoll.errors").get("session_gone"), 1, r)
        refused = r.reasons("channel.reconnect.errors")
        self.assertEqual(list(refused), ["forbidden"], r)
        # Every refusal the server made was counted (the last maybe still on its way when the
        # iteration ended); the back-off (tries after 10, 60, 160, 310, 510, 760, 1260 ms ...)
        # is no tight loop: a 12th try would come after more than 15 s of waiting.
        server_refused = self.server.opened()["gone_then_forbidden"] - 1
        self.assertGreaterEqual(server_refused, 7, r)
        self.assertIn(refused["forbidden"], (server_refused - 1, server_refused), r)
        self.assertLessEqual(refused["forbidden"], 12, r)
        self.assertEqual(r.reasons("longpoll.errors").get("forbidden"), refused["forbidden"], r)
        self.assertEqual(count(r, "channel.reconnects"), 0, r)

    def test_a_refused_connect_is_forbidden(self):
        r = self.run_against("forbidden", """
  local ok, err = pcall(channels.connect, URL, { transport = "longpoll" })
  stampede.check("connect failed", not ok and err.kind == "connect_error")
  stampede.check("with the reason", err.reason == "forbidden" and err.status == 403)
""")
        self.assertEqual(r.code, 0, r)
        self.assertIn("100.00%", r.out, r)
        self.assertEqual(r.reasons("longpoll.errors"), {"forbidden": 1}, r)

    def test_a_stalled_connect_times_out(self):
        r = self.run_against("stall_connect", """
  local ok, err = pcall(channels.connect, URL, { transport = "longpoll", timeout = "500ms" })
  stampede.check("connect timed out", not ok and err.kind == "connect_error" and err.reason == "timeout")
""")
        self.assertEqual(r.code, 0, r)
        self.assertIn("100.00%", r.out, r)
        self.assertEqual(r.reasons("longpoll.errors"), {"timeout": 1}, r)


if __name__ == "__main__":
    main()
