"""Servers that refuse, send garbage, close early or stall cost an error count with the
reason: never a crash, never a hang."""
import base64
import json
import os
import re
import shutil
import socket
import subprocess
import threading
import unittest

from harness import BIN, RefusingPort, Result, run, temp_dir, write_scenario, main


class BadServer:
    """A TCP server that answers every connection with `behaviour(conn)`."""

    def __init__(self, behaviour):
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(128)
        self.port = self.sock.getsockname()[1]
        self.behaviour = behaviour
        self.stopping = False
        self.accepted = 0  # connections accepted, for the tests that count what the server saw
        threading.Thread(target=self.loop, daemon=True).start()

    def loop(self):
        while not self.stopping:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted += 1  # this thread alone writes it
            threading.Thread(target=self.serve, args=(conn,), daemon=True).start()

    def serve(self, conn):
        try:
            conn.recv(65536)
            self.behaviour(conn)
        except OSError:
            pass
        finally:
            try:
                conn.close()
            except OSError:
                pass

    def close(self):
        self.stopping = True
        self.sock.close()


def scenario_for(url, timeout="500ms"):
    """One request in each of 2 VUs (a count of iterations: the run ends when both have)."""
    return write_scenario(f"""
local http = require "stampede.http"
local stampede = require "stampede"
return {{ options = {{ vus = 2, iterations = 2 }},
         run = function()
           local t0 = stampede.now()
           local res = http.get("{url}", {{ timeout = "{timeout}" }})
           stampede.check("no response", res.status == 0)
           stampede.record("failed.after", res.duration)
           stampede.record("call.took", stampede.now() - t0)
         end }}
""")


class MisbehavingServers(unittest.TestCase):
    def run_against(self, behaviour, reason, timeout="500ms"):
        server = BadServer(behaviour)
        try:
            r = run(["run", scenario_for(f"http://127.0.0.1:{server.port}/", timeout)], timeout=60)
        finally:
            server.close()
        self.assertEqual(r.code, 0, r)
        errors = r.metric("http.request.errors")
        self.assertIsNotNone(errors, r)
        self.assertEqual(errors["count"], 2, r)
        self.assertRegex(r.out, rf"\n\s+{reason}\s+2\n", r)
        self.assertRegex(r.out, r"no response\s+100\.00%")
        return r

    def test_connection_refused(self):
        with RefusingPort() as refusing:
            r = run(["run", scenario_for(f"http://127.0.0.1:{refusing.port}/")])
        self.assertEqual(r.code, 0, r)
        self.assertRegex(r.out, r"\n\s+refused\s+2\n", r)

    def test_refused_requests_show_on_the_progress_line(self):
        # The line's "errors" are failed iterations only: against a closed port it read
        # "errors 0" every second and the refusals showed only in the summary.
        with RefusingPort() as refusing:
            path = write_scenario(f"""
local http = require "stampede.http"
local stampede = require "stampede"
return {{ options = {{ vus = 1, duration = "2s" }},
         run = function()
           http.get("http://127.0.0.1:{refusing.port}/")
           stampede.sleep(20)
         end }}
""")
            r = run(["run", path])  # stderr is a pipe: one progress line per second
        self.assertEqual(r.code, 0, r)
        counts = [int(n) for n in re.findall(r"\breq errors (\d+)", r.err)]
        self.assertTrue(counts, r)
        self.assertGreater(max(counts), 0, r)
        self.assertRegex(r.err, r"\berrors 0  req errors [1-9]", r)  # the iterations themselves went well

    def test_no_route_is_unreachable_not_refused(self):
        # A network namespace of our own has no routes at all (its loopback is down too), so
        # connect() fails with ENETUNREACH: nothing refused anything.
        if os.geteuid() != 0 or shutil.which("unshare") is None:
            self.skipTest("needs root and unshare for a network namespace")
        path = scenario_for("http://10.255.255.1:4000/")
        p = subprocess.run(["unshare", "--net", os.path.abspath(BIN), "run", path],
                           capture_output=True, text=True, timeout=60)
        r = Result(p.returncode, p.stdout, p.stderr)
        self.assertEqual(r.code, 0, r)
        self.assertRegex(r.out, r"\n\s+unreachable\s+\d+", r)
        self.assertNotRegex(r.out, r"\n\s+refused\s+\d+", r)

    def test_garbage(self):
        self.run_against(lambda c: c.sendall(b"SSH-2.0-OpenSSH_9.2\r\n\r\n"), "protocol")

    def test_close_before_any_response(self):
        self.run_against(lambda c: None, "closed")

    def test_close_mid_body(self):
        self.run_against(lambda c: c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly some"), "closed")

    def test_stall_is_a_timeout(self):
        stop = threading.Event()
        r = self.run_against(lambda c: stop.wait(5), "timeout", timeout="200ms")
        stop.set()
        self.assertIn("timeout", r.out)
        # res.duration is how long the request took to fail: its timeout (it read 0), and
        # never more than the call itself took on the same clock (not, say, the iteration's
        # or the run's time so far).
        failed_after, call_took = r.metric("failed.after"), r.metric("call.took")
        self.assertGreaterEqual(failed_after["p50"], 190, r)
        self.assertEqual(failed_after["count"], call_took["count"], r)
        self.assertLessEqual(failed_after["max"], call_took["max"], r)

    def test_malformed_url_is_named(self):
        path = write_scenario("""
local res = nil
return { options = { vus = 1, iterations = 1 },
         run = function()
           local r = require("stampede.http").get("http://exa mple.com:99999/")
           require("stampede").check("url error", r.status == 0 and r.error:find("exa mple", 1, true) ~= nil)
         end }
""")
        r = run(["run", path])
        self.assertEqual(r.code, 0, r)
        self.assertRegex(r.out, r"url error\s+100\.00%")
        self.assertRegex(r.out, r"\n\s+url\s+1\n")

    def test_errors_that_differ_per_connection_are_one_group(self):
        # A server that accepts the upgrade with a wrong Sec-WebSocket-Accept, different on
        # every connection: the message names that connection's values, yet the failure is
        # one and must be one row with a count and one example in full.
        def wrong_accept(conn):
            accept = base64.b64encode(os.urandom(20)).decode()
            conn.sendall(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                          f"Sec-WebSocket-Accept: {accept}\r\n\r\n").encode())

        server = BadServer(wrong_accept)
        out_json = os.path.join(temp_dir(), "r.json")
        # Two connects in each of 4 VUs (a count of iterations: none is cut off at the end),
        # each one the server accepted an error counted.
        path = write_scenario(f"""
local websocket = require "stampede.websocket"
return {{ options = {{ vus = 4, iterations = 8 }},
         run = function() websocket.connect("ws://127.0.0.1:{server.port}/socket") end }}
""")
        try:
            r = run(["run", path, "--out", out_json], timeout=60)
        finally:
            server.close()
        self.assertEqual(r.code, 0, r)
        with open(out_json) as f:
            result = json.load(f)["results"][0]
        errors = result["iteration_errors"]
        total = result["metrics"]["iteration.errors"]["count"]
        # Every connection the server accepted failed once: 8, each with its own values.
        self.assertEqual(total, 8, r)
        self.assertEqual(server.accepted, 8, r)
        self.assertEqual(len(errors), 1, errors[:5])
        self.assertEqual(errors[0]["count"], total)
        self.assertIn('Sec-WebSocket-Accept is \"<id>\", expected \"<id>\"', errors[0]["message"])
        self.assertRegex(errors[0]["example"], r'Sec-WebSocket-Accept is "[A-Za-z0-9+/]{27}=", expected "')
        connect = result["metrics"]["ws.connect.errors"]
        self.assertEqual(len(connect["reasons"]), 1, connect["reasons"])
        # The summary's "iteration errors" lists the group once, with its example.
        section = r.out.split("\niteration errors\n", 1)[1].split("\ngenerator:", 1)[0].splitlines()
        groups = [line for line in section if "Sec-WebSocket-Accept is" in line and "e.g." not in line]
        self.assertEqual(len(groups), 1, r.out)
        self.assertIn(f"  {total}  ", groups[0])
        self.assertRegex(r.out, r"\n\s+e\.g\. .*Sec-WebSocket-Accept is \"[A-Za-z0-9+/]{27}=\"")
        self.assertNotIn("(other reasons)", r.out)


if __name__ == "__main__":
    main()
