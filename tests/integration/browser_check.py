"""Runs the browser checks of tests/js (a real headless Chromium, Debian's /usr/bin/chromium,
driven by playwright-core) and keeps their screenshots as test artifacts: in
$STAMPEDE_ARTIFACTS, or test-artifacts/ beside the stampede binary under test."""
import os
import shutil
import subprocess

from harness import BIN

JS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "js")
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = os.environ.get("STAMPEDE_ARTIFACTS") or os.path.join(os.path.dirname(os.path.abspath(BIN)), "test-artifacts")

# Text that would run if a page ever put a scenario's text into HTML.
LITERAL = "<script>alert(1)</script>"


def require_browser():
    """Fails (never skips) when what the checks need is missing, saying how to get it."""
    if shutil.which("node") is None:
        raise RuntimeError("node is needed for the browser checks (scripts/setup-test-deps.sh installs it)")
    if not os.path.exists(CHROMIUM):
        raise RuntimeError(f"{CHROMIUM} is missing: apt-get install chromium (scripts/setup-test-deps.sh does)")
    if not os.path.isdir(os.path.join(JS_DIR, "node_modules", "playwright-core")):
        raise RuntimeError("tests/js/node_modules is missing: run `npm ci` in tests/js")


def artifact(name):
    os.makedirs(ARTIFACTS, exist_ok=True)
    return os.path.join(ARTIFACTS, name)


def run_check(testcase, script, *args, timeout=240):
    """Runs tests/js/SCRIPT with ARGS; the test fails unless every check passed."""
    result = subprocess.run(["node", os.path.join(JS_DIR, script), *args], cwd=JS_DIR, capture_output=True,
                            text=True, timeout=timeout)
    output = result.stdout + result.stderr
    testcase.assertEqual(result.returncode, 0, output)
    testcase.assertFalse([line for line in result.stdout.splitlines() if line.startswith("not ok")], output)
    testcase.assertIn("all checks passed", result.stdout, output)
    return result.stdout
