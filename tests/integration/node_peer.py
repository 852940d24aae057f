"""A Node.js peer from tests/js (a reference server built on the real npm packages) in a
process of its own, on a free port: `with NodePeer("sse_server.js") as peer: peer.url`."""
import os
import subprocess

JS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "js")


class NodePeer:
    def __init__(self, script, *flags):
        self.proc = subprocess.Popen(["node", os.path.join(JS, script), "0", *flags],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline().split()
        if not line or line[0] != "listening":
            self.proc.kill()
            raise RuntimeError(f"{script} did not start: " + self.proc.stderr.read())
        self.port = int(line[1])
        self.url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}"

    def close(self):
        self.proc.kill()
        self.proc.wait()
        self.proc.stdout.close()
        self.proc.stderr.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def node(script, *args, timeout=30):
    """Runs a tests/js script to its end; returns (exit code, stdout, stderr)."""
    p = subprocess.run(["node", os.path.join(JS, script), *args], capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr
