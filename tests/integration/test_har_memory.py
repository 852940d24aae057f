"""`stampede convert` holds a HAR's entries one at a time: a 100 MB file is streamed. A memory
check: the file name gives it ctest's `release` label, so CI runs it on the release build
only (under AddressSanitizer RSS is its shadow memory and quarantine)."""
import json
import os
import resource
import unittest

from harness import main, run, temp_dir
from test_record import entry


class ConvertsABigHarInBoundedMemory(unittest.TestCase):
    def test_a_100_mb_har_is_streamed(self):
        """The whole file is never held: converting a 100 MB HAR made of big static bodies (what
        makes real HARs big) peaks far below the file's size (bench/har-memory has the figures)."""
        directory = temp_dir()
        path = os.path.join(directory, "big.har")
        blob = "A" * (1 << 20)
        with open(path, "w") as f:
            f.write('{"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": [')
            f.write(json.dumps(entry("http://127.0.0.1:4000/", text="<html></html>")))
            for i in range(100):
                f.write(",")
                f.write(json.dumps(entry(f"http://127.0.0.1:4000/assets/{i}.png", mime="image/png", text=blob,
                                         resource_type="image")))
            f.write("]}}")
        self.assertGreater(os.path.getsize(path), 100 << 20)
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        r = run(["convert", "--check", path])
        self.assertEqual(r.code, 0, r)
        self.assertIn("100 static assets", r.out)
        peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        # ru_maxrss of children is the largest child so far; the binary alone is ~60 MiB.
        self.assertLess(peak_mib, 100, f"peak RSS {peak_mib:.0f} MiB (before: {before / 1024:.0f} MiB)")


if __name__ == "__main__":
    main()
