"""Servers that speak Phoenix badly: each costs an error count with a reason, never a crash
and never a hang past the timeout."""
import json
import os
import time
import unittest

from harness import Target, WsServer, ws_frame, ws_read_frames, run, temp_dir, write_scenario, main


def scenario(url, body, options='vus = 1, iterations = 1'):
    """By default one VU runs `body` once (a count of iterations: the run ends when it has)."""
    return write_scenario(f"""
local channels = require "stampede.channels"
local stampede = require "stampede"
local URL = "{url}"
return {{ options = {{ {options} }},
         run = function(vu)
{body}
         end }}
""")


def reply_to_join_then(behaviour_after_join):
    """A server that answers the join correctly (V2), then does something else."""
    import json

    def serve(conn, head):
        for opcode, data in ws_read_frames(conn):
            if opcode != 1:
                continue
            msg = json.loads(data)
            if msg[3] == "phx_join":
                conn.sendall(ws_frame(json.dumps([msg[0], msg[1], msg[2], "phx_reply", {"status": "ok", "response": {}}])))
                behaviour_after_join(conn)
                return
    return serve


def answer_join_with(frame, then):
    """A server that answers the join with `frame`; then "echo close" answers the client's
    close frame (a clean close handshake), "drop" closes the TCP connection without one."""
    def serve(conn, head):
        for opcode, data in ws_read_frames(conn):
            if opcode == 1 and json.loads(data)[3] == "phx_join":
                conn.sendall(ws_frame(frame))
                if then == "drop":
                    time.sleep(0.2)  # our close frame arrives unread: the server's close is a reset
                    return
            elif opcode == 8:
                conn.sendall(ws_frame(data, opcode=8))
                return
    return serve


def run_with_results(path, timeout=60):
    """Runs the scenario with --out: (Result, metrics of the results file)."""
    out = os.path.join(temp_dir(), "results.json")
    r = run(["run", path, "--quiet", "--out", out], timeout=timeout)
    with open(out) as f:
        return r, json.load(f)["results"][0]["metrics"]


class MisbehavingPhoenix(unittest.TestCase):
    def run_against(self, server, body, timeout=60, options='vus = 1, iterations = 1'):
        with server:
            r = run(["run", scenario(server.url + "/socket", body, options), "--quiet"], timeout=timeout)
        self.assertEqual(r.code, 0, r)
        return r

    def test_garbage_frame_closes_the_socket_and_fails_the_join(self):
        r = self.run_against(WsServer(lambda c, h: (c.recv(100), c.sendall(ws_frame("this is not phoenix")), time.sleep(1))), """
  local ok, err = pcall(function() channels.connect(URL):join("room:x") end)
  stampede.check("failed", not ok and err.kind == "closed")
  stampede.sleep(50)
""")
        self.assertRegex(r.out, r"failed\s+100\.00%")
        self.assertIn("invalid Phoenix frame", r.out + r.err) if "invalid" in r.out else None
        self.assertEqual(r.metric("channel.join.errors")["count"], 1, r)

    def test_invalid_phoenix_frame_is_a_protocol_disconnect(self):
        # The client closes with 1002 "invalid Phoenix frame": a disconnect the server caused,
        # counted once under "protocol" (it was not counted at all after a clean close
        # handshake, and as "reset"/"closed" when the server then dropped the connection).
        for then in ("echo close", "drop"):
            with self.subTest(then=then), WsServer(answer_join_with("this is not json", then)) as server:
                r, metrics = run_with_results(scenario(server.url + "/socket", """
  local ok, err = pcall(function() channels.connect(URL):join("room:x") end)
  stampede.check("closed", not ok and err.kind == "closed")
  stampede.check("says why", not ok and tostring(err):find("the server sent an invalid Phoenix frame", 1, true) ~= nil)
  stampede.sleep(20)
"""))
                self.assertEqual(r.code, 0, r)
                self.assertRegex(r.out, r"closed\s+100\.00%")
                self.assertRegex(r.out, r"says why\s+100\.00%")
                self.assertEqual(metrics["ws.connect"]["count"], 1, r)
                self.assertEqual(metrics["ws.disconnects"]["reasons"], {"protocol": 1}, r)
                self.assertEqual(metrics["channel.join.errors"]["reasons"], {"closed": 1}, r)

    def test_connect_error_names_the_url_once(self):
        def not_found(conn, head):
            conn.sendall(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n")
        with WsServer(not_found, answer_upgrade=False) as server:
            r = run(["run", scenario(server.url + "/nowhere", """
  local ok, err = pcall(channels.connect, URL)
  print("ERROR<" .. tostring(err) .. ">")
"""), "--quiet"])
        self.assertEqual(r.code, 0, r)
        message = r.out.split("ERROR<", 1)[1].split(">\n", 1)[0]
        self.assertIn("404", message)
        self.assertEqual(message.count(server.url + "/nowhere/websocket"), 1, message)

    def test_liveview_socket_connect_error_names_the_url_once(self):
        # LiveView runs on this Channels client: a wrong socket_path fails the socket's connect,
        # and its URL (with the page's tokens in the query: hundreds of characters) was printed
        # twice.
        with Target() as target:
            path = write_scenario(f"""
local live = require "stampede.liveview"
return {{ options = {{ vus = 1, iterations = 1 }},
         run = function()
  local ok, err = pcall(live.connect, "{target.url}/counter", {{ socket_path = "/nowhere" }})
  print("ERROR<" .. tostring(err) .. ">")
         end }}
""")
            r = run(["run", path, "--quiet"])
        self.assertEqual(r.code, 0, r)
        message = r.out.split("ERROR<", 1)[1].split(">\n", 1)[0]
        self.assertIn("404", message)
        socket_url = target.url.replace("http://", "ws://") + "/nowhere/websocket?"
        self.assertEqual(message.count(socket_url), 1, message)
        self.assertEqual(message.count("_csrf_token="), 1, message)

    def test_masked_server_frame_is_a_protocol_error(self):
        def masked(conn, head):
            conn.recv(100)
            frame = bytes([0x81, 0x80 | 2]) + b"\x01\x02\x03\x04" + bytes([ord("h") ^ 1, ord("i") ^ 2])
            conn.sendall(frame)
            time.sleep(1)
        r = self.run_against(WsServer(masked), """
  local ok, err = pcall(function() channels.connect(URL):join("room:x") end)
  stampede.check("failed", not ok)
  stampede.sleep(50)
""")
        self.assertRegex(r.out, r"failed\s+100\.00%")
        self.assertRegex(r.out, r"ws\.disconnects\s+[1-9]\d*\s+[\d.]+\n\s+protocol")

    def test_close_in_the_middle_of_a_join(self):
        r = self.run_against(WsServer(lambda c, h: c.recv(100)), """
  local ok, err = pcall(function() channels.connect(URL):join("room:x") end)
  stampede.check("closed", not ok and err.kind == "closed")
  stampede.sleep(50)
""")
        self.assertRegex(r.out, r"closed\s+100\.00%")

    def test_stalled_join_times_out(self):
        # The server closes the socket after 3 s: a join that waited past its 300 ms (for the
        # socket's 10 s default) would fail "closed" then, not "timeout".
        r = self.run_against(WsServer(lambda c, h: time.sleep(3)), """
  local socket = channels.connect(URL)
  local t0 = stampede.now()
  local ok, err = pcall(socket.join, socket, "room:x", {}, { timeout = 300 })
  stampede.check("timeout", not ok and err.kind == "timeout" and stampede.now() - t0 >= 300)
""")
        self.assertRegex(r.out, r"timeout\s+100\.00%")

    def test_server_that_never_answers_heartbeats(self):
        r = self.run_against(WsServer(reply_to_join_then(lambda c: time.sleep(3))), """
  local socket = channels.connect(URL, { heartbeat = 150 })
  socket:join("room:x")
  local ok, err = pcall(socket.await, socket, "room:x", "never", { timeout = 2000 })
  stampede.check("socket closed", not ok and err.kind == "closed")
""", timeout=60)
        self.assertRegex(r.out, r"socket closed\s+100\.00%")
        self.assertRegex(r.out, r"channel\.heartbeat\.timeouts\s+[1-9]")
        self.assertRegex(r.out, r"\n\s+heartbeat timeout\s+\d+")

    def test_a_100_mib_frame_is_refused_without_reading_it(self):
        def huge(conn, head):
            conn.recv(100)
            conn.sendall(ws_frame(b"x" * 1000, opcode=2, length=100 * 1024 * 1024))
            time.sleep(1)
        r = self.run_against(WsServer(huge), """
  local ok, err = pcall(function() channels.connect(URL):join("room:x") end)
  stampede.check("refused", not ok)
  stampede.sleep(50)
""")
        self.assertRegex(r.out, r"refused\s+100\.00%")
        self.assertRegex(r.out, r"ws\.disconnects\s+[1-9]\d*\s+[\d.]+\n\s+too big")

    def test_403_says_what_to_try(self):
        def forbidden(conn, head):
            conn.sendall(b"HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n")
        r = self.run_against(WsServer(forbidden, answer_upgrade=False), """
  channels.connect(URL)
""")
        self.assertIn("403", r.out)
        self.assertIn("origin", r.out)


if __name__ == "__main__":
    main()
