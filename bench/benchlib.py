"""Shared by the benchmarks: the integration harness (target process, running stampede,
reading its summary) plus process measurements."""
import os
import resource
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "integration"))
from harness import BIN, Target, run, write_scenario, free_port, to_ms  # noqa: E402,F401


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        parts = f.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(parts[11]) + int(parts[12])) / ticks


def threads_cpu_seconds(pid):
    """CPU seconds of the live threads of process PID, to the nanosecond (the scheduler's
    sum_exec_runtime, /proc/PID/task/*/schedstat): where cpu_seconds counts 10 ms ticks, which
    over a 30 s window of a process using 1% of a core is +-4% by rounding alone. Threads that
    ended are not counted: for windows in which a process keeps its threads (a hold)."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                total += int(f.read().split()[0])
        except FileNotFoundError:  # the thread ended meanwhile
            pass
    return total / 1e9


def children_cpu_seconds():
    """CPU seconds of this process's children that have ended and been waited for (a
    `stampede run` started by `run`, for one)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def cpu_mark(ours_seconds, target_pid):
    """A point to measure cores from (`cores_since`, `stolen_since`): the time, our CPU
    seconds so far, the target's, the whole machine's, and the hypervisor's steal."""
    machine = _machine_cpu_seconds()  # one read: busy and steal from the same instant
    return (time.time(), ours_seconds, cpu_seconds(target_pid), _busy(machine), machine["steal"])


def cores_since(mark, ours_seconds, target_pid):
    """Cores used since `mark`: (ours, the target's, everything else on the machine's); the
    cores are shared, so the last says how much the rest of the machine took."""
    now = cpu_mark(ours_seconds, target_pid)
    span = now[0] - mark[0]
    ours = (now[1] - mark[1]) / span
    target = (now[2] - mark[2]) / span
    return ours, target, (now[3] - mark[3]) / span - ours - target


def stolen_since(mark):
    """Cores the hypervisor took from this VM since `mark` (`cpu_mark`): time its vCPUs had
    work but were not running. Part of `cores_since`'s "everything else"; shown on its own
    because it stalls every process at once, and a level that fails on it measured the host."""
    return (machine_steal_seconds() - mark[4]) / (time.time() - mark[0])


def wrk(url, seconds=10, threads=2, connections=50):
    out = subprocess.run(["wrk", f"-t{threads}", f"-c{connections}", f"-d{seconds}s", url],
                         capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        if line.startswith("Requests/sec:"):
            return float(line.split()[1])
    raise RuntimeError("no Requests/sec in wrk output:\n" + out)


def median(values):
    return statistics.median(values)


def table(headers, rows):
    widths = [max(len(str(h)), *(len(str(r[i])) for r in rows)) for i, h in enumerate(headers)]
    lines = ["  ".join(str(h).rjust(w) for h, w in zip(headers, widths))]
    for r in rows:
        lines.append("  ".join(str(c).rjust(w) for c, w in zip(r, widths)))
    return "\n".join(lines)


def fd_count(pid):
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return 0


def descendants(pid):
    """PIDs of every live descendant of `pid` (from /proc, no names involved)."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    out, pending = [], [pid]
    while pending:
        for c in children.get(pending.pop(), []):
            out.append(c)
            pending.append(c)
    return out


def exe_name(pid):
    try:
        return os.path.basename(os.readlink(f"/proc/{pid}/exe"))
    except OSError:
        return ""


def channels_stats(target):
    import json
    import urllib.request
    with urllib.request.urlopen(target.url + "/__channels", timeout=5) as r:
        return json.loads(r.read())


def wait_sockets_closed(target, seconds=30, at_most=0):
    import time
    deadline = time.time() + seconds
    while True:
        s = channels_stats(target)
        if s.get("sockets_open", 0) <= at_most or time.time() > deadline:
            return s
        time.sleep(0.2)


def count_of(result, name):
    row = result.metric(name)
    return row["count"] if row else 0


def _machine_cpu_seconds():
    """The machine's CPU time so far by kind (every core), from the first line of /proc/stat."""
    with open("/proc/stat") as f:
        parts = f.readline().split()[1:]
    names = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")
    return {name: int(x) / os.sysconf("SC_CLK_TCK") for name, x in zip(names, parts)}


def _busy(t):
    return t["user"] + t["nice"] + t["system"] + t["irq"] + t["softirq"] + t["steal"]


def machine_busy_seconds():
    """CPU seconds all processes on the machine have used (every core), from /proc/stat:
    with our own processes' CPU subtracted, how much the other users of the cores took."""
    return _busy(_machine_cpu_seconds())


def machine_steal_seconds():
    """CPU seconds the hypervisor has taken from this VM's vCPUs (steal, /proc/stat)."""
    return _machine_cpu_seconds()["steal"]


NETNS = "stampede-bench"
NETNS_HOST, NETNS_TARGET = "10.231.0.1", "10.231.0.2"


def netns_up():
    """A network namespace with a veth pair to this one (10.231.0.1 here, 10.231.0.2 there):
    a target in it has its own network stack, as a server on another machine has, while it
    shares this machine's cores. Idempotent; removed at exit."""
    import atexit
    if subprocess.run(["ip", "netns", "exec", NETNS, "true"], capture_output=True).returncode == 0:
        return
    for cmd in (["ip", "netns", "add", NETNS],
                ["ip", "link", "add", "stb0", "type", "veth", "peer", "name", "stb1"],
                ["ip", "link", "set", "stb1", "netns", NETNS],
                ["ip", "addr", "add", f"{NETNS_HOST}/24", "dev", "stb0"],
                ["ip", "link", "set", "stb0", "up"],
                ["ip", "netns", "exec", NETNS, "ip", "addr", "add", f"{NETNS_TARGET}/24", "dev", "stb1"],
                ["ip", "netns", "exec", NETNS, "ip", "link", "set", "stb1", "up"],
                ["ip", "netns", "exec", NETNS, "ip", "link", "set", "lo", "up"]):
        subprocess.run(cmd, check=True, capture_output=True)
    atexit.register(netns_down)


def netns_down():
    subprocess.run(["ip", "link", "del", "stb0"], capture_output=True)
    subprocess.run(["ip", "netns", "del", NETNS], capture_output=True)


class NetnsTarget(Target):
    """`stampede target` in the namespace of netns_up(), reached over the veth pair.
    `ip netns exec` execs the target in place: its pid is the target's, for CPU figures."""

    def __init__(self, delay="fixed:0", threads=1, seed=1, extra=()):
        import socket
        netns_up()
        # Any port will do: the target listens in the bench's own namespace, where nothing
        # else runs (free_port() only picks a number; its race is with this namespace's
        # processes, not that one's).
        self.port = free_port()
        self.host = NETNS_TARGET
        self.url = f"http://{NETNS_TARGET}:{self.port}"
        self.proc = subprocess.Popen(
            ["ip", "netns", "exec", NETNS, BIN, "target", "--listen", f"{NETNS_TARGET}:{self.port}", "--delay", delay,
             "--threads", str(threads), "--seed", str(seed), *extra],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.time() + 10
        while time.time() < deadline:
            try:
                with socket.create_connection((NETNS_TARGET, self.port), timeout=0.2):
                    return
            except OSError:
                if self.proc.poll() is not None:
                    raise RuntimeError("target exited: " + self.proc.stderr.read().decode())
                time.sleep(0.05)
        raise RuntimeError("target did not start in the namespace")
