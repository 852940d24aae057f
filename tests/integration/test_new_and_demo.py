"""`stampede new` (every kind of scenario, run green against the built-in target) and
`stampede demo` (target in-process, channels and LiveView, the dashboard serving, and the
target's own /metrics scraped into the Server section: checked in a real Chromium)."""
import json
import os
import re
import shutil
import subprocess
import time
import unittest
import urllib.request

from browser_check import artifact, require_browser, run_check
from harness import BIN, Result, Target, main, temp_dir
from node_peer import NodePeer

# What each kind must have measured for the run to count as really done.
KINDS = {
    "http": ("http.request", None),
    "channels": ("channel.join", "--channels"),
    "live": ("live.event", "--live"),
    "websocket": ("ws.connect", "--websocket"),
    "sse": ("sse.events", "--sse"),
    "graphql-ws": ("graphql.messages", "--graphql-ws"),
    "socketio": ("socketio.emit", "--socketio"),
}
# The kinds whose protocol the built-in target does not speak run against the reference
# server of their tests instead (npm graphql-ws, npm socket.io).
PEERS = {"graphql-ws": "graphql_server.js", "socketio": "socketio_server.js"}


def stampede(args, cwd, env=None, timeout=90):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([BIN, *args], cwd=cwd, env=e, capture_output=True, text=True, timeout=timeout)


def read(path):
    with open(path) as f:
        return f.read()


def metric_count(out, name):
    """The count of `name` in a summary (a timing's errors are in its row: Result.metric)."""
    row = Result(0, out, "").metric(name)
    return row["count"] if row else None


class NewTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.target = Target(delay="fixed:1")

    @classmethod
    def tearDownClass(cls):
        cls.target.close()

    def setUp(self):
        self.dir = temp_dir(prefix="stampede-new-")
        self.addCleanup(shutil.rmtree, self.dir, True)

    def test_list_shows_every_kind(self):
        r = stampede(["new", "--list"], self.dir)
        self.assertEqual(r.returncode, 0, r.stderr)
        for kind in KINDS:
            self.assertIn(f"--{kind}", r.stdout)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "loadtest")), "--list must not write anything")

    def test_every_listed_kind_is_an_accepted_flag(self):
        # `--list` offered --http while the parser refused it ("not expected", exit 2).
        listed = re.findall(r"(?m)^\s+--([a-z-]+)\s", stampede(["new", "--list"], self.dir).stdout)
        self.assertEqual(sorted(listed), sorted(KINDS))
        for kind in listed:
            with self.subTest(kind=kind):
                r = stampede(["new", f"listed_{kind}", f"--{kind}"], self.dir)
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertIn(f"({kind})", r.stdout)
        # --http is the explicit form of the default: the same file as no flag at all.
        self.assertEqual(stampede(["new", "default_kind"], self.dir).returncode, 0)
        self.assertEqual(read(os.path.join(self.dir, "loadtest", "listed_http.lua")).replace("listed_http", "N"),
                         read(os.path.join(self.dir, "loadtest", "default_kind.lua")).replace("default_kind", "N"))
        # --help shows the same kinds, and two kinds at once are refused.
        help_flags = re.findall(r"(?m)^\s+--([a-z-]+)\s+(?:Excludes|A )", stampede(["new", "--help"], self.dir).stdout)
        self.assertEqual(sorted(help_flags), sorted(KINDS))
        r = stampede(["new", "two", "--http", "--channels"], self.dir)
        self.assertEqual(r.returncode, 2, r.stdout)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "loadtest", "two.lua")))

    def test_every_kind_runs_green_against_the_target(self):
        for kind, (metric, flag) in KINDS.items():
            with self.subTest(kind=kind):
                name = f"my_{kind}"
                r = stampede(["new", name] + ([flag] if flag else []), self.dir)
                self.assertEqual(r.returncode, 0, r.stderr)
                path = os.path.join(self.dir, "loadtest", name + ".lua")
                text = read(path)
                self.assertIn('"http://localhost:4000"', text, "the default URL is a local Phoenix app's")
                self.assertIn("reference/lua.md", text, "the comments point at the reference")
                self.assertIn("thresholds", text)
                self.assertNotIn("{{", text, "every placeholder is filled")
                peer = NodePeer(PEERS[kind]) if kind in PEERS else None
                try:
                    run = stampede(["run", path, "--vus", "2", "--duration", "2s", "-q"], self.dir,
                                   env={"BASE_URL": peer.url if peer else self.target.url})
                finally:
                    if peer:
                        peer.close()
                self.assertEqual(run.returncode, 0, f"{kind}: {run.stdout}\n{run.stderr[-3000:]}")
                self.assertRegex(run.stdout, r"(?m)^pass ", "the template's thresholds were judged")
                self.assertNotRegex(run.stdout, r"(?m)^fail ")
                count = metric_count(run.stdout, metric)
                self.assertIsNotNone(count, f"{kind}: no {metric} row\n{run.stdout}")
                self.assertGreater(count, 0, f"{kind}: {metric} never recorded")
                self.assertEqual(metric_count(run.stdout, "iteration.errors"), 0, run.stdout)

    def test_luarc_points_editors_at_the_type_definitions(self):
        r = stampede(["new", "lobby", "--channels"], self.dir)
        self.assertEqual(r.returncode, 0, r.stderr)
        luarc = json.loads(read(os.path.join(self.dir, ".luarc.json")))
        library = luarc["workspace.library"][0]
        self.assertTrue(os.path.isfile(os.path.join(library, "stampede.lua")), library)
        self.assertTrue(os.path.isfile(os.path.join(library, "stampede", "channels.lua")), library)
        channels = read(os.path.join(library, "stampede", "channels.lua"))
        self.assertIn("function Socket:join(topic, payload, opts)", channels)
        # A second scenario leaves the user's .luarc.json alone.
        before = read(os.path.join(self.dir, ".luarc.json"))
        self.assertEqual(stampede(["new", "other"], self.dir).returncode, 0)
        self.assertEqual(read(os.path.join(self.dir, ".luarc.json")), before)

    def test_refuses_to_overwrite(self):
        self.assertEqual(stampede(["new", "lobby"], self.dir).returncode, 0)
        path = os.path.join(self.dir, "loadtest", "lobby.lua")
        with open(path, "w") as f:
            f.write("-- my edits\n")
        r = stampede(["new", "lobby", "--live"], self.dir)
        self.assertEqual(r.returncode, 2)
        self.assertIn("exists", r.stderr)
        self.assertEqual(read(path), "-- my edits\n")

    def test_url_flag_and_bad_input(self):
        r = stampede(["new", "api", "--url", self.target.url], self.dir)
        self.assertEqual(r.returncode, 0, r.stderr)
        run = stampede(["run", "loadtest/api.lua", "--vus", "1", "--duration", "1s", "-q"], self.dir)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr[-2000:])
        self.assertGreater(metric_count(run.stdout, "http.request"), 0)
        for args, message in [(["new", "bad name"], "not a usable name"), (["new"], "give the scenario a name"),
                              (["new", "x", "--url", "localhost:4000"], "needs a scheme")]:
            r = stampede(args, self.dir)
            self.assertEqual(r.returncode, 2, args)
            self.assertIn(message, r.stderr)
        r = stampede(["new", "x", "--live", "--channels"], self.dir)
        self.assertEqual(r.returncode, 2)


class DemoTest(unittest.TestCase):
    def test_demo_runs_channels_and_liveview_with_the_dashboard_and_the_servers_metrics(self):
        require_browser()
        # Long enough for the live page to chart a few seconds of the target's own /metrics.
        p = subprocess.Popen([BIN, "demo", "--duration", "10s", "--dashboard-listen", "127.0.0.1:0"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        page = None
        live = None
        err_lines = []
        try:
            # The dashboard's URL is printed before the run starts; it serves while the run goes.
            deadline = time.time() + 20
            while time.time() < deadline:
                line = p.stderr.readline()
                if not line:
                    break
                err_lines.append(line)
                m = re.match(r"dashboard: (http://127\.0\.0\.1:\d+/)", line)
                if m:
                    with urllib.request.urlopen(m.group(1), timeout=5) as resp:
                        page = (resp.status, resp.read().decode())
                    # Its Server section, in a real Chromium, while the demo runs.
                    live = run_check(self, "target_dashboard_check.js", "--url", m.group(1), "--min-seconds", "3",
                                     "--timeout-ms", "30000", "--screenshot", artifact("demo-dashboard.png"))
                    break
            out, rest = p.communicate(timeout=60)
        finally:
            if p.poll() is None:
                p.kill()
                p.communicate()
        err = "".join(err_lines) + rest
        self.assertIsNotNone(page, err)
        self.assertEqual(page[0], 200)
        self.assertIn("<html", page[1].lower())
        self.assertIsNotNone(live, err)
        self.assertEqual(p.returncode, 0, out + err[-3000:])
        for metric in ["channel.join", "broadcast.roundtrip", "live.join", "live.event"]:
            count = metric_count(out, metric)
            self.assertIsNotNone(count, f"no {metric} row\n{out}")
            self.assertGreater(count, 0, metric)
        self.assertEqual(metric_count(out, "iteration.errors"), 0, out)
        self.assertNotRegex(out, r"(?m)^fail ")
        self.assertIn("count goes up", out)
        # The target's own /metrics was scraped all along: its series are in the summary.
        self.assertRegex(err, r"server metrics: http://127\.0\.0\.1:\d+/metrics")
        rows = {line.split()[0] for line in out.splitlines() if line.split()}
        for name in ["server.stampede_target_channel_joins_total", "server.stampede_target_connections",
                     'server.stampede_target_websocket_sessions{kind="liveview"}', "server.scrape"]:
            self.assertIn(name, rows, out)
        self.assertEqual(Result(0, out, "").metric("server.scrape.errors")["count"], 0, out)

    def test_demo_rejects_a_bad_duration(self):
        r = subprocess.run([BIN, "demo", "--duration", "soon"], capture_output=True, text=True, timeout=30)
        self.assertEqual(r.returncode, 2)
        self.assertIn("--duration", r.stderr)


if __name__ == "__main__":
    main()
