"""Shared helpers for integration tests: run the real `stampede` binary against real servers
on loopback, and read what it printed. Standard library only."""
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.request

BIN = os.environ.get("STAMPEDE_BIN") or os.path.join(os.path.dirname(__file__), "..", "..", "build", "stampede")
HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIOS = os.path.join(HERE, "scenarios")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Target:
    """`stampede target` in a process of its own, on a free port."""

    def __init__(self, delay="fixed:0", threads=1, seed=1, extra=()):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc = subprocess.Popen(
            [BIN, "target", "--listen", f"127.0.0.1:{self.port}", "--delay", delay,
             "--threads", str(threads), "--seed", str(seed), *extra],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.time() + 10
        while time.time() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                if self.proc.poll() is not None:
                    raise RuntimeError("target exited: " + self.proc.stderr.read().decode())
                time.sleep(0.05)
        raise RuntimeError("target did not start")

    def truth(self):
        with urllib.request.urlopen(self.url + "/__truth", timeout=5) as r:
            return json.loads(r.read())

    def reset(self):
        urllib.request.urlopen(urllib.request.Request(self.url + "/__reset", method="POST"), timeout=5).read()

    def close(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc.stderr.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Result:
    def __init__(self, code, out, err):
        self.code, self.out, self.err = code, out, err

    def metric(self, name):
        """The summary row of `name` as a dict: count, rate, and for timings mean..max in ms."""
        for line in self.out.splitlines():
            parts = line.split()
            if parts and parts[0] == name and len(parts) >= 3:
                row = {"count": int(parts[1]), "rate": float(parts[2])}
                for key, text in zip(["mean", "p50", "p90", "p95", "p99", "max"], parts[3:9]):
                    row[key] = to_ms(text)
                return row
        return None

    def __repr__(self):
        return f"exit {self.code}\n--- stdout\n{self.out}\n--- stderr\n{self.err[-4000:]}"


UNITS = {"ns": 1e-6, "µs": 1e-3, "us": 1e-3, "ms": 1.0, "s": 1000.0}


def to_ms(text):
    m = re.fullmatch(r"([0-9.]+)(ns|µs|us|ms|s)", text)
    if not m:
        raise ValueError("not a duration: " + text)
    return float(m.group(1)) * UNITS[m.group(2)]


def write_scenario(text, name="scenario.lua", directory=None):
    directory = directory or tempfile.mkdtemp(prefix="stampede-it-")
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def run(args, timeout=120, env=None, input_signal_after=None, second_signal_after=None):
    """Runs `stampede ARGS`; optionally sends SIGINT after some seconds (and again)."""
    e = dict(os.environ)
    e.update(env or {})
    p = subprocess.Popen([BIN, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=e, text=True)
    timers = []
    if input_signal_after is not None:
        timers.append(threading.Timer(input_signal_after, lambda: p.poll() is None and p.send_signal(signal.SIGINT)))
    if second_signal_after is not None:
        timers.append(threading.Timer(second_signal_after, lambda: p.poll() is None and p.send_signal(signal.SIGINT)))
    for t in timers:
        t.start()
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        raise AssertionError(f"stampede {' '.join(args)} did not finish in {timeout}s\n{out}\n{err}")
    finally:
        for t in timers:
            t.cancel()
    return Result(p.returncode, out, err)


def main():
    unittest.main(verbosity=2)
