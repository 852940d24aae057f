"""The Elixir integration (integrations/elixir): its ExUnit suite (assert_load against the
built-in target) and `mix stampede.run`, with Debian's Elixir and no Hex at all."""
import os
import shutil
import subprocess
import unittest

from harness import BIN, Target, main, temp_dir

PROJECT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "integrations", "elixir")
FIXTURES = os.path.join(PROJECT, "test", "fixtures")


def mix_env(build):
    env = dict(os.environ)
    # Offline and without Hex: the project has no dependencies, and nothing may be fetched.
    env.update({"STAMPEDE_BIN": os.path.abspath(BIN), "MIX_ENV": "test", "HEX_OFFLINE": "1",
                "MIX_BUILD_PATH": build, "MIX_HOME": os.path.join(build, "mix-home")})
    return env


@unittest.skipIf(shutil.which("mix") is None and os.environ.get("CI") != "true",
                 "Elixir is not installed (scripts/setup-test-deps.sh installs it)")
class ElixirTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.build = temp_dir(prefix="stampede-mix-")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.build, ignore_errors=True)

    def mix(self, args, env=None, timeout=240):
        e = mix_env(self.build)
        e.update(env or {})
        return subprocess.run(["mix", *args], cwd=PROJECT, env=e, capture_output=True, text=True, timeout=timeout)

    def test_exunit_suite(self):
        r = self.mix(["test", "--no-deps-check"])
        self.assertEqual(r.returncode, 0, r.stdout[-4000:] + r.stderr[-4000:])
        self.assertRegex(r.stdout, r"\b1 doctest, 9 tests, 0 failures")

    def test_mix_stampede_run_exits_with_the_runs_status(self):
        with Target(delay="fixed:5") as target:
            env = {"BASE_URL": target.url}
            ok = self.mix(["stampede.run", os.path.join(FIXTURES, "loadtest", "lobby.lua"), "--vus", "2",
                           "--duration", "1s", "-q"], env)
            self.assertEqual(ok.returncode, 0, ok.stdout[-3000:] + ok.stderr[-3000:])
            self.assertRegex(ok.stdout, r"(?m)^pass channel\.join p95")
            failed = self.mix(["stampede.run", os.path.join(FIXTURES, "loadtest", "too_strict.lua"), "-q"], env)
            self.assertEqual(failed.returncode, 1, failed.stdout[-3000:] + failed.stderr[-3000:])
            self.assertRegex(failed.stdout, r"(?m)^fail http\.request p95")
        usage = self.mix(["stampede.run"])
        self.assertNotEqual(usage.returncode, 0)
        self.assertIn("usage: mix stampede.run", usage.stdout + usage.stderr)


if __name__ == "__main__":
    main()
