"""The official phoenix JS client (tests/js/node_modules/phoenix) against `stampede target`:
join, push/reply, broadcast, crash, refused join, Presence, Absinthe and binary frames over
both serializers (tests/js/phoenix_client_check.js), with the target run on one thread and
on two (a broadcast then crosses workers). The same checks over phoenix.js's LongPoll
transport (/socket/longpoll; V2 only: phoenix.js ignores custom serializers with LongPoll); on
two workers a client's poll and its POSTs may land on different ones. And phoenix.js's
LongPoll reconnecting from the 410 the target answers once it dropped a session
(--longpoll-session-lifetime; tests/js/phoenix_longpoll_reconnect_check.js)."""
import json
import os
import shutil
import subprocess
import unittest
import urllib.request

from harness import Target, main

JS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "js")
CHECK = os.path.join(JS_DIR, "phoenix_client_check.js")


def run_check(port, transport="websocket"):
    return subprocess.run(["node", CHECK, "--port", str(port), "--transport", transport], cwd=JS_DIR,
                          capture_output=True, text=True, timeout=120)


class PhoenixJsAgainstTarget(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if shutil.which("node") is None:
            raise RuntimeError("node is needed for this test (Node 20, as in scripts/setup.sh)")
        if not os.path.isdir(os.path.join(JS_DIR, "node_modules", "phoenix")):
            raise RuntimeError("tests/js/node_modules is missing: run `npm ci` in tests/js")

    def check_with(self, threads, transport="websocket"):
        with Target(threads=threads) as target:
            result = run_check(target.port, transport)
            self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
            lines = result.stdout.splitlines()
            self.assertFalse([line for line in lines if line.startswith("not ok")], result.stdout)
            least = 10 if transport == "longpoll" else 19
            self.assertGreaterEqual(len([line for line in lines if line.startswith("ok - ")]), least, result.stdout)
            self.assertIn("all checks passed", result.stdout)
            with urllib.request.urlopen(target.url + "/__channels", timeout=5) as r:
                stats = json.loads(r.read())
            self.assertEqual(stats["socket_errors"], 0)
            self.assertGreater(stats["joins"], 0)
            self.assertGreater(stats["broadcasts_delivered"], 0)
            # Channel traffic never reaches the HTTP truth.
            self.assertEqual(target.truth()["count"], 0)

    def test_one_worker(self):
        self.check_with(threads=1)

    def test_two_workers(self):
        self.check_with(threads=2)

    def test_longpoll_one_worker(self):
        self.check_with(threads=1, transport="longpoll")

    def test_longpoll_two_workers(self):
        self.check_with(threads=2, transport="longpoll")

    def test_longpoll_session_dropped_by_the_target_is_what_phoenix_js_reconnects_from(self):
        # The target ends every LongPoll session 1 s after it opened: phoenix.js must see
        # session_gone (3410), reconnect with a new session, rejoin and keep pushing, as
        # Stampede's own client does (test_longpoll.Reconnects).
        with Target(threads=2, extra=("--longpoll-session-lifetime", "1s")) as target:
            result = subprocess.run(["node", os.path.join(JS_DIR, "phoenix_longpoll_reconnect_check.js"), "--port",
                                     str(target.port)], cwd=JS_DIR, capture_output=True, text=True, timeout=60)
            self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
            self.assertIn("all checks passed", result.stdout)
            self.assertEqual(len([line for line in result.stdout.splitlines() if line.startswith("ok - ")]), 5,
                             result.stdout)


if __name__ == "__main__":
    main()
