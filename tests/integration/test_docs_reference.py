"""The reference in docs/reference/ is complete and current: scripts/reference.py --check
(every Lua function registered in src/scenario/module_*.cpp has a definition in types/, every
flag in src/cli/ a row in cli.md, every metric a row in metrics.md, and the generated files
are what their sources generate). Also checks that the checker notices what it should."""
import os
import shutil
import subprocess
import sys
import unittest

from harness import BIN, main, temp_dir

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import reference  # noqa: E402


class ReferenceTest(unittest.TestCase):
    def test_reference_is_complete_and_current(self):
        r = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "reference.py"), "--check", "--bin", BIN],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, "\n" + r.stdout + r.stderr)

    # luac5.1, not Debian's `luajit`: that package conflicts with OpenResty's LuaJIT we build with.
    @unittest.skipIf(shutil.which("luac5.1") is None and os.environ.get("CI") != "true",
                     "luac5.1 is not installed (scripts/setup-test-deps.sh installs lua5.1)")
    def test_type_definitions_and_templates_are_valid_lua(self):
        import glob
        files = (glob.glob(os.path.join(ROOT, "types", "**", "*.lua"), recursive=True)
                 + glob.glob(os.path.join(ROOT, "templates", "*.lua"))
                 + glob.glob(os.path.join(ROOT, "docs", "guides", "examples", "*.lua"))
                 + glob.glob(os.path.join(ROOT, "src", "scenario", "lua", "*.lua")))
        self.assertGreaterEqual(len(files), 17)
        for path in files:
            # -p: parse only (a syntax check), nothing runs.
            r = subprocess.run(["luac5.1", "-p", path], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, f"{path}: {r.stderr}")

    def test_help_lists_every_command(self):
        r = subprocess.run([BIN, "help"], capture_output=True, text=True, timeout=10)
        self.assertEqual(r.returncode, 0)
        for command in ["run", "demo", "new", "target", "version", "help"]:
            self.assertRegex(r.stdout, rf"(?m)^  {command}\s")

    def test_the_checker_sees_the_whole_api(self):
        found = reference.source_functions()
        self.assertIn("Socket:join", found["stampede.channels"])
        self.assertIn("View:click", found["stampede.liveview"])   # defined in a loop over names
        self.assertIn("del", found["stampede.http"])               # an alias
        self.assertIn("check", found["stampede"])                  # a C function
        self.assertNotIn("join", found["stampede.channels"])       # C internals are not the API
        self.assertIn("--dashboard-listen", reference.source_flags())
        self.assertIn("channel.join.errors", reference.source_metrics())

    def test_a_function_without_a_definition_fails_the_check(self):
        saved = reference.TYPES
        copy = temp_dir(prefix="stampede-types-")
        try:
            shutil.copytree(saved, copy, dirs_exist_ok=True)
            path = os.path.join(copy, "stampede", "channels.lua")
            text = open(path).read()
            start = text.index("---Pushes without waiting")
            end = text.index("function Socket:cast(topic, event, payload) end") + len("function Socket:cast(topic, event, payload) end")
            with open(path, "w") as f:
                f.write(text[:start] + text[end:])
            reference.TYPES = copy
            problems = reference.check(BIN)
        finally:
            reference.TYPES = saved
            shutil.rmtree(copy)
        self.assertTrue(any("`Socket:cast`" in p and "no definition" in p for p in problems), problems)

    def test_a_flag_without_a_row_fails_the_check(self):
        saved = reference.REFERENCE
        copy = temp_dir(prefix="stampede-ref-")
        try:
            shutil.copytree(saved, copy, dirs_exist_ok=True)
            path = os.path.join(copy, "cli.md")
            with open(path) as f:
                rows = [line for line in f if not line.startswith("| `--dashboard-linger`")]
            with open(path, "w") as f:
                f.writelines(rows)
            reference.REFERENCE = copy
            problems = reference.check(BIN)
        finally:
            reference.REFERENCE = saved
            shutil.rmtree(copy)
        self.assertTrue(any("--dashboard-linger" in p and "no entry" in p for p in problems), problems)
        self.assertTrue(any("cli.md is not what" in p for p in problems), problems)


if __name__ == "__main__":
    main()
