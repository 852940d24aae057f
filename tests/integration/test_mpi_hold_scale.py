"""bench/hundred-thousand in CI's size (issue 37): 10,000 joined Phoenix channel users over 2
MPI ranks and 2 built-in target processes, held with heartbeats, every one of them still
connected at the end of the hold and not one error. The bench itself runs, so the script
users run for 100,000 or 500,000 cannot rot unnoticed; its figures (CPU, memory) are the
bench's business, not this test's."""
import os
import re
import subprocess
import sys
import unittest

from harness import BIN, main
from mpi_harness import MPIRUN, NO_MPIRUN, mpi_env

BENCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "hundred-thousand")


@unittest.skipIf(MPIRUN is None, NO_MPIRUN)
class HoldAtScale(unittest.TestCase):
    def test_ten_thousand_users_over_two_ranks_are_all_held_without_an_error(self):
        env = dict(mpi_env(), STAMPEDE_BIN=BIN, RANKS="2", TARGETS="2", RAMP="10", HOLD="15", HEARTBEAT="5s")
        p = subprocess.run([sys.executable, BENCH, "10000"], env=env, capture_output=True, text=True, timeout=240)
        report = f"{p.stdout[-4000:]}\n{p.stderr[-3000:]}"
        self.assertEqual(p.returncode, 0, report)
        self.assertRegex(p.stdout, r"hundred-thousand: 10000 users, 2 ranks, 2 target processes, .* exit 0\n", report)
        held = int(re.search(r"connections held \(target side, end of hold\)\s+(\d+)", p.stdout).group(1))
        errors = int(re.search(r"\n  errors\s+(\d+)", p.stdout).group(1))
        self.assertEqual(held, 10000, report)
        self.assertEqual(errors, 0, report)
        # Heartbeats went out and came back during the hold (5 s each, 15 s held).
        replies = int(re.search(r"channel\.heartbeat p95\s+\S+ ms \((\d+) replies\)", p.stdout).group(1))
        self.assertGreater(replies, 10000, report)


if __name__ == "__main__":
    main()
