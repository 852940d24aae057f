"""`stampede convert`: a HAR captured from real Chromium (the DevTools protocol, as DevTools'
"Save all as HAR with content" builds it) while it clicks through the built-in target's pages,
turned into a scenario that is checked for the expected calls and then run with 20 VUs against
the same target with zero iteration errors; `--check`; bad inputs (truncated, HAR 1.1, another
site, a LiveView HAR without frames, a 100 MB HAR read in bounded memory)."""
import json
import os
import resource
import subprocess
import unittest

from browser_check import JS_DIR, require_browser
from harness import BIN, Target, main, run, temp_dir

VECTORS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "vectors", "har")


class ConvertsAChromiumSession(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        require_browser()
        cls.target = Target()
        cls.dir = temp_dir()
        cls.har = os.path.join(cls.dir, "session.har")
        result = subprocess.run(["node", os.path.join(JS_DIR, "record_session.js"), "har", cls.target.url, cls.har],
                                cwd=JS_DIR, capture_output=True, text=True, timeout=180)
        if result.returncode != 0:
            raise AssertionError("the browser session failed:\n" + result.stdout + result.stderr)

    @classmethod
    def tearDownClass(cls):
        cls.target.close()

    def test_the_har_has_the_websocket_frames(self):
        har = json.loads(read(self.har))
        sockets = [e for e in har["log"]["entries"] if "_webSocketMessages" in e]
        self.assertGreaterEqual(len(sockets), 2, "a LiveView socket and a Channels socket")
        self.assertTrue(any(m["opcode"] == 2 for s in sockets for m in s["_webSocketMessages"]), "upload chunks")

    def test_check_lists_what_was_found_and_writes_nothing(self):
        out = os.path.join(self.dir, "never.lua")
        r = run(["convert", "--check", self.har, "-o", out])
        self.assertEqual(r.code, 0, r)
        self.assertFalse(os.path.exists(out))
        for line in ["LiveViews: /counter, /posts/new, /components, /upload", "topics:    room:lobby",
                     "  click inc", "  change validate per keystroke (post[title])",
                     "  submit save, then follow the navigation", "  patch /posts?page=2",
                     "  click bump (component 1)", "  upload avatar (1 file(s))", "  push room:lobby new_msg",
                     "  await room:lobby new_msg"]:
            self.assertIn(line, r.out, r)

    def test_the_scenario_runs_green_with_20_vus(self):
        path = os.path.join(self.dir, "checkout.lua")
        r = run(["convert", self.har, "-o", path, "--think-time", "300ms"])
        self.assertEqual(r.code, 0, r)
        text = read(path)
        for call in ['local view = live.connect(BASE .. "/counter")', 'view:click("inc")',
                     'view = live.connect(BASE .. "/posts/new")', '("Recorded post"):sub(1, n)',
                     'view = follow(view, "submit", "save", { post = { title = "Recorded post", body = "" } })',
                     'view:patch("/posts?page=2")', 'view:click("bump", nil, { target = 1 })',
                     'view:upload("avatar", { { name = "photo.bin", content = ("x"):rep(100000)',
                     'view:submit("save", {})',
                     'local socket = channels.connect(BASE .. "/socket", { params = { user_id = "browser" } })',
                     'socket:join("room:lobby")', 'socket:push("room:lobby", "new_msg", { body = "hello from Chromium" })',
                     'socket:await("room:lobby", "new_msg")', 'stampede.sleep("300ms")']:
            self.assertIn(call, text)
        for leak in ["SFMyNTY", "_csrf_token", "lv:phx-", "phx_join", "heartbeat\""]:
            self.assertNotIn(leak, text)
        results = os.path.join(self.dir, "results.json")
        r = run(["run", path, "--vus", "20", "--duration", "10s", "-q", "--out", results], timeout=120,
                env={"BASE_URL": self.target.url})
        self.assertEqual(r.code, 0, r)
        metrics = json.loads(read(results))["results"][0]["metrics"]
        self.assertEqual(metrics["iteration.errors"]["count"], 0, r)
        self.assertGreaterEqual(metrics["iterations"]["count"], 20, r)
        for name in ["live.join", "live.event", "live.upload", "live.patch", "channel.push"]:
            self.assertGreater(metrics[name]["count"], 0, name)


def read(path):
    with open(path) as f:
        return f.read()


def har_text(entries, version="1.2"):
    return json.dumps({"log": {"version": version, "creator": {"name": "t", "version": "1"}, "entries": entries}})


def entry(url, status=200, mime="text/html", text="", resource_type="document"):
    return {"startedDateTime": "2025-03-01T10:00:00.000Z", "time": 1, "_resourceType": resource_type,
            "request": {"method": "GET", "url": url, "headers": []},
            "response": {"status": status, "headers": [], "content": {"size": len(text), "mimeType": mime, "text": text}}}


class BadInput(unittest.TestCase):
    def convert(self, text, *args):
        directory = temp_dir()
        path = os.path.join(directory, "in.har")
        with open(path, "w") as f:
            f.write(text)
        return run(["convert", path, "-o", os.path.join(directory, "out.lua"), *args])

    def test_truncated_json(self):
        text = read(os.path.join(VECTORS, "lv-1.x.har"))
        r = self.convert(text[: len(text) // 3])
        self.assertEqual(r.code, 2, r)
        self.assertIn("the HAR file ends early", r.err)

    def test_har_1_1(self):
        r = self.convert(har_text([entry("http://127.0.0.1:4000/")], version="1.1"))
        self.assertEqual(r.code, 2, r)
        self.assertIn("this is a HAR 1.1 file; Stampede reads HAR 1.2", r.err)

    def test_a_har_from_another_site(self):
        r = self.convert(har_text([entry("https://example.com/")]), "--origin", "http://127.0.0.1:4000")
        self.assertEqual(r.code, 2, r)
        self.assertIn("the recording has nothing from http://127.0.0.1:4000", r.err)

    def test_a_liveview_page_without_frames(self):
        page = entry("http://127.0.0.1:4000/counter", text='<div data-phx-main data-phx-session="x"></div>')
        socket = entry("ws://127.0.0.1:4000/live/websocket?vsn=2.0.0", status=101, mime="", resource_type="websocket")
        r = self.convert(har_text([page, socket]))
        self.assertEqual(r.code, 2, r)
        self.assertIn("this HAR has no WebSocket frames: export it with content, from the tab that had the LiveView open",
                      r.err)

    def test_not_json_and_not_a_har(self):
        self.assertIn("not valid JSON", self.convert("<html>").err)
        self.assertIn("not a HAR file", self.convert("[1, 2, 3]").err)

    def test_a_100_mb_har_is_streamed(self):
        """The whole file is never held: converting a 100 MB HAR made of big static bodies (what
        makes real HARs big) peaks far below the file's size (bench/har-memory has the figures)."""
        directory = temp_dir()
        path = os.path.join(directory, "big.har")
        blob = "A" * (1 << 20)
        with open(path, "w") as f:
            f.write('{"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": [')
            f.write(json.dumps(entry("http://127.0.0.1:4000/", text="<html></html>")))
            for i in range(100):
                f.write(",")
                f.write(json.dumps(entry(f"http://127.0.0.1:4000/assets/{i}.png", mime="image/png", text=blob,
                                         resource_type="image")))
            f.write("]}}")
        self.assertGreater(os.path.getsize(path), 100 << 20)
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        r = run(["convert", "--check", path])
        self.assertEqual(r.code, 0, r)
        self.assertIn("100 static assets", r.out)
        peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        # ru_maxrss of children is the largest child so far; the binary alone is ~60 MiB.
        self.assertLess(peak_mib, 100, f"peak RSS {peak_mib:.0f} MiB (before: {before / 1024:.0f} MiB)")


if __name__ == "__main__":
    main()
