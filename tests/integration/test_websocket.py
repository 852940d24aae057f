"""stampede.websocket end to end against an independent implementation (the npm `ws`
server) and the built-in target's /ws echo."""
import os
import subprocess
import unittest

from harness import Target, run, write_scenario, main

JS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "js")


class WsPeer:
    def __init__(self, *flags):
        self.proc = subprocess.Popen(["node", os.path.join(JS, "ws_echo_server.js"), "0", *flags],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline().split()
        if not line or line[0] != "listening":
            raise RuntimeError("ws_echo_server did not start: " + self.proc.stderr.read())
        self.url = f"ws://127.0.0.1:{line[1]}"

    def close(self):
        self.proc.kill()
        self.proc.wait()
        self.proc.stdout.close()
        self.proc.stderr.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


BODY = """
  local ws = websocket.connect(URL, OPTS)
  ws:send("hello " .. vu.id)
  local m = ws:await({ timeout = 2000 })
  stampede.check("text echoed", m.type == "text" and m.data == "hello " .. vu.id)
  ws:send_binary(string.char(0, 1, 2, 3))
  stampede.check("binary echoed", ws:await().data == string.char(0, 1, 2, 3))
  ws:send("big 200000")
  stampede.check("big message", #ws:await({ match = function(msg) return msg.type == "binary" end }).data == 200000)
  ws:send("fragments 3 abcdef")
  stampede.check("fragments joined", ws:await().data == "abcdef")
  ws:send("ping-me")
  stampede.check("pong answered", ws:await().data == "pong:hello")
  ws:send("close-me")
  local ok, err = pcall(ws.await, ws, { timeout = 2000 })
  stampede.check("server close seen", not ok and err.kind == "closed" and tostring(err):find("4000", 1, true) ~= nil)
"""


class WebSocketClient(unittest.TestCase):
    def scenario(self, url, body, opts="{}"):
        return write_scenario(f"""
local websocket = require "stampede.websocket"
local stampede = require "stampede"
local URL, OPTS = "{url}", {opts}
return {{ options = {{ vus = 2, duration = "1s", graceful_stop = "3s" }},
         run = function(vu)
{body}
         end }}
""")

    def assertChecksPass(self, r):
        self.assertEqual(r.code, 0, r)
        checks = r.out.split("\nchecks\n", 1)[1]
        for line in checks.splitlines():
            if "%" in line and line.startswith("  "):  # check rows are indented; the generator line is not
                self.assertIn("100.00%", line, r)

    def test_against_the_ws_package(self):
        with WsPeer() as peer:
            r = run(["run", self.scenario(peer.url, BODY), "--quiet"])
        self.assertChecksPass(r)
        self.assertGreater(r.metric("ws.messages")["count"], 0, r)
        self.assertGreater(r.metric("ws.messages.sent")["count"], 0, r)
        self.assertRegex(r.out, r"\n\s+remote 4000\s+\d+")

    def test_against_the_ws_package_with_compression(self):
        with WsPeer("--compress") as peer:
            r = run(["run", self.scenario(peer.url, BODY, "{ compression = true }"), "--quiet"])
        self.assertChecksPass(r)

    def test_messages_survive_the_server_closing(self):
        with WsPeer() as peer:
            r = run(["run", self.scenario(peer.url, """
  local ws = websocket.connect(URL)
  ws:send("one")
  ws:send("close-me")
  stampede.sleep(200)
  stampede.check("kept after close", ws:await().data == "one")
""")])
        self.assertChecksPass(r)

    def test_builtin_target_echo(self):
        with Target() as target:
            r = run(["run", self.scenario(target.url.replace("http", "ws") + "/ws", """
  local ws = websocket.connect(URL)
  ws:send("hi")
  stampede.check("echo", ws:await().data == "hi")
  ws:close()
""")])
        self.assertChecksPass(r)


if __name__ == "__main__":
    main()
