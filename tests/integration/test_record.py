"""`stampede convert`: a HAR captured from real Chromium (the DevTools protocol, as DevTools'
"Save all as HAR with content" builds it) while it clicks through the built-in target's pages,
turned into a scenario that is checked for the expected calls and then run with 20 VUs against
the same target with zero iteration errors; `--check`; bad inputs (truncated, HAR 1.1, another
site, a LiveView HAR without frames, a 100 MB HAR read in bounded memory).

`stampede record`: the recording proxy in front of the target, browsed by the same Chromium
session, by the official phoenix JS client and by Python's HTTP clients; the scenario it writes
is checked and run the same way; what passes through is compared with what the target sends
directly; garbage from either side, an app that is down or slow, a port in use, bad options."""
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import threading
import unittest
import urllib.request
from http.cookiejar import CookieJar

from browser_check import JS_DIR, require_browser
from harness import BIN, RefusingPort, Target, listening_process, main, run, temp_dir

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
        metrics = count_scenario_errors(self, path, self.target)
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


class Recorder:
    """`stampede record --to APP` on the loopback port the kernel gives it, in a process of its
    own; stop() sends SIGINT (Ctrl-C) and returns its Result."""

    def __init__(self, app_url, *args, output=True):
        self.dir = temp_dir()
        self.out = os.path.join(self.dir, "recorded.lua")
        self.args = [BIN, "record", "--to", app_url, "--listen", "127.0.0.1:0",
                     *(["-o", self.out] if output else []), *args]
        self.proc, self.port, self.err_path = listening_process(
            self.args, r"browse http://127\.0\.0\.1:(\d+) instead", "stampede-record-",
            stdout=subprocess.PIPE, text=True)
        self.url = f"http://127.0.0.1:{self.port}"

    def stop(self, sig=signal.SIGINT, timeout=20):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            out, _ = self.proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.communicate()
            raise AssertionError(f"stampede record did not stop in {timeout}s\n{read(self.err_path)}")
        from harness import Result
        return Result(self.proc.returncode, out, read(self.err_path))


def raw_exchange(port, request, timeout=5):
    """Sends REQUEST (bytes) on a fresh connection and returns everything until the peer closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as conn:
        conn.sendall(request)
        chunks = []
        while True:
            try:
                data = conn.recv(65536)
            except (ConnectionResetError, socket.timeout):
                break
            if not data:
                break
            chunks.append(data)
        return b"".join(chunks)


def body_of(raw):
    return raw.split(b"\r\n\r\n", 1)[1]


def count_scenario_errors(testcase, path, target, vus=20):
    """Runs the recorded scenario once in each of VUS VUs (a count of iterations: the run ends
    when the last one has, however busy the cores) and asserts that none failed."""
    results = os.path.join(os.path.dirname(path), "results.json")
    r = run(["run", path, "--vus", str(vus), "--iterations", str(vus), "-q", "--out", results], timeout=120,
            env={"BASE_URL": target.url})
    testcase.assertEqual(r.code, 0, r)
    metrics = json.loads(read(results))["results"][0]["metrics"]
    testcase.assertEqual(metrics["iteration.errors"]["count"], 0, r)
    testcase.assertEqual(metrics["iterations"]["count"], vus, r)
    return metrics


class RecordsAChromiumSessionThroughTheProxy(unittest.TestCase):
    """The same Chromium session as the HAR test, browsing the proxy instead of the target."""

    @classmethod
    def setUpClass(cls):
        require_browser()
        cls.target = Target()
        cls.har = os.path.join(temp_dir(), "session.har")
        cls.recorder = Recorder(cls.target.url, "--har", cls.har, "--think-time", "300ms")
        result = subprocess.run(["node", os.path.join(JS_DIR, "record_session.js"), "proxy", cls.recorder.url],
                                cwd=JS_DIR, capture_output=True, text=True, timeout=180)
        cls.stopped = cls.recorder.stop()
        if result.returncode != 0:
            raise AssertionError("the browser session failed:\n" + result.stdout + result.stderr +
                                 "\nrecorder:\n" + cls.stopped.err)

    @classmethod
    def tearDownClass(cls):
        cls.target.close()

    def test_the_scenario_names_the_actions_and_no_session_values(self):
        self.assertEqual(self.stopped.code, 0, self.stopped)
        self.assertIn("Recording " + self.target.url, self.stopped.err)
        self.assertIn("  GET /counter 200", self.stopped.err)
        self.assertIn("  WebSocket /live/websocket", self.stopped.err)
        text = read(self.recorder.out)
        self.assertIn(f"made by `stampede record --to {self.target.url}`", text)
        for call in ['local view = live.connect(BASE .. "/counter")', 'view:click("inc")',
                     'view = live.connect(BASE .. "/posts/new")', '("Recorded post"):sub(1, n)',
                     'view = follow(view, "submit", "save", { post = { title = "Recorded post", body = "" } })',
                     'view:patch("/posts?page=2")', 'view:click("bump", nil, { target = 1 })',
                     'view:upload("avatar", { { name = "photo.bin", content = ("x"):rep(100000)',
                     'local socket = channels.connect(BASE .. "/socket", { params = { user_id = "browser" } })',
                     'socket:join("room:lobby")', 'socket:push("room:lobby", "new_msg", { body = "hello from Chromium" })',
                     'socket:await("room:lobby", "new_msg")', 'stampede.sleep("300ms")']:
            self.assertIn(call, text)
        for leak in ["SFMyNTY", "_csrf_token", "lv:phx-", "phx_join", "heartbeat\"", str(self.recorder.port)]:
            self.assertNotIn(leak, text)

    def test_the_scenario_runs_green_with_20_vus(self):
        metrics = count_scenario_errors(self, self.recorder.out, self.target)
        for name in ["live.join", "live.event", "live.upload", "live.patch", "channel.push"]:
            self.assertGreater(metrics[name]["count"], 0, name)

    def test_the_browsers_compression_offer_reaches_the_app(self):
        """Chromium offers permessage-deflate; the offer passes to the app untouched (the target
        as started here declines it, so these frames went plain; RecordsCompressedFrames has an
        app that accepts it)."""
        har = json.loads(read(self.har))
        sockets = [e for e in har["log"]["entries"] if "_webSocketMessages" in e]
        self.assertGreaterEqual(len(sockets), 2)
        for entry in sockets:
            offered = {h["name"]: h["value"] for h in entry["request"]["headers"]}
            self.assertIn("permessage-deflate", offered.get("sec-websocket-extensions", ""), entry["request"]["url"])
            self.assertTrue(entry["_webSocketMessages"])

    def test_the_har_it_wrote_converts_to_the_same_scenario(self):
        out = os.path.join(self.recorder.dir, "from-har.lua")
        r = run(["convert", self.har, "-o", out, "--think-time", "300ms", "--name", "recorded"])
        self.assertEqual(r.code, 0, r)
        body = lambda text: text[text.index("local BASE"):]
        self.assertEqual(body(read(out)), body(read(self.recorder.out)))


def record_the_node_chat(testcase, target, *recorder_args):
    """The official phoenix client's chat (record_channels_client.js) through `stampede record`
    in front of TARGET; asserts both ended well and returns (recorder, its stopped Result)."""
    recorder = Recorder(target.url, "--think-time", "100ms", *recorder_args)
    try:
        result = subprocess.run(["node", os.path.join(JS_DIR, "record_channels_client.js"),
                                 f"ws://127.0.0.1:{recorder.port}/socket"],
                                cwd=JS_DIR, capture_output=True, text=True, timeout=60)
    finally:
        stopped = recorder.stop()
    testcase.assertEqual(result.returncode, 0, result.stdout + result.stderr + stopped.err)
    testcase.assertEqual(stopped.code, 0, stopped)
    return recorder, stopped


class RecordsThePhoenixJsClient(unittest.TestCase):
    """The official phoenix client (over `ws`, which offers permessage-deflate) through the proxy."""

    @classmethod
    def setUpClass(cls):
        require_browser()
        cls.target = Target()

    @classmethod
    def tearDownClass(cls):
        cls.target.close()

    def test_a_chat_becomes_channels_calls_that_run_green(self):
        recorder, stopped = record_the_node_chat(self, self.target)
        self.assertNotIn("warning", stopped.err, "compressed frames were read")
        text = read(recorder.out)
        for call in ['channels.connect(BASE .. "/socket", { params = { user_id = "node" } })',
                     'socket:join("room:lobby")', 'socket:push("room:lobby", "ping", { n = 7 })',
                     'socket:push("room:lobby", "new_msg", { body = "hello from node" })',
                     'socket:await("room:lobby", "new_msg")']:
            self.assertIn(call, text)
        self.assertIn("left out of params: token", text)
        for leak in ["SFMyNTY", "token =", "heartbeat\"", "phx_join"]:
            self.assertNotIn(leak, text)
        count_scenario_errors(self, recorder.out, self.target, vus=5)

    def test_every_phoenix_client_check_passes_through_the_proxy(self):
        """Both serializers, presence, errors, binary pushes: the official client cannot tell the
        proxy from the app."""
        recorder = Recorder(self.target.url, output=False)
        try:
            result = subprocess.run(["node", os.path.join(JS_DIR, "phoenix_client_check.js"), "--port",
                                     str(recorder.port)], cwd=JS_DIR, capture_output=True, text=True, timeout=120)
        finally:
            stopped = recorder.stop()
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr + stopped.err)
        self.assertFalse([l for l in result.stdout.splitlines() if l.startswith("not ok")], result.stdout)
        self.assertIn("ok - ", result.stdout)
        self.assertIn("WebSocket /socket/websocket", stopped.err)


class RecordsCompressedFrames(unittest.TestCase):
    """The app accepts permessage-deflate (`stampede target --ws-compress`, Phoenix's
    `compress: true`) and the official phoenix client over `ws` offers it: the frames cross the
    proxy compressed both ways, and the recording holds them inflated."""

    @classmethod
    def setUpClass(cls):
        require_browser()
        cls.target = Target(extra=("--ws-compress",))

    @classmethod
    def tearDownClass(cls):
        cls.target.close()

    def test_compressed_frames_are_recorded_as_text_and_the_scenario_runs_green(self):
        har_path = os.path.join(temp_dir(), "compressed.har")
        recorder, stopped = record_the_node_chat(self, self.target, "--har", har_path)
        self.assertNotIn("warning", stopped.err, "every compressed frame was inflated")
        sockets = [e for e in json.loads(read(har_path))["log"]["entries"] if "_webSocketMessages" in e]
        self.assertEqual(len(sockets), 1, [e["request"]["url"] for e in sockets])
        answered = {h["name"].lower(): h["value"] for h in sockets[0]["response"]["headers"]}
        self.assertIn("permessage-deflate", answered.get("sec-websocket-extensions", ""),
                      "the app accepted compression, so the frames that crossed the proxy were compressed")
        texts = [m["data"] for m in sockets[0]["_webSocketMessages"]]
        for kind in ("send", "receive"):
            self.assertTrue([m for m in sockets[0]["_webSocketMessages"] if m["type"] == kind], kind)
        self.assertTrue([t for t in texts if "hello from node" in t], texts[:6])
        text = read(recorder.out)
        for call in ['socket:join("room:lobby")', 'socket:push("room:lobby", "new_msg", { body = "hello from node" })',
                     'socket:await("room:lobby", "new_msg")']:
            self.assertIn(call, text)
        count_scenario_errors(self, recorder.out, self.target, vus=5)


class ForwardsHttpFaithfully(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.target = Target()

    @classmethod
    def tearDownClass(cls):
        cls.target.close()

    def setUp(self):
        self.recorder = Recorder(self.target.url, "--timeout", "1s")

    def tearDown(self):
        self.stopped = self.recorder.stop()

    def test_chunked_and_gzip_bodies_pass_byte_for_byte(self):
        for path, extra in [("/chunked", b""), ("/gzip", b"Accept-Encoding: gzip\r\n")]:
            request = b"GET " + path.encode() + b" HTTP/1.1\r\nHost: x\r\n" + extra + b"Connection: close\r\n\r\n"
            direct = raw_exchange(self.target.port, request)
            proxied = raw_exchange(self.recorder.port, request)
            self.assertEqual(body_of(proxied), body_of(direct), path)
            head = proxied.split(b"\r\n\r\n", 1)[0].lower()
            self.assertIn(b"transfer-encoding: chunked" if path == "/chunked" else b"content-encoding: gzip", head)

    def test_cookies_and_redirects_keep_the_browser_on_the_proxy(self):
        jar = CookieJar()
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        with opener.open(self.recorder.url + "/api/cookie?name=sid&value=v1", timeout=5) as r:
            self.assertEqual(json.loads(r.read()), {"set": "sid=v1"})
        self.assertEqual([c.name for c in jar], ["sid"])
        with opener.open(self.recorder.url + "/redirect?to=/api/whoami&n=3", timeout=5) as r:
            self.assertEqual(r.url, self.recorder.url + "/api/whoami", "every hop went through the proxy")
            self.assertEqual(json.loads(r.read()), {"cookie": "sid=v1"})
        conn = http.client.HTTPConnection("127.0.0.1", self.recorder.port, timeout=5)
        conn.request("POST", "/api/posts", body=json.dumps({"title": "t", "body": "b"}),
                     headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        created = json.loads(response.read())
        self.assertEqual(response.status, 201, created)
        conn.request("GET", "/api/posts/2")  # the same keep-alive connection
        response = conn.getresponse()
        self.assertEqual(json.loads(response.read())["id"], 2)
        conn.close()
        stopped = self.recorder.stop()
        self.assertEqual(stopped.code, 0, stopped)
        text = read(self.recorder.out)
        self.assertIn('"/api/posts"', text)
        self.assertIn("res", text)
        self.assertNotIn("sid=v1", text, "cookies are the VU's jar's business")
        self.assertNotIn("cookie =", text.lower())
        self.assertNotIn(str(self.recorder.port), text)

    def test_an_app_that_does_not_answer_in_time_gets_the_browser_a_504(self):
        raw = raw_exchange(self.recorder.port, b"GET /slow?ms=3000 HTTP/1.1\r\nHost: x\r\n\r\n")
        self.assertTrue(raw.startswith(b"HTTP/1.1 504 Gateway Timeout\r\n"), raw)
        self.assertIn(b"the app did not answer GET /slow within 1s", raw)
        self.assertIn(b'"slept_ms"', raw_exchange(self.recorder.port,
                                                  b"GET /slow?ms=10 HTTP/1.1\r\nConnection: close\r\n\r\n"))

    def test_garbage_from_the_browser_is_refused_and_the_proxy_goes_on(self):
        for garbage in [b"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03" + bytes(range(200)),
                        b"GET / HTTP/1.1\r\nBad Header\r\n\r\n", b"GET / HTTP/1.1\r\nX: " + b"a" * 70000 + b"\r\n\r\n"]:
            raw = raw_exchange(self.recorder.port, garbage)
            self.assertTrue(raw.startswith(b"HTTP/1.1 400 Bad Request\r\n") or raw.startswith(b"HTTP/1.1 431"), raw)
        # A request cut in the middle of its body, then a connection reset.
        with socket.create_connection(("127.0.0.1", self.recorder.port)) as conn:
            conn.sendall(b"POST /api/posts HTTP/1.1\r\nContent-Length: 100\r\n\r\nabc")
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        raw = raw_exchange(self.recorder.port, b"GET /chunked HTTP/1.1\r\nConnection: close\r\n\r\n")
        self.assertTrue(raw.startswith(b"HTTP/1.1 200"), raw)
        self.assertIsNone(self.recorder.proc.poll())


class SurvivesABadApp(unittest.TestCase):
    def test_garbage_from_the_app_is_a_502_and_a_counted_note(self):
        app = socket.socket()
        app.bind(("127.0.0.1", 0))
        app.listen(8)
        port = app.getsockname()[1]
        replies = [b"SSH-2.0-OpenSSH_9.2\r\n", b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nab",
                   b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", bytes(range(256)) * 4]

        def serve():
            for reply in replies:
                conn, _ = app.accept()
                conn.recv(65536)
                conn.sendall(reply)
                conn.close()

        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
        recorder = Recorder(f"http://127.0.0.1:{port}")
        try:
            answers = [raw_exchange(recorder.port, b"GET /x HTTP/1.1\r\nHost: y\r\n\r\n") for _ in replies]
        finally:
            stopped = recorder.stop()
            app.close()
        self.assertTrue(answers[0].startswith(b"HTTP/1.1 502 Bad Gateway\r\n"), answers[0])
        self.assertIn(b"the app's answer to GET /x cannot be read", answers[0])
        self.assertTrue(answers[1].startswith(b"HTTP/1.1 200 OK\r\n"), "the head went out; then the cut")
        self.assertTrue(answers[3].startswith(b"HTTP/1.1 502 Bad Gateway\r\n"), answers[3])
        self.assertIn("4 requests got no answer from the app", stopped.err)
        self.assertIn("warning: the app's answer to GET /x cannot be read", stopped.err)

    def test_an_app_that_is_down_is_a_502_and_a_counted_note(self):
        with RefusingPort() as refusing:
            down = refusing.port
            recorder = Recorder(f"http://127.0.0.1:{down}")
            try:
                answers = [raw_exchange(recorder.port, b"GET /counter HTTP/1.1\r\nHost: y\r\n\r\n") for _ in range(2)]
            finally:
                stopped = recorder.stop()
        for answer in answers:
            self.assertTrue(answer.startswith(b"HTTP/1.1 502 Bad Gateway\r\n"), answer)
            self.assertIn(f"cannot reach http://127.0.0.1:{down}".encode(), answer)
        self.assertIn(f"warning: cannot reach http://127.0.0.1:{down}", stopped.err)
        self.assertIn("2 requests got no answer from the app", stopped.err)


class RecordCommandLine(unittest.TestCase):
    def test_bad_options_say_which_and_why(self):
        cases = [(["--to", "ftp://x"], "--to ftp://x is not a URL like http://127.0.0.1:4000"),
                 (["--to", "https://127.0.0.1:4000"], "forwards to http:// apps only"),
                 (["--to", "http://127.0.0.1:99999"], "the port is not a number from 1 to 65535"),
                 (["--to", "http://127.0.0.1:4000", "--listen", "0.0.0.0:8080"], "add --allow-remote if you mean it"),
                 (["--to", "http://127.0.0.1:4000", "--listen", "nonsense"], "--listen"),
                 (["--to", "http://127.0.0.1:4000", "--timeout", "-1s"], "--timeout"),
                 (["--to", "http://127.0.0.1:4000", "--duration", "soon"], "--duration"),
                 ([], "--to is required")]
        for args, message in cases:
            r = run(["record", *args], timeout=10)
            self.assertNotEqual(r.code, 0, r)
            self.assertIn(message, r.err, args)

    def test_a_port_in_use_says_so(self):
        with socket.socket() as busy:
            busy.bind(("127.0.0.1", 0))
            busy.listen(1)
            port = busy.getsockname()[1]
            r = run(["record", "--to", "http://127.0.0.1:4000", "--listen", f"127.0.0.1:{port}"], timeout=10)
        self.assertEqual(r.code, 2, r)
        self.assertIn(f"cannot listen on 127.0.0.1:{port}: Address already in use", r.err)

    def test_duration_stops_it_and_nothing_recorded_says_how_to_record(self):
        r = run(["record", "--to", "http://127.0.0.1:4000", "--listen", "127.0.0.1:0", "--duration", "500ms"],
                timeout=20)
        self.assertEqual(r.code, 2, r)
        port = re.search(r"browse http://127\.0\.0\.1:(\d+) instead", r.err).group(1)
        self.assertIn(f"nothing was recorded: browse http://127.0.0.1:{port}", r.err)

    def test_sigterm_writes_the_scenario_too(self):
        with Target() as target:
            recorder = Recorder(target.url)
            raw_exchange(recorder.port, b"GET /api/posts HTTP/1.1\r\nConnection: close\r\n\r\n")
            stopped = recorder.stop(signal.SIGTERM)
        self.assertEqual(stopped.code, 0, stopped)
        self.assertIn('http.get(BASE .. "/api/posts")', read(recorder.out))


if __name__ == "__main__":
    main()
