"""Running `stampede` under OpenMPI's mpirun on one machine, shared by the MPI suites."""
import json
import os
import shutil
import subprocess
import time

from harness import BIN, write_scenario

MPIRUN = shutil.which("mpirun")
RANKS = 3
NO_MPIRUN = "mpirun is not installed (apt-get install openmpi-bin libopenmpi-dev; CI installs it)"


def mpi_env():
    """The environment for processes under MPI. OpenMPI never frees what its dlopen()ed
    components and hwloc allocate, and LeakSanitizer cannot suppress frames in unknown
    modules: in the sanitizer build its leak check would abort every rank at exit (and
    mpirun would wait for them). Memory errors are still caught; only leak checking is off."""
    env = dict(os.environ)
    if "ASAN_OPTIONS" in env or "asan" in BIN:
        env["ASAN_OPTIONS"] = (env.get("ASAN_OPTIONS", "") + ":detect_leaks=0").lstrip(":")
    return env


def mpirun(args, ranks=RANKS, keep_going=True):
    """`mpirun -np RANKS stampede ARGS`, with the options the guide gives for one machine;
    keep_going=False leaves out `-q --mca orte_abort_on_non_zero_status 0` (mpirun's defaults)."""
    # Every metric in the summary, zero ones too, for the tests that read them (as harness.run).
    if args[:1] == ["run"] and not any(a.startswith("--summary") for a in args):
        args = [*args, "--summary", "all"]
    cmd = [MPIRUN, "-np", str(ranks), "--oversubscribe"]
    if keep_going:
        cmd += ["-q", "--mca", "orte_abort_on_non_zero_status", "0"]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    return subprocess.Popen(cmd + [BIN, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=mpi_env())


def finish(p, timeout=60):
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        raise AssertionError(f"mpirun did not finish in {timeout}s\n{out}\n{err}")
    return p.returncode, out, err


def load(path):
    with open(path) as f:
        return json.load(f)


def rate_scenario(url, rate, duration, directory, extra=""):
    """Arrivals at RATE/s for DURATION, each one GET URL/api/posts."""
    return write_scenario(f"""
local http = require "stampede.http"
return {{ options = {{ rate = {rate}, duration = "{duration}", graceful_stop = "5s", max_vus = 300 {extra} }},
         run = function() http.get("{url}/api/posts") end }}
""", directory=directory)


def rank_pid(rank, path, timeout=15):
    """The pid of rank RANK of a job running the scenario PATH (a stampede process whose
    environment says so and whose command line names PATH, so that other jobs on the same
    machine are left alone); None if none showed up within TIMEOUT seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                with open(f"/proc/{pid}/environ", "rb") as f:
                    environ = f.read()
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    cmdline = f.read()
            except OSError:
                continue
            if f"OMPI_COMM_WORLD_RANK={rank}\0".encode() in environ and path.encode() in cmdline \
                    and b"stampede" in cmdline:
                return int(pid)
        time.sleep(0.05)
    return None


def wait_for_file(path, timeout=15):
    """True once PATH exists (a marker a scenario writes), False after TIMEOUT seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if os.path.exists(path):
            return True
        time.sleep(0.02)
    return False
