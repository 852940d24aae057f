"""stampede.websocket end to end against an independent implementation (the npm `ws`
server) and the built-in target's /ws echo."""
import json
import os
import subprocess
import time
import unittest

from harness import Target, WsServer, run, temp_dir, write_scenario, ws_frame, ws_read_frames, main

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
return {{ options = {{ vus = 2, iterations = 2 }},
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

    def test_frames_sent_in_one_turn_arrive_whole_and_in_order_batched_or_not(self):
        # A socket's frames of one loop turn leave in one send, gathered when the worker's
        # batch of sends goes (io_uring), or in one posted write with STAMPEDE_IO_URING=0. An
        # 8 MB message among them outgrows the socket's buffer (4 MB at most here): its rest is
        # written once there is room, and the frames queued behind it follow it, never
        # overtake it.
        body = """
  local ws = websocket.connect(URL)
  local sent = {}
  for i = 1, 40 do
    local m = (i == 20) and string.rep(string.char(65 + vu.id % 26), 8000000) or ("m" .. vu.id .. "." .. i)
    sent[i] = m
    ws:send(m)
  end
  local same = true
  for i = 1, 40 do
    local got = ws:await({ timeout = 5000 })
    same = same and got.data == sent[i]
  end
  stampede.check("echoed whole and in order", same)
  ws:close()
"""
        for env in ({}, {"STAMPEDE_IO_URING": "0"}):
            with WsPeer() as peer:
                r = run(["run", self.scenario(peer.url, body), "--quiet"], env=env)
            self.assertChecksPass(r)
            self.assertRegex(r.out, r"echoed whole and in order\s+100\.00%\s+\(2 / 2\)", (env, r))
            self.assertEqual(r.metric("ws.messages.sent")["count"], 2 * 40, (env, r))
            self.assertEqual(r.metric("ws.messages")["count"], 2 * 40, (env, r))

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

    def test_a_row_the_scenario_made_another_kind_is_a_lua_error_at_its_line(self):
        # ws.connect is the client's timing. Made a counter first, the clash was a C++
        # exception out of websocket.connect, which reached the scenario as "C++ exception",
        # with no line.
        with Target() as target:
            r = run(["run", self.scenario(target.url.replace("http", "ws") + "/ws", """
  stampede.increment("ws.connect"); websocket.connect(URL)
""")])
        self.assertEqual(r.code, 0, r)
        self.assertRegex(r.out, r'scenario\.lua:8: metric "ws\.connect" is a counter, not a timing', r)
        self.assertNotIn("C++ exception", r.out, r)


def after_first_message_send(raw):
    """A server that answers the client's first message with the bytes `raw`, then answers
    its close frame and closes."""
    def serve(conn, head):
        for opcode, data in ws_read_frames(conn):
            if opcode == 1:
                conn.sendall(raw)
            elif opcode == 8:
                conn.sendall(ws_frame(data, opcode=8))
                return
    return serve


def echo_then_close(conn, head):
    for opcode, data in ws_read_frames(conn):
        if opcode == 8:
            conn.sendall(ws_frame(data, opcode=8))
            return
        conn.sendall(ws_frame(data, opcode=opcode))


class ServersThatBreakTheProtocol(unittest.TestCase):
    """A frame that breaks RFC 6455 ends the connection with 1002, counted once in
    ws.disconnects under "protocol"; the scenario's own close is never a disconnect."""

    def run_against(self, server, body, options='vus = 1, iterations = 1'):
        path = write_scenario(f"""
local websocket = require "stampede.websocket"
local stampede = require "stampede"
local URL = "{server.url}/ws"
return {{ options = {{ {options} }},
         run = function(vu)
{body}
         end }}
""")
        out = os.path.join(temp_dir(), "results.json")
        with server:
            r = run(["run", path, "--quiet", "--out", out], timeout=60)
        self.assertEqual(r.code, 0, r)
        with open(out) as f:
            return r, json.load(f)["results"][0]["metrics"]

    def test_a_masked_frame_or_a_reserved_opcode_is_a_protocol_disconnect(self):
        masked = bytes([0x81, 0x80 | 2]) + b"\x01\x02\x03\x04" + bytes([ord("h") ^ 1, ord("i") ^ 2])
        reserved_opcode = bytes([0x83, 0])
        for name, raw in (("masked", masked), ("reserved opcode", reserved_opcode)):
            with self.subTest(name):
                r, metrics = self.run_against(WsServer(after_first_message_send(raw)), """
  local ws = websocket.connect(URL)
  ws:send("hello")
  local ok, err = pcall(ws.await, ws, { timeout = 2000 })
  stampede.check("closed", not ok and err.kind == "closed" and tostring(err):find("1002", 1, true) ~= nil)
""")
                self.assertRegex(r.out, r"closed\s+100\.00%")
                self.assertEqual(metrics["ws.connect"]["count"], 1, r)
                self.assertEqual(metrics["ws.disconnects"]["reasons"], {"protocol": 1}, r)

    def test_the_scenarios_close_with_1002_is_not_a_disconnect(self):
        r, metrics = self.run_against(WsServer(echo_then_close), """
  local ws = websocket.connect(URL)
  ws:send("hi")
  stampede.check("echo", ws:await().data == "hi")
  ws:close(1002, "the scenario's own verdict")
""")
        self.assertRegex(r.out, r"echo\s+100\.00%")
        self.assertEqual(metrics["ws.connect"]["count"], 1, r)
        self.assertEqual(metrics["ws.disconnects"]["count"], 0, r)

    def test_connect_error_names_the_url_once(self):
        def not_found(conn, head):
            conn.sendall(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n")
        server = WsServer(not_found, answer_upgrade=False)
        r, _ = self.run_against(server, """
  local ok, err = pcall(websocket.connect, URL)
  print("ERROR<" .. tostring(err) .. ">")
""")
        message = r.out.split("ERROR<", 1)[1].split(">\n", 1)[0]
        self.assertIn("404", message)
        self.assertEqual(message.count(server.url + "/ws"), 1, message)


if __name__ == "__main__":
    main()
