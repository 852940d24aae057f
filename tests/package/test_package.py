"""Installing Stampede as a user would: `cmake --install` into a fresh prefix (binary, type
definitions, docs, and a binary that finds them), then the .deb that `cpack -G DEB` makes,
installed with `dpkg -i` (root only) and run: `stampede demo --duration 3s` from /usr/bin.
The package is removed again at the end. BUILD_DIR is the configured, built build tree."""
import glob
import json
import os
import shutil
import subprocess
import tempfile
import unittest

BUILD_DIR = os.environ.get("BUILD_DIR") or os.path.join(os.path.dirname(__file__), "..", "..", "build")


def sh(args, timeout=300, **kw):
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout, **kw)


class InstallTest(unittest.TestCase):
    def test_cmake_install_puts_everything_in_place(self):
        prefix = tempfile.mkdtemp(prefix="stampede-prefix-")
        try:
            r = sh(["cmake", "--install", BUILD_DIR, "--prefix", prefix])
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            binary = os.path.join(prefix, "bin", "stampede")
            for path in ["bin/stampede", "share/stampede/types/stampede.lua", "share/stampede/types/stampede/liveview.lua",
                         "share/doc/stampede/reference/lua.md", "share/doc/stampede/reference/cli.md",
                         "share/doc/stampede/guides/load-tests-in-ci.md", "share/doc/stampede/README.md"]:
                self.assertTrue(os.path.exists(os.path.join(prefix, path)), path)
            # The installed binary points editors at the installed types, and scenarios at the installed docs.
            work = tempfile.mkdtemp(prefix="stampede-proj-")
            r = sh([binary, "new", "lobby", "--channels"], cwd=work)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(os.path.join(work, ".luarc.json")) as f:
                luarc = json.load(f)
            self.assertEqual(luarc["workspace.library"], [os.path.join(prefix, "share", "stampede", "types")])
            with open(os.path.join(work, "loadtest", "lobby.lua")) as f:
                self.assertIn(os.path.join(prefix, "share", "doc", "stampede", "reference", "lua.md"), f.read())
            shutil.rmtree(work)
        finally:
            shutil.rmtree(prefix)


@unittest.skipUnless(os.geteuid() == 0 and shutil.which("dpkg"), "dpkg -i needs root on Debian")
class DebTest(unittest.TestCase):
    def test_deb_installs_and_runs_the_demo(self):
        out = tempfile.mkdtemp(prefix="stampede-deb-")
        try:
            r = sh(["cpack", "-G", "DEB", "-B", out], cwd=BUILD_DIR, timeout=600)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            debs = glob.glob(os.path.join(out, "stampede_*.deb"))
            self.assertEqual(len(debs), 1, os.listdir(out))
            info = sh(["dpkg-deb", "--field", debs[0], "Depends"]).stdout
            # shlibdeps found the real libraries the binary links.
            for lib in ["libc6", "libluajit", "libssl3", "libfmt"]:
                self.assertIn(lib, info)
            r = sh(["dpkg", "-i", debs[0]])
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            try:
                self.assertTrue(os.path.exists("/usr/share/stampede/types/stampede.lua"))
                self.assertTrue(os.path.exists("/usr/share/doc/stampede/reference/lua.md"))
                v = sh(["/usr/bin/stampede", "version"])
                self.assertEqual(v.returncode, 0, v.stderr)
                self.assertRegex(v.stdout, r"stampede \d+\.\d+\.\d+\ncommit \S+\nbuild ")
                demo = sh(["/usr/bin/stampede", "demo", "--duration", "3s", "--dashboard-listen", "127.0.0.1:0"],
                          timeout=120)
                self.assertEqual(demo.returncode, 0, demo.stdout + demo.stderr[-3000:])
                self.assertIn("live.event", demo.stdout)
                self.assertIn("channel.join", demo.stdout)
            finally:
                sh(["dpkg", "-r", "stampede"])
        finally:
            shutil.rmtree(out)


if __name__ == "__main__":
    unittest.main(verbosity=2)
