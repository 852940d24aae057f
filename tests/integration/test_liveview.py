"""stampede.liveview end to end against the built-in target's LiveView pages, in both dialects
(LiveView 1.x under "/", 0.20 under "/lv020" with its socket at /lv020/live): what a browser
does, measured, with every failure a clear error. Then servers that misbehave."""
import json
import os
import re
import subprocess
import tempfile
import time
import unittest

from harness import Target, WsServer, run, upgrade_response, write_scenario, ws_frame, ws_read_frames, main


def scenario(base, socket_path, prefix, body, options):
    return write_scenario(f"""
local live = require "stampede.liveview"
local stampede = require "stampede"
local BASE = "{base}"
local PREFIX = "{prefix}"
local OPTS = {{ socket_path = "{socket_path}" }}
local function opts(extra)
  local o = {{ socket_path = OPTS.socket_path }}
  for k, v in pairs(extra or {{}}) do o[k] = v end
  return o
end
return {{ options = {{ {options} }},
         run = function(vu)
{body}
         end }}
""")


def assert_checks_pass(test, r):
    test.assertEqual(r.code, 0, r)
    section = r.out.split("\nchecks\n", 1)
    test.assertEqual(len(section), 2, r)
    lines = [line for line in section[1].splitlines() if "%" in line and line.startswith("  ")]
    test.assertTrue(lines, r)
    for line in lines:
        test.assertIn("100.00%", line, r)
    test.assertEqual(r.metric("iteration.errors")["count"], 0, r)


def reasons(r, metric):
    """{reason: count} under a counter's summary row."""
    return r.reasons(metric)


class DialectTests:
    """The flows every dialect must pass; subclasses say where the dialect lives."""
    PREFIX = ""
    SOCKET = "/live"
    VERSION = ""

    @classmethod
    def setUpClass(cls):
        cls.target = Target()

    @classmethod
    def tearDownClass(cls):
        cls.target.close()

    def run_body(self, body, options='vus = 2, iterations = 2'):
        # By default each of 2 VUs runs BODY once: the run ends when the last has.
        base = self.target.url + self.PREFIX
        return run(["run", scenario(base, self.SOCKET, self.PREFIX, body, options), "--quiet"])

    def test_counter_clicks_reply_and_render(self):
        r = self.run_body(f"""
  local view = live.connect(BASE .. "/counter", OPTS)
  stampede.check("starts at 0", view:text("#count") == "0")
  local reply = view:click("inc")
  stampede.check("the reply map comes back", type(reply) == "table" and reply.count == 1)
  stampede.check("the diff is merged", view:text("#count") == "1")
  stampede.check("no reply is nil", view:click("inc_noreply") == nil)
  stampede.check("rendered 2", view:text("#count") == "2")
  stampede.check("html has the button", view:html():find('phx-click="inc"', 1, true) ~= nil)
  stampede.check("version", view:version():match("{self.VERSION}") ~= nil)
  stampede.check("title", view:title() == "Counter")
""")
        assert_checks_pass(self, r)
        # One iteration in each of the 2 VUs: a page, its socket and join, two clicks.
        for m, n in (("live.page", 2), ("live.join", 2), ("live.event", 4), ("ws.connect", 2), ("http.request", 2)):
            self.assertEqual(r.metric(m)["count"], n, m + "\n" + repr(r))
        self.assertGreater(r.metric("live.diff.bytes")["count"], 0, r)
        self.assertGreater(r.metric("live.diff.bytes.total")["count"], r.metric("live.diff.bytes")["count"], r)
        # Sizes print as sizes: a counter page's diffs are tens to a few thousand bytes, never
        # nanoseconds.
        row = next(line for line in r.out.splitlines() if line.startswith("live.diff.bytes "))
        self.assertRegex(row, r"\d(B|kB)\s", r)
        self.assertNotRegex(row, r"(ns|µs|ms)\b", r)
        self.assertTrue(10 <= r.metric("live.diff.bytes")["p50"] <= 20000, r)
        self.assertEqual(r.metric("live.event.errors")["count"], 0, r)
        self.assertEqual(r.metric("live.join.errors")["count"], 0, r)

    def test_diff_sizes_are_a_distribution_of_bytes_in_the_results_file(self):
        root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "results.json")
            base = self.target.url + self.PREFIX
            r = run(["run", scenario(base, self.SOCKET, self.PREFIX, """
  local view = live.connect(BASE .. "/counter", OPTS)
  view:click("inc")
""", 'vus = 1, iterations = 1, thresholds = { {"live.diff.bytes", p95 = 100000}, {"live.diff.bytes", max = 5} }'),
                     "--quiet", "--out", out])
            # Judged in bytes: were the values read as nanoseconds and the limits as ms,
            # "max = 5" would pass.
            self.assertEqual(r.code, 1, r)
            with open(out) as f:
                doc = json.load(f)
            m = doc["results"][0]["metrics"]["live.diff.bytes"]
            self.assertEqual((m["kind"], m["unit"]), ("distribution", "bytes"), m)
            self.assertGreaterEqual(m["count"], 2, m)  # a join reply and a click reply per iteration
            self.assertTrue(10 <= m["p50"] <= m["max"] <= 20000, m)
            self.assertNotIn("p50_ms", m)
            verdicts = [(t["aggregation"], t["pass"], t["unit"]) for t in doc["results"][0]["thresholds"]]
            self.assertEqual(verdicts, [("p95", True, "count"), ("max", False, "count")], verdicts)
            check = subprocess.run(["node", os.path.join(root, "tests", "js", "validate_results.js"),
                                    os.path.join(root, "schema", "results.schema.json"), out],
                                   capture_output=True, text=True, timeout=60)
            self.assertEqual(check.returncode, 0, check.stdout + check.stderr)

    def test_each_user_action_is_counted_once(self):
        # The LiveView socket's joins and events are live.join / live.event only, not
        # channel.join / channel.push as well; the page GET is also an http.request, as any
        # request a browser makes.
        r = self.run_body("""
  local view = live.connect(BASE .. "/counter", OPTS)
  view:click("inc")
  view:click("inc")
""")
        self.assertEqual(r.metric("iteration.errors")["count"], 0, r)
        for name in ("channel.join", "channel.push", "channel.leave", "channel.messages", "channel.heartbeat"):
            self.assertIsNone(r.metric(name), name + "\n" + repr(r))
        pages, joins, events = (r.metric(m)["count"] for m in ("live.page", "live.join", "live.event"))
        self.assertEqual(pages, 2, r)  # one iteration in each of the 2 VUs
        self.assertEqual(joins, pages, r)
        self.assertEqual(events, 2 * pages, r)
        self.assertEqual(r.metric("http.request")["count"], pages, r)
        # Every join and event is still one request in the run's request count (with the page
        # GET and the socket's connect).
        m = re.search(r"requests: (\d+) sent, (\d+) completed", r.out)
        self.assertIsNotNone(m, r)
        connects = r.metric("ws.connect")["count"]
        self.assertEqual(connects, pages, r)
        self.assertEqual(int(m.group(2)), pages + connects + joins + events, r)

    def test_form_validate_then_save_navigates_to_posts_with_the_flash(self):
        r = self.run_body("""
  local view = live.connect(BASE .. "/posts/new", OPTS)
  view:change("validate", { post = { title = " " } })
  stampede.check("blank title refused", view:text(".error") == "can't be blank")
  view:change("validate", { post = { title = "Hi from " .. vu.id } })
  stampede.check("error gone", view:text(".error") == nil)
  local ok, err = pcall(view.submit, view, "save", { post = { title = "Hi from " .. vu.id } })
  stampede.check("save navigates", not ok and err.kind == "live_redirect")
  stampede.check("to /posts", err.live_redirect.to == PREFIX .. "/posts" and err.to == BASE .. "/posts")
  view = view:follow(err)
  stampede.check("the flash is shown", view:text("#flash-info") == "Post created")
  stampede.check("the url changed", view:url() == BASE .. "/posts")
  stampede.check("events work on the new page", view:text("#page") == "1")
""")
        assert_checks_pass(self, r)
        self.assertGreater(r.metric("live.navigate")["count"], 0, r)
        self.assertEqual(r.metric("live.navigate.errors")["count"], 0, r)

    def test_misspelled_form_events_and_fields_raise_before_anything_is_sent(self):
        # As Phoenix.LiveViewTest does: no form bound to the event, or a value for a field the
        # form does not have, is a scenario mistake named in a Lua error, not a request that no
        # browser could send (the server would crash on "validat", or read "post[titel]").
        r = self.run_body("""
  local view = live.connect(BASE .. "/posts/new", OPTS)
  local function fails(label, needles, fn, ...)
    local ok, err = pcall(fn, view, ...)
    local good = not ok and type(err) == "table" and err.kind == "not_found"
    for _, needle in ipairs(needles) do
      good = good and err.message:find(needle, 1, true) ~= nil
    end
    stampede.check(label, good)
    if not good then print(label, ok, tostring(err)) end
  end
  fails("change: no form for the event", {'phx-change="validat"', 'phx-change="validate"', "#post-form"},
        view.change, "validat", { post = { title = "x" } })
  fails("submit: no form for the event", {'phx-submit="sav"', 'phx-submit="save"'},
        view.submit, "sav", { post = { title = "x" } })
  fails("change: unknown field", {'"post[titel]"', "post[title]", "post[body]"},
        view.change, "validate", { post = { titel = "typo" } })
  fails("submit: unknown field", {'"post[titel]"', "post[title]"},
        view.submit, "save", { post = { titel = "typo" } })
  fails("change: unknown field in a form given by selector", {'"post[titel]"'},
        view.change, "validate", { post = { titel = "typo" } }, { form = "#post-form" })
  fails("change: unknown target field", {'"post[titel]"'},
        view.change, "validate", { post = { title = "x" } }, { field = "post[titel]" })
  fails("change: no form matches the selector", {"#no-such-form"},
        view.change, "validate", { post = { title = "x" } }, { form = "#no-such-form" })
  -- Nothing was sent: the view is alive, and what worked before still works.
  view:change("validate", { post = { title = " " } })
  stampede.check("found by its event", view:text(".error") == "can't be blank")
  view:change("validate", { post = { title = "ok" } }, { form = "#post_title" })
  stampede.check("found around an input given by selector", view:text(".error") == nil)
  view:change("validate", "post%5Btitle%5D=+")
  stampede.check("url-encoded values", view:text(".error") == "can't be blank")
""", options='vus = 1, iterations = 1')
        assert_checks_pass(self, r)
        pages = r.metric("live.page")["count"]
        self.assertEqual(r.metric("live.event")["count"], 3 * pages, r)
        self.assertEqual(r.metric("live.event.errors")["count"], 0, r)

    def test_patch_then_navigate_over_the_same_socket(self):
        r = self.run_body("""
  local view = live.connect(BASE .. "/posts", OPTS)
  stampede.check("page 1", view:text("#page") == "1")
  view:patch(PREFIX .. "/posts?page=2")
  stampede.check("page 2", view:text("#page") == "2")
  stampede.check("url patched", view:url() == BASE .. "/posts?page=2")
  view:patch("?page=1")
  stampede.check("relative patch", view:text("#page") == "1")
  view = view:navigate(PREFIX .. "/counter")
  stampede.check("navigated", view:text("#count") == "0" and view:url() == BASE .. "/counter")
  stampede.check("events work after navigating", view:click("inc").count == 1)
""")
        assert_checks_pass(self, r)
        self.assertGreater(r.metric("live.patch")["count"], 0, r)
        # One socket per page: the patches and the navigation did not open more.
        self.assertEqual(r.metric("ws.connect")["count"], r.metric("live.page")["count"], r)

    def test_component_target(self):
        r = self.run_body("""
  local view = live.connect(BASE .. "/components", OPTS)
  local reply = view:click("bump", nil, { target = 1 })
  stampede.check("component replied", reply.clicks == 1)
  stampede.check("component rendered", view:text("#clicker-clicks") == "1")
  stampede.check("parent untouched", view:text("#parent-clicks") == "0")
  reply = view:click("bump")   -- the button's phx-target="1", read from the page
  stampede.check("target read from the element", reply.clicks == 2 and view:text("#clicker-clicks") == "2")
  view:click("parent_click")
  stampede.check("parent event", view:text("#parent-clicks") == "1")
""")
        assert_checks_pass(self, r)

    def test_upload_150000_bytes_then_save(self):
        r = self.run_body("""
  local bytes = {}
  for i = 0, 149999 do bytes[#bytes + 1] = string.char(i % 256) end
  local view = live.connect(BASE .. "/upload", OPTS)
  view:upload("avatar", { { name = "golden_150000.bin", content = table.concat(bytes) } })
  stampede.check("progress rendered", view:text("#upload-form .entry") ~= nil)
  view:submit("save", {})
  stampede.check("uploaded", view:text("#uploaded") == "Uploaded golden_150000.bin: 150000 bytes")
  local diff, msg = view:await({ timeout = 2000 })
  stampede.check("the view's own diff pushes are awaited", type(diff) == "table" and msg.kind == "diff")
""", options='vus = 1, iterations = 1')
        assert_checks_pass(self, r)
        self.assertEqual(r.metric("live.upload")["count"], 1, r)
        self.assertEqual(r.metric("live.upload.errors")["count"], 0, r)

    def test_login_redirect_then_the_dashboard(self):
        r = self.run_body("""
  local view = live.connect(BASE .. "/login?user=alice", OPTS)
  stampede.check("redirected", view:url() == BASE .. "/dashboard")
  stampede.check("logged in", view:text("#greeting") == "Hello alice")
""")
        assert_checks_pass(self, r)

    def test_logged_out_dashboard_is_a_login_page_error(self):
        r = self.run_body("""
  local ok, err = pcall(live.connect, BASE .. "/dashboard", OPTS)
  stampede.check("page_error", not ok and err.kind == "page_error")
  stampede.check("says login", err.message:find("login page", 1, true) ~= nil)
  stampede.check("names both URLs", err.message:find(BASE .. "/dashboard (redirected to " .. BASE .. "/login)", 1, true) ~= nil)
  stampede.check("points to the guide", err.message:find("Pages behind a login", 1, true) ~= nil)
""", options='vus = 1, iterations = 1')
        assert_checks_pass(self, r)
        self.assertEqual(reasons(r, "live.page.errors"), {"login page": r.metric("live.page.errors")["count"]}, r)

    def test_stale_and_crashing_joins_are_join_errors_with_the_servers_reason(self):
        r = self.run_body("""
  local ok, err = pcall(live.connect, BASE .. "/stale", OPTS)
  stampede.check("stale", not ok and err.kind == "join_error" and err.reason == "stale" and err.response.reason == "stale")
  ok, err = pcall(live.connect, BASE .. "/crash", OPTS)
  stampede.check("crash", not ok and err.kind == "join_error" and err.response.reason == "join crashed")
  stampede.check("readable", tostring(err):find("join crashed", 1, true) ~= nil)
  live.connect(BASE .. "/stale", OPTS)
""", options='vus = 1, iterations = 1')
        self.assertEqual(r.code, 0, r)
        self.assertRegex(r.out, r"stale\s+100\.00%")
        self.assertRegex(r.out, r"crash\s+100\.00%")
        # One iteration: two stale joins (the second uncaught) and a crashed one.
        self.assertEqual(reasons(r, "live.join.errors"), {"stale": 2, "join crashed": 1}, r)
        # The uncaught one reads well in the summary, without ids that differ per page.
        self.assertIn(f'liveview: the server refused to join the LiveView at {self.target.url}{self.PREFIX}/stale: '
                      '{"reason":"stale"}', r.out)

    def test_wrong_socket_path_is_explained(self):
        wrong = "/lv020/live" if self.SOCKET == "/live" else "/live"
        r = self.run_body(f"""
  local ok, err = pcall(live.connect, BASE .. "/counter", opts({{ socket_path = "{wrong}" }}))
  stampede.check("stale", not ok and err.kind == "join_error" and err.reason == "stale")
  stampede.check("hint", err.message:find("socket_path", 1, true) ~= nil)
""", options='vus = 1, iterations = 1')
        assert_checks_pass(self, r)


class LiveView1x(DialectTests, unittest.TestCase):
    PREFIX = ""
    SOCKET = "/live"
    VERSION = r"^1%.2%."


class LiveView020(DialectTests, unittest.TestCase):
    PREFIX = "/lv020"
    SOCKET = "/lv020/live"
    VERSION = r"^0%.20%."


def request_tally(r):
    m = re.search(r"requests: (\d+) sent, (\d+) completed, (\d+) failed, (\d+) in flight at the end", r.out)
    assert m, r
    return tuple(int(g) for g in m.groups())


class ActionsOnAGoneView(unittest.TestCase):
    """A user action on a view the server closed or that crashed fails with `closed` and is
    counted, under live.<action>.errors and in the run's requests, like a channels push on a
    closed socket; an action after the scenario's own view:close() is not."""

    @classmethod
    def setUpClass(cls):
        cls.target = Target(extra=("--ws-idle-timeout", "1s"))

    @classmethod
    def tearDownClass(cls):
        cls.target.close()

    def run_once(self, body):
        return run(["run", scenario(self.target.url, "/live", "", body,
                                    'vus = 1, iterations = 1'), "--quiet"])

    def assert_tally_adds_up(self, r, failed):
        sent, completed, failed_seen, in_flight = request_tally(r)
        self.assertEqual(sent, completed + failed_seen + in_flight, r)
        self.assertEqual(in_flight, 0, r)
        self.assertEqual(failed_seen, failed, r)

    def test_actions_after_the_server_closed_the_socket_count_closed(self):
        r = self.run_once("""
  local view = live.connect(BASE .. "/posts/new", opts({ heartbeat = false }))
  stampede.sleep(2000)   -- the target closes a socket idle for 1 s
  stampede.check("the socket is closed", not view:is_open())
  local function closed(label, fn, ...)
    local ok, err = pcall(fn, view, ...)
    stampede.check(label, not ok and err.kind == "closed")
  end
  closed("click", view.click, "inc")
  closed("change", view.change, "validate", { post = { title = "x" } })
  closed("submit", view.submit, "save", { post = { title = "x" } })
  closed("patch", view.patch, "/posts/new?x=1")
  closed("upload", view.upload, "avatar", { { name = "a.txt", content = "a" } })
  view:close()
  closed("after close", view.click, "inc")   -- the scenario's own doing: not counted
""")
        assert_checks_pass(self, r)
        self.assertEqual(reasons(r, "live.event.errors"), {"closed": 3}, r)
        self.assertEqual(reasons(r, "live.patch.errors"), {"closed": 1}, r)
        self.assertEqual(reasons(r, "live.upload.errors"), {"closed": 1}, r)
        self.assertRegex(r.out, r"(?m)^live\.event +0 ", r)  # nothing was answered: nothing timed
        self.assert_tally_adds_up(r, failed=5)

    def test_an_action_on_a_crashed_view_counts_closed(self):
        r = self.run_once("""
  local view = live.connect(BASE .. "/counter", OPTS)
  local ok, err = pcall(view.click, view, "no_such_event")
  stampede.check("crashed", not ok and err.kind == "view_crashed")
  ok, err = pcall(view.click, view, "inc")
  stampede.check("then closed", not ok and err.kind == "closed")
""")
        assert_checks_pass(self, r)
        n = r.metric("iterations")["count"]
        self.assertEqual(reasons(r, "live.event.errors"), {"view_crashed": n, "closed": n}, r)
        self.assert_tally_adds_up(r, failed=2 * n)


class NotALiveView(unittest.TestCase):
    def test_a_json_api_is_a_clear_page_error(self):
        with Target() as target:
            path = scenario(target.url, "/live", "", """
  local ok, err = pcall(live.connect, BASE .. "/api/posts", OPTS)
  stampede.check("page_error", not ok and err.kind == "page_error")
  stampede.check("says what is missing", err.message:find(BASE .. "/api/posts has no LiveView", 1, true) ~= nil)
  stampede.check("says it is JSON", err.message:find("application/json", 1, true) ~= nil)
""", 'vus = 1, iterations = 1')
            r = run(["run", path, "--quiet"])
        assert_checks_pass(self, r)
        self.assertEqual(set(reasons(r, "live.page.errors")), {"no liveview"}, r)


# --- servers that misbehave ---------------------------------------------------------------

PAGE = """<!DOCTYPE html><html><head><meta name="csrf-token" content="csrf-from-the-page"></head><body>
<div id="phx-F" data-phx-main data-phx-session="SFMyNTY.g2gDaAJhBnQAAAAIZAACaWRt.sig" data-phx-static="st">
<main><p id="n">0</p></main></div></body></html>"""


class FakeLiveViewServer(WsServer):
    """Serves PAGE for any GET and runs `on_socket(conn, frames)` for the LiveView socket, where
    `frames` yields the client's decoded text frames (heartbeats left out)."""

    def __init__(self, on_socket=None, on_get=None):
        super().__init__(self.serve_one, answer_upgrade=False)
        self.on_socket = on_socket
        self.on_get = on_get
        self.url = f"http://127.0.0.1:{self.port}"

    def serve_one(self, conn, head):
        if "upgrade: websocket" not in head.lower():
            if self.on_get:
                conn.sendall(self.on_get(head))
            else:
                body = PAGE.encode()
                conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: text/html\r\nconnection: close\r\n"
                             b"content-length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
            return
        key = re.search(r"(?i)sec-websocket-key:\s*(\S+)", head).group(1)
        conn.sendall(upgrade_response(key))

        def frames():
            for opcode, data in ws_read_frames(conn, timeout=10):
                if opcode == 1:
                    msg = json.loads(data)
                    if msg[2] != "phoenix":
                        yield msg
        self.on_socket(conn, frames())


def reply(conn, msg, response, status="ok"):
    conn.sendall(ws_frame(json.dumps([msg[0], msg[1], msg[2], "phx_reply", {"status": status, "response": response}])))


def answer_join(rendered_extra=None, then=None):
    def on_socket(conn, frames):
        for msg in frames:
            if msg[3] == "phx_join":
                response = {"liveview_version": "1.2.10",
                            "rendered": {"0": "0", "s": ["<p id=\"n\">", "</p>"], "r": 1}}
                response.update(rendered_extra or {})
                reply(conn, msg, response)
                if then:
                    then(conn, msg, frames)
                return
    return on_socket


class MisbehavingLiveView(unittest.TestCase):
    def run_against(self, server, body, options='vus = 1, iterations = 1', timeout=60):
        with server:
            r = run(["run", scenario(server.url, "/live", "", body, options), "--quiet"], timeout=timeout)
        return r

    def test_a_join_reply_that_never_comes_times_out(self):
        # The server reads the join, answers nothing and closes the socket 3 s later: a join
        # that waited past its 300 ms (for the 10 s default) would fail "closed" then.
        r = self.run_against(FakeLiveViewServer(lambda conn, frames: (next(frames, None), time.sleep(3))), """
  local t0 = stampede.now()
  local ok, err = pcall(live.connect, BASE .. "/page", opts({ timeout = 300 }))
  stampede.check("timeout", not ok and err.kind == "timeout")
  stampede.check("not before its timeout", stampede.now() - t0 >= 300)
  stampede.check("says which join", err.message:find("join the LiveView at " .. BASE .. "/page", 1, true) ~= nil)
""")
        assert_checks_pass(self, r)
        self.assertEqual(set(reasons(r, "live.join.errors")), {"timeout"}, r)

    def test_a_redirect_loop_on_page_load_is_a_clear_error(self):
        def loop(head):
            return b"HTTP/1.1 302 Found\r\nlocation: /loop\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
        r = self.run_against(FakeLiveViewServer(on_get=loop), """
  local ok, err = pcall(live.connect, BASE .. "/start", opts({ redirects = 3 }))
  stampede.check("page_error", not ok and err.kind == "page_error")
  stampede.check("says loop", err.message:find("redirect loop", 1, true) ~= nil)
  stampede.check("names the start", err.message:find(BASE .. "/start", 1, true) ~= nil)
""")
        assert_checks_pass(self, r)
        self.assertEqual(set(reasons(r, "live.page.errors")), {"redirects"}, r)

    def test_an_unsupported_version_names_the_supported_ones(self):
        r = self.run_against(FakeLiveViewServer(answer_join({"liveview_version": "1.3.0"})), """
  local ok, err = pcall(live.connect, BASE .. "/page", OPTS)
  stampede.check("version_error", not ok and err.kind == "version_error")
  stampede.check("names them", err.message:find("0.20.x and 1.0 to 1.2", 1, true) ~= nil)
""")
        assert_checks_pass(self, r)

    def test_the_socket_carries_the_csrf_token_and_no_origin(self):
        seen = {}

        def record(conn, frames):
            for msg in frames:
                seen["join"] = msg
                reply(conn, msg, {"liveview_version": "1.2.10", "rendered": {"0": "0", "s": ["<p>", "</p>"], "r": 1}})
                time.sleep(0.5)
                return
        server = FakeLiveViewServer(record)
        original = server.serve_one

        def keep_head(conn, head):
            if "upgrade: websocket" in head.lower():
                seen["head"] = head
            original(conn, head)
        server.behaviour = keep_head
        r = self.run_against(server, """
  live.connect(BASE .. "/page", OPTS)
""", options='vus = 1, iterations = 1')
        self.assertEqual(r.code, 0, r)
        self.assertIn("GET /live/websocket?_csrf_token=csrf-from-the-page&", seen["head"])
        self.assertIn("vsn=2.0.0", seen["head"])
        self.assertNotRegex(seen["head"], r"(?i)\norigin:")
        self.assertEqual(seen["join"][3], "phx_join")
        self.assertEqual(seen["join"][4]["url"], server.url + "/page")
        self.assertEqual(seen["join"][4]["params"]["_csrf_token"], "csrf-from-the-page")

    def test_a_live_redirect_push_ends_an_await(self):
        def push_redirect(conn, join, frames):
            time.sleep(0.1)
            conn.sendall(ws_frame(json.dumps([join[0], None, join[2], "live_redirect", {"to": "/elsewhere", "kind": "push"}])))
            time.sleep(1)
        r = self.run_against(FakeLiveViewServer(answer_join(then=push_redirect)), """
  local view = live.connect(BASE .. "/page", OPTS)
  local ok, err = pcall(view.await, view, { timeout = 3000 })
  stampede.check("live_redirect", not ok and err.kind == "live_redirect" and err.live_redirect.to == "/elsewhere")
  stampede.check("absolute", err.to == BASE .. "/elsewhere")
""", options='vus = 1, iterations = 1')
        assert_checks_pass(self, r)

    def test_a_crash_during_an_event_fails_it_at_once(self):
        def crash_on_event(conn, join, frames):
            for msg in frames:
                if msg[3] == "event":
                    conn.sendall(ws_frame(json.dumps([join[0], join[0], join[2], "phx_error", {}])))
            time.sleep(0.5)
        r = self.run_against(FakeLiveViewServer(answer_join(then=crash_on_event)), """
  local view = live.connect(BASE .. "/page", OPTS)
  local ok, err = pcall(view.click, view, "boom", {})
  -- At once: a click that waited for its reply would end at the server's close (0.5 s later)
  -- as "closed", or at its timeout as "timeout".
  stampede.check("view_crashed", not ok and err.kind == "view_crashed")
  ok, err = pcall(view.click, view, "again", {})
  stampede.check("then closed", not ok and err.kind == "closed")
""", options='vus = 1, iterations = 1')
        assert_checks_pass(self, r)
        # The click on the crashed view is counted too.
        n = r.metric("iterations")["count"]
        self.assertEqual(reasons(r, "live.event.errors"), {"view_crashed": n, "closed": n}, r)

    def test_components_that_leave_the_page_are_destroyed_like_the_browser(self):
        seen = []

        def serve(conn, frames):
            for msg in frames:
                seen.append(msg[3])
                if msg[3] == "phx_join":
                    reply(conn, msg, {"liveview_version": "1.2.10", "rendered": {
                        "0": 1, "s": ["<div>", "</div>"], "r": 1,
                        "c": {"1": {"0": "hello", "s": ["<p id=\"c\">", "</p>"], "r": 1}}}})
                elif msg[3] == "event":
                    reply(conn, msg, {"diff": {"0": ""}})
                elif msg[3] == "cids_will_destroy":
                    seen.append(msg[4])
                    reply(conn, msg, {})
                elif msg[3] == "cids_destroyed":
                    seen.append(msg[4])
                    reply(conn, msg, {"cids": msg[4]["cids"]})
        r = self.run_against(FakeLiveViewServer(serve), """
  local view = live.connect(BASE .. "/page", OPTS)
  stampede.check("component shown", view:text("#c") == "hello")
  view:click("remove", {})
  stampede.check("component gone", view:text("#c") == nil)
  stampede.sleep(300)
""", options='vus = 1, iterations = 1')
        assert_checks_pass(self, r)
        self.assertEqual(seen, ["phx_join", "event", "cids_will_destroy", {"cids": [1]},
                                "cids_destroyed", {"cids": [1]}], r)

    def test_nested_liveviews_are_joined_after_their_parent_like_the_browser(self):
        joins = {}
        child = ('<div id="clock" data-phx-session="SFMyNTY.child" data-phx-static="" '
                 'data-phx-parent-id="phx-F"></div>')

        def page(head):
            body = PAGE.replace('<p id="n">0</p>', '<div id="clock" data-phx-session="" data-phx-static="dead-static" '
                                'data-phx-parent-id="phx-F"></div>').encode()
            return (b"HTTP/1.1 200 OK\r\ncontent-type: text/html\r\nconnection: close\r\ncontent-length: " +
                    str(len(body)).encode() + b"\r\n\r\n" + body)

        def serve(conn, frames):
            for msg in frames:
                if msg[3] != "phx_join":
                    continue
                joins[msg[2]] = msg[4]
                if msg[2] == "lv:phx-F":
                    reply(conn, msg, {"liveview_version": "1.2.10",
                                      "rendered": {"0": child, "s": ["<section>", "</section>"], "r": 1}})
                else:
                    reply(conn, msg, {"liveview_version": "1.2.10",
                                      "rendered": {"0": "12:00", "s": ["<span id=\"time\">", "</span>"], "r": 1}})
        r = self.run_against(FakeLiveViewServer(serve, on_get=page), """
  local view = live.connect(BASE .. "/page", OPTS)
  stampede.check("the child's render is in the page", view:text("#clock #time") == "12:00")
  stampede.check("inside its container", view:html():find('parent%-id="phx%-F">%s*<span id="time">12:00</span></div>') ~= nil)
""", options='vus = 1, iterations = 1')
        assert_checks_pass(self, r)
        self.assertEqual(set(joins), {"lv:phx-F", "lv:clock"}, r)
        self.assertEqual(joins["lv:clock"]["session"], "SFMyNTY.child")
        self.assertEqual(joins["lv:clock"]["static"], "dead-static")  # kept from the dead render
        self.assertNotIn("url", joins["lv:clock"])
        self.assertEqual(joins["lv:clock"]["params"]["_csrf_token"], "csrf-from-the-page")


if __name__ == "__main__":
    main()
