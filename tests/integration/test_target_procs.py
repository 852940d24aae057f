"""`stampede target --procs N`: N processes share one port (SO_REUSEPORT); at exit the
parent merges their truth, and the merged count is exactly what the load generator sent."""
import json
import os
import signal
import socket
import time
import unittest

from harness import BIN, listening_process, main, run, write_scenario, temp_dir

# The parent takes the port (port 0: the kernel's choice) before it forks, and says which.
SHARING = r"processes sharing 127\.0\.0\.1:(\d+)"


def wait_until_accepting(testcase, port, deadline):
    """The parent prints the port as it forks; a child listens a moment later."""
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            testcase.assertLess(time.time(), deadline, "no target process listened")
            time.sleep(0.05)


class TargetProcesses(unittest.TestCase):
    def test_processes_share_the_port_and_the_merged_truth_is_exact(self):
        truth_path = os.path.join(temp_dir(prefix="stampede-procs-"), "truth.json")
        target, port, err_path = listening_process(
            [BIN, "target", "--procs", "3", "--listen", "127.0.0.1:0", "--truth-out", truth_path], SHARING,
            "stampede-procs-")
        try:
            wait_until_accepting(self, port, time.time() + 10)
            # 12 VUs, one iteration and a connection each: the kernel spreads connections over
            # the processes.
            path = write_scenario(f"""
local http = require "stampede.http"
return {{ options = {{ vus = 12, iterations = 12 }},
         run = function() http.get("http://127.0.0.1:{port}/api/posts") end }}
""")
            r = run(["run", path, "--quiet"])
            self.assertEqual(r.code, 0, r)
        finally:
            target.send_signal(signal.SIGTERM)
            target.wait(timeout=20)
            with open(err_path) as f:
                err = f.read()
            os.unlink(err_path)
        self.assertEqual(target.returncode, 0, err)
        with open(truth_path) as f:
            truth = json.load(f)
        self.assertEqual(len(truth["processes"]), 3)
        self.assertEqual(truth["count"], sum(p["count"] for p in truth["processes"]))
        self.assertEqual(truth["count"], 12, truth)
        self.assertEqual(r.metric("http.request")["count"], 12, r)
        self.assertGreaterEqual(sum(1 for p in truth["processes"] if p["count"] > 0), 2,
                                f"connections did not spread over the processes: {truth}")
        self.assertIn(f"3 processes held {truth['count']} requests", err)


if __name__ == "__main__":
    main()
