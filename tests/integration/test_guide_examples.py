"""The scenarios of the guides (docs/guides/examples/*.lua) run green against the built-in
target, with their load scaled down by flags and their waits by environment variables."""
import glob
import os
import unittest

from harness import Target, main, run

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "guides", "examples")

# file -> (flags that scale the load down, extra environment, a metric that must have samples).
# The closed-model examples run a count of iterations (the run ends when the last has, however
# busy the cores): login's six among three VUs, so that later iterations find the session
# cookie a VU's first one got; presence's stages need --duration beside --vus, as the limit.
CASES = {
    "login.lua": (["--vus", "3", "--iterations", "6"], {}, "live.join"),
    "presence.lua": (["--vus", "4", "--iterations", "4", "--duration", "1m"], {"HOLD": "300ms"}, "presence.visible"),
    "absinthe.lua": (["--vus", "3", "--iterations", "3"], {}, "subscription.next"),
    "tsung_phoenix.lua": (["--rate", "20", "--duration", "2s", "--max-vus", "100"],
                          {"HOLD": "500ms", "TOPIC": "room:lobby", "HEARTBEAT": "200ms"}, "channel.join"),
    "tsung_brokaw.lua": (["--rate", "20", "--duration", "2s", "--max-vus", "100"], {"HOLD": "500ms"},
                         "presence.visible"),
}


class GuideExamplesTest(unittest.TestCase):
    def test_every_example_is_covered(self):
        self.assertEqual(sorted(os.path.basename(p) for p in glob.glob(os.path.join(EXAMPLES, "*.lua"))),
                         sorted(CASES))

    def test_examples_run_green(self):
        with Target(delay="fixed:1") as target:
            for name, (flags, env, metric) in CASES.items():
                with self.subTest(example=name):
                    r = run(["run", os.path.join(EXAMPLES, name), "-q", *flags], timeout=90,
                            env={"BASE_URL": target.url, **env})
                    self.assertEqual(r.code, 0, f"{name}: {r}")
                    self.assertNotRegex(r.out, r"(?m)^fail ")
                    row = r.metric(metric)
                    self.assertIsNotNone(row, f"{name}: no {metric}\n{r.out}")
                    self.assertGreater(row["count"], 0)
                    self.assertEqual(r.metric("iteration.errors")["count"], 0, r.out)


if __name__ == "__main__":
    main()
