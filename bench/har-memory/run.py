#!/usr/bin/env python3
"""Peak memory of `stampede convert --check` on HARs of 1, 10 and 100 MB, against the size of
the file: the HAR reader streams (docs/design/039-recording-a-scenario.md), so its peak should
stay near the binary's own footprint, not grow with the file.

    python3 bench/har-memory/run.py [build/stampede]

The HARs are made here: the lv-1.x browser session (tests/vectors/har/lv-1.x.har) followed by
as many entries as it takes of what makes real HARs big: scripts, images and fonts with their
bodies (base64), and long JSON API responses. Each size is measured 3 times, interleaved, with
`stampede version` (the binary doing nothing) as the reference in the same run; the medians are
printed."""
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
BIN = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "stampede")


def make_har(path, megabytes):
    base = json.load(open(os.path.join(ROOT, "tests", "vectors", "har", "lv-1.x.har")))
    entries = base["log"]["entries"]
    template = entries[0]
    rng = random.Random(megabytes)
    blob = "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/") for _ in range(1 << 20))
    size = len(json.dumps(base))
    i = 0
    extra = []
    while size < megabytes << 20:
        kind = i % 3
        entry = json.loads(json.dumps(template))
        entry["request"]["url"] = "http://127.0.0.1:4001/assets/blob-%d.%s" % (i, ["png", "js", "json"][kind])
        entry["_resourceType"] = ["image", "script", "fetch"][kind]
        body = blob[: rng.randint(200_000, 1 << 20)]
        entry["response"]["content"] = {"size": len(body), "mimeType": ["image/png", "text/javascript", "application/json"][kind],
                                        "text": body if kind else body, **({"encoding": "base64"} if kind == 0 else {})}
        if kind == 2:
            entry["response"]["content"]["text"] = json.dumps({"items": [body[:1000]] * 200})
        extra.append(entry)
        size += len(json.dumps(entry))
        i += 1
    base["log"]["entries"] = entries + extra
    with open(path, "w") as out:
        json.dump(base, out)
    return os.path.getsize(path)


def peak_rss_kib(args):
    pid = os.fork()
    if pid == 0:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        os.execv(args[0], args)
    _, status, usage = os.wait4(pid, 0)
    if status != 0:
        raise SystemExit("failed: %s" % " ".join(args))
    return usage.ru_maxrss


def main():
    with tempfile.TemporaryDirectory() as tmp:
        hars = {}
        for mb in (1, 10, 100):
            path = os.path.join(tmp, "%d.har" % mb)
            hars[mb] = (path, make_har(path, mb))
        samples = {mb: [] for mb in hars}
        reference = []
        for _ in range(3):
            reference.append(peak_rss_kib([BIN, "version"]))
            for mb, (path, _) in hars.items():
                samples[mb].append(peak_rss_kib([BIN, "convert", "--check", path]))
        ref = statistics.median(reference)
        print("reference (stampede version): peak RSS %.1f MiB" % (ref / 1024))
        for mb, (path, size) in hars.items():
            peak = statistics.median(samples[mb])
            print("HAR %6.1f MiB: peak RSS %6.1f MiB (%.2f x the reference, %.1f MiB above it)"
                  % (size / 2**20, peak / 1024, peak / ref, (peak - ref) / 1024))


if __name__ == "__main__":
    main()
