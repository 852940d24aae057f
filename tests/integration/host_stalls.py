"""How late this host runs a sleeping process: a witness of the machine's own scheduling
noise (a VM's vCPUs stop for milliseconds now and then), independent of Stampede.

As a module: `with HostStalls(seconds) as stalls: ...` runs `python3 host_stalls.py
SECONDS` beside the block; afterwards `stalls.percentile(95)` is how late (ms) its 1 ms
sleeps woke at that percentile. Sleeps sample the run's time evenly, as 1,000 arrivals/s
do, so a percentile of their lateness is how late the host was for that share of moments:
the timing checks allow it on top of their tolerance (docs/design/024)."""
import json
import os
import subprocess
import sys
import time


def watch(seconds):
    late = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        before = time.perf_counter()
        time.sleep(0.001)
        late.append(max(0.0, time.perf_counter() - before - 0.001) * 1000.0)
    late.sort()
    print(json.dumps({str(p): late[min(len(late) - 1, int(len(late) * p / 100))] for p in (50, 95, 99)}))


class HostStalls:
    def __init__(self, seconds):
        self.seconds = seconds
        self.late = None

    def __enter__(self):
        self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), str(self.seconds)],
                                     stdout=subprocess.PIPE, text=True)
        return self

    def __exit__(self, *exc):
        out, _ = self.proc.communicate(timeout=self.seconds + 30)
        self.late = {int(k): v for k, v in json.loads(out).items()}
        return False

    def percentile(self, p):
        """Lateness (ms) of the sleeps at percentile p (50, 95 or 99)."""
        return self.late[int(p)]


if __name__ == "__main__":
    watch(float(sys.argv[1]))
