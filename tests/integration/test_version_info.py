"""`stampede version` names the commit the binary was built from: cmake/VersionInfo.cmake runs
on every build and rewrites the generated header only when the commit changed (so a new
commit recompiles one file, and an unchanged one nothing)."""
import os
import re
import shutil
import subprocess
import time
import unittest

from harness import BIN, main, temp_dir

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SCRIPT = os.path.join(ROOT, "cmake", "VersionInfo.cmake")


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, "-c", "user.name=t", "-c", "user.email=t@t", *args],
                          check=True, capture_output=True, text=True).stdout.strip()


class VersionInfoTest(unittest.TestCase):
    def tmp(self, prefix):
        path = temp_dir(prefix=prefix)
        self.addCleanup(shutil.rmtree, path, True)
        return path

    def generate(self, repo, header):
        subprocess.run(["cmake", f"-DSOURCE_DIR={repo}", f"-DOUTPUT={header}", "-P", SCRIPT],
                       check=True, capture_output=True)
        with open(header) as f:
            return re.search(r'STAMPEDE_COMMIT "([^"]+)"', f.read()).group(1)

    def test_follows_new_commits_and_touches_only_on_change(self):
        repo = self.tmp("stampede-git-")
        header = os.path.join(self.tmp("stampede-gen-"), "version_commit.hpp")
        git(repo, "init", "-q")
        git(repo, "commit", "-q", "--allow-empty", "-m", "one")
        first = self.generate(repo, header)
        self.assertEqual(first, git(repo, "rev-parse", "--short", "HEAD"))
        stamp = os.stat(header).st_mtime_ns
        time.sleep(0.05)
        self.assertEqual(self.generate(repo, header), first)
        self.assertEqual(os.stat(header).st_mtime_ns, stamp, "an unchanged commit must not touch the file")
        git(repo, "commit", "-q", "--allow-empty", "-m", "two")
        second = self.generate(repo, header)
        self.assertNotEqual(second, first)
        self.assertEqual(second, git(repo, "rev-parse", "--short", "HEAD"))

    def test_outside_git_the_commit_is_unknown(self):
        header = os.path.join(self.tmp("stampede-gen-"), "version_commit.hpp")
        self.assertEqual(self.generate(self.tmp("stampede-nogit-"), header), "unknown")

    def test_version_prints_version_commit_and_build_options(self):
        r = subprocess.run([BIN, "version"], capture_output=True, text=True, timeout=10)
        self.assertEqual(r.returncode, 0)
        self.assertRegex(r.stdout, r"^stampede \d+\.\d+\.\d+\ncommit \S+\nbuild \S+ \(sanitize=\w+ werror=\w+\), ")
        try:
            head = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                                  text=True, check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            return
        # The binary under test was built after the last commit (CI builds then tests).
        self.assertIn(f"commit {head}\n", r.stdout)


if __name__ == "__main__":
    main()
