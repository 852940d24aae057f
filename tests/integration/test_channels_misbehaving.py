"""Servers that speak Phoenix badly: each costs an error count with a reason, never a crash
and never a hang past the timeout."""
import time
import unittest

from harness import WsServer, ws_frame, ws_read_frames, run, write_scenario, main


def scenario(url, body, options='vus = 1, duration = "600ms"'):
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


class MisbehavingPhoenix(unittest.TestCase):
    def run_against(self, server, body, timeout=60, options='vus = 1, duration = "600ms"'):
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
        self.assertRegex(r.out, r"channel\.join\.errors\s+[1-9]")

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
        r = self.run_against(WsServer(lambda c, h: time.sleep(3)), """
  local socket = channels.connect(URL)
  local t0 = stampede.now()
  local ok, err = pcall(socket.join, socket, "room:x", {}, { timeout = 300 })
  stampede.check("timeout", not ok and err.kind == "timeout" and stampede.now() - t0 < 1500)
""", options='vus = 1, duration = "300ms", graceful_stop = "5s"')
        self.assertRegex(r.out, r"timeout\s+100\.00%")

    def test_server_that_never_answers_heartbeats(self):
        r = self.run_against(WsServer(reply_to_join_then(lambda c: time.sleep(3))), """
  local socket = channels.connect(URL, { heartbeat = 150 })
  socket:join("room:x")
  local ok, err = pcall(socket.await, socket, "room:x", "never", { timeout = 2000 })
  stampede.check("socket closed", not ok and err.kind == "closed")
""", options='vus = 1, duration = "300ms", graceful_stop = "5s"', timeout=60)
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
""", options='vus = 1, duration = "200ms"')
        self.assertIn("403", r.out)
        self.assertIn("origin", r.out)


if __name__ == "__main__":
    main()
