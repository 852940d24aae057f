"""Running out of file descriptors is reported as the generator's limit, with what to do."""
import resource
import subprocess
import unittest

from harness import BIN, Target, write_scenario, main


class Limits(unittest.TestCase):
    def test_out_of_file_descriptors_says_so_and_what_to_do(self):
        with Target() as target:
            path = write_scenario(f"""
local http = require "stampede.http"
local stampede = require "stampede"
return {{ options = {{ vus = 200, duration = "1s" }},
         run = function() http.get("{target.url}/"); stampede.sleep("2s") end }}
""")
            limit = lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (96, 96))
            p = subprocess.run([BIN, "run", path, "--quiet", "--threads", "1"], capture_output=True, text=True,
                               timeout=60, preexec_fn=limit)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertRegex(p.stdout, r"\n\s+fd\s+\d+", p.stdout)
        self.assertIn("ran out of file descriptors", p.stderr)
        self.assertIn("ulimit -n", p.stderr)


if __name__ == "__main__":
    main()
