"""The container image (deploy/container/Containerfile) and the MPIJob example
(deploy/kubernetes/mpijob.yaml), with rootful podman as root.

The image is built as scripts/container/build-image.sh builds it, from a Debian 12 root
filesystem that mmdebstrap makes from Debian's mirror, but with `--prebuilt BUILD_DIR`:
the release build's `cmake --install` output and its dpkg-shlibdeps dependencies instead of
a second compile inside (which takes far longer: docs/design/042-container-image.md). Every
stage after that is the one users get. Then, inside it:
- `stampede version`, and what the image holds and leaves out;
- `stampede demo --duration 3s`;
- a 2-rank `mpirun` with the guide's options, in one container, against the built-in target;
- the MPIJob as the MPI operator runs it: a worker container running the manifest's sshd
  command with a mounted key and the manifest's ConfigMap, and a launcher container running
  the manifest's mpirun command (with the environment and hostfile the operator gives it),
  which starts the ranks on the worker over ssh. A run that fails its thresholds fails the
  launcher (exit 1).
Containers share one network namespace with no interfaces but loopback (`--network none`);
the worker is 127.0.0.2 as the launcher's /etc/hosts says. Images and containers live in a
podman store under BUILD_DIR, removed at the end (mounts first) whatever happened.
BUILD_DIR is the configured, built release tree."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.abspath(os.path.join(HERE, "..", ".."))
BUILD_DIR = os.path.abspath(os.environ.get("BUILD_DIR") or os.path.join(SOURCE, "build"))
MANIFEST = os.path.join(SOURCE, "deploy", "kubernetes", "mpijob.yaml")
IMAGE = "localhost/stampede-ci:test"
TARGET_PORT = 4311  # not the scenario's or the target's default: BASE_URL must reach every rank


def sh(args, timeout=120, **kw):
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout, **kw)


class Store:
    """A podman store of the test's own (images, containers, its containers.conf)."""

    def __init__(self, top):
        self.top = top
        self.root = os.path.join(top, "root")
        # Podman refuses a run root longer than 50 characters: a short one under /tmp.
        self.runroot = tempfile.mkdtemp(prefix="stampede-podman-")
        os.makedirs(top)
        self.env = dict(os.environ)
        conf = os.path.join(top, "containers.conf")
        with open(conf, "w") as f:
            f.write(sh([os.path.join(SOURCE, "scripts", "container", "podman-conf.sh")], check=True).stdout)
        self.env["CONTAINERS_CONF"] = conf
        self.env["PODMAN"] = f"podman --root {self.root} --runroot {self.runroot}"

    def podman(self, *args, timeout=120, check=False):
        r = sh(["podman", "--root", self.root, "--runroot", self.runroot, *args], timeout=timeout, env=self.env)
        if check and r.returncode != 0:
            raise AssertionError(f"podman {' '.join(args)}: exit {r.returncode}\n{r.stdout}\n{r.stderr}")
        return r

    def remove(self):
        """Containers, images, then any mount left under the store, then the files."""
        if os.path.isdir(self.root):
            self.podman("rm", "--all", "--force", "--time", "0", timeout=120)
            self.podman("rmi", "--all", "--force", timeout=120)
        with open("/proc/self/mounts") as f:
            mounts = [line.split()[1] for line in f]
        for m in sorted((m for m in mounts if m.startswith((self.top + "/", self.runroot + "/"))),
                        key=len, reverse=True):
            subprocess.run(["umount", "-l", m], capture_output=True)
        shutil.rmtree(self.top, ignore_errors=True)
        shutil.rmtree(self.runroot, ignore_errors=True)


@unittest.skipUnless(os.geteuid() == 0, "mmdebstrap and rootful podman need root (CI runs as root)")
class ContainerImageTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        for tool in ["podman", "mmdebstrap", "dpkg-shlibdeps", "ssh-keygen"]:
            if not shutil.which(tool):
                raise AssertionError(f"{tool} is missing: scripts/setup-test-deps.sh installs it")
        cls.top = tempfile.mkdtemp(prefix="container-test-", dir=BUILD_DIR)
        cls.addClassCleanup(shutil.rmtree, cls.top, True)  # cleanups run last first: this one last
        cls.store = Store(os.path.join(cls.top, "podman"))
        cls.addClassCleanup(cls.store.remove)
        rootfs = os.path.join(cls.top, "debian12.tar")
        started = time.monotonic()
        r = sh([os.path.join(SOURCE, "scripts", "container", "make-rootfs.sh"), rootfs], timeout=900)
        cls.rootfs_seconds = time.monotonic() - started
        if r.returncode != 0:
            raise AssertionError(f"make-rootfs.sh: exit {r.returncode}\n{r.stdout}\n{r.stderr}")
        started = time.monotonic()
        r = sh([os.path.join(SOURCE, "scripts", "container", "build-image.sh"), "--prebuilt", BUILD_DIR,
                "--rootfs", rootfs, "--context", os.path.join(cls.top, "context"), "--tag", IMAGE],
               timeout=900, env=cls.store.env)
        cls.image_seconds = time.monotonic() - started
        if r.returncode != 0:
            raise AssertionError(f"build-image.sh: exit {r.returncode}\n{r.stdout[-5000:]}\n{r.stderr[-5000:]}")
        print(f"\nroot filesystem {cls.rootfs_seconds:.0f} s, image {cls.image_seconds:.0f} s",
              file=sys.stderr, flush=True)
        with open(MANIFEST) as f:
            cls.manifest = {doc["kind"]: doc for doc in yaml.safe_load_all(f)}

    def run_in_image(self, *args, timeout=120, options=()):
        network = [] if "--network" in options else ["--network", "none"]
        return self.store.podman("run", "--rm", *network, *options, IMAGE, *args, timeout=timeout)

    def test_image_holds_stampede_its_runtime_and_no_toolchain(self):
        r = self.run_in_image("stampede", "version")
        self.assertEqual(r.returncode, 0, r.stderr)
        host = sh([os.path.join(BUILD_DIR, "stampede"), "version"]).stdout
        self.assertRegex(r.stdout, r"^stampede \d+\.\d+\.\d+\ncommit \S+\n")
        self.assertEqual(r.stdout.splitlines()[:2], host.splitlines()[:2])
        script = ("set -e; id -u; command -v stampede mpirun orted sshd ssh; "
                  "test -f /usr/local/share/stampede/types/stampede.lua; "
                  "test -f /usr/local/share/doc/stampede/reference/lua.md; test -f /etc/ssl/certs/ca-certificates.crt; "
                  "for t in cc gcc g++ cmake make; do if command -v $t >/dev/null; then echo toolchain:$t; fi; done; "
                  "ls /etc/ssh/ssh_host_* 2>/dev/null || true; "
                  "echo $OMPI_MCA_btl_vader_single_copy_mechanism")
        r = self.run_in_image("bash", "-c", script)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        lines = r.stdout.split()
        self.assertEqual(lines[0], "1000", "runs as the image's user, not root")
        self.assertEqual(lines[1:6], ["/usr/local/bin/stampede", "/usr/bin/mpirun", "/usr/bin/orted",
                                      "/usr/sbin/sshd", "/usr/bin/ssh"])
        self.assertFalse([x for x in lines if x.startswith("toolchain:")], "the runtime image carries no compiler")
        self.assertFalse([x for x in lines if x.startswith("/etc/ssh/ssh_host_")], "no host keys baked in")
        self.assertEqual(lines[-1], "none")

    def test_demo_runs(self):
        r = self.run_in_image("stampede", "demo", "--duration", "3s", "--dashboard-listen", "127.0.0.1:0")
        self.assertEqual(r.returncode, 0, r.stdout[-3000:] + r.stderr[-3000:])
        self.assertIn("channel.join", r.stdout)
        self.assertIn("live.event", r.stdout)
        self.assertRegex(r.stdout, r"(?m)^requests: \d+ sent, \d+ completed, 0 failed")

    def scenario_dir(self):
        """The manifest's ConfigMap as files, as Kubernetes mounts it."""
        d = tempfile.mkdtemp(dir=self.top)
        for name, text in self.manifest["ConfigMap"]["data"].items():
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
        os.chmod(d, 0o755)
        return d

    def results_dir(self):
        d = tempfile.mkdtemp(dir=self.top)
        os.chown(d, 1000, 1000)
        return d

    def test_two_ranks_in_one_container(self):
        scenarios, results = self.scenario_dir(), self.results_dir()
        script = (f"stampede target --listen 127.0.0.1:{TARGET_PORT} >/dev/null 2>&1 & "
                  f"for i in $(seq 50); do (echo > /dev/tcp/127.0.0.1/{TARGET_PORT}) 2>/dev/null && break; sleep 0.1; done; "
                  f"BASE_URL=http://127.0.0.1:{TARGET_PORT} mpirun -q --mca orte_abort_on_non_zero_status 0 -np 2 "
                  "stampede run /loadtest/lobby.lua --vus 4 --duration 3s --out /results/results.json")
        r = self.run_in_image("bash", "-c", script,
                              options=["-v", f"{scenarios}:/loadtest:ro", "-v", f"{results}:/results"])
        self.assertEqual(r.returncode, 0, r.stdout[-3000:] + r.stderr[-3000:])
        self.check_results(os.path.join(results, "results.json"), ranks=2, output=r.stdout)

    def check_results(self, path, ranks, output):
        with open(path) as f:
            results = json.load(f)
        text = json.dumps(results)
        self.assertRegex(text, rf'"ranks": {ranks}\b')
        self.assertIs(results["passed"], True, output)
        joins = re.search(r"(?m)^channel\.join\s+(\d+)", output)
        self.assertIsNotNone(joins, output)
        self.assertGreaterEqual(int(joins.group(1)), 4, "every VU of every rank joined")

    def start_worker(self):
        """The manifest's worker (its sshd command, the operator's key at sshAuthMountPath,
        the ConfigMap at its mountPath, plus a /results volume) and the built-in target
        beside it, in one network namespace. Returns what a launcher needs."""
        spec = self.manifest["MPIJob"]["spec"]
        worker = spec["mpiReplicaSpecs"]["Worker"]["template"]["spec"]
        mount = worker["containers"][0]["volumeMounts"][0]["mountPath"]
        self.assertEqual(worker["volumes"][0]["configMap"]["name"], self.manifest["ConfigMap"]["metadata"]["name"])
        job = {"slots": spec["slotsPerWorker"], "ssh_path": spec["sshAuthMountPath"]}

        # The operator's Secret: a key pair, the public half authorized (it mounts it as
        # id_rsa, id_rsa.pub and authorized_keys, read-only).
        keys = job["keys"] = tempfile.mkdtemp(dir=self.top)
        r = sh(["ssh-keygen", "-q", "-t", "ecdsa", "-b", "521", "-N", "", "-f", os.path.join(keys, "id_rsa")])
        self.assertEqual(r.returncode, 0, r.stderr)
        shutil.copy(os.path.join(keys, "id_rsa.pub"), os.path.join(keys, "authorized_keys"))
        for name in os.listdir(keys) + ["."]:
            os.chown(os.path.join(keys, name), 1000, 1000)
        # The operator's hostfile, and the worker's address as the launcher resolves it.
        etc_mpi = job["etc_mpi"] = tempfile.mkdtemp(dir=self.top)
        with open(os.path.join(etc_mpi, "hostfile"), "w") as f:
            f.write(f"stampede-worker-0 slots={job['slots']}\n")
        os.chmod(etc_mpi, 0o755)
        job["hosts"] = os.path.join(etc_mpi, "hosts")
        with open(job["hosts"], "w") as f:
            f.write("127.0.0.1 localhost\n127.0.0.2 stampede-worker-0\n")
        scenarios, job["results"] = self.scenario_dir(), self.results_dir()

        name = job["worker"] = f"worker-{time.monotonic_ns()}"
        w = worker["containers"][0]
        self.store.podman("run", "-d", "--name", name, "--network", "none", "--hostname", "stampede-worker-0",
                          "--add-host", "stampede-worker-0:127.0.0.2", "-v", f"{keys}:{job['ssh_path']}:ro",
                          "-v", f"{scenarios}:{mount}:ro", "-v", f"{job['results']}:/results",
                          "--entrypoint", w["command"][0], IMAGE, *w["args"], check=True)
        self.addCleanup(self.store.podman, "rm", "--force", "--time", "0", name)
        job["target"] = f"{name}-app"
        self.store.podman("run", "-d", "--name", job["target"], "--network", f"container:{name}", IMAGE,
                          "stampede", "target", "--listen", f"127.0.0.1:{TARGET_PORT}", check=True)
        self.addCleanup(self.store.podman, "rm", "--force", "--time", "0", job["target"])
        self.wait_for_port(name, 2222)
        self.wait_for_port(name, TARGET_PORT)
        return job

    def launcher(self, job, base_url, extra_args, detach=False):
        """The manifest's launcher: its command, args (then EXTRA_ARGS) and environment, with
        what the MPI operator (v2beta1, OpenMPI) adds: hostfile, key, environment."""
        spec = self.manifest["MPIJob"]["spec"]["mpiReplicaSpecs"]["Launcher"]["template"]["spec"]
        launcher = spec["containers"][0]
        env = {"OMPI_MCA_orte_default_hostfile": "/etc/mpi/hostfile",
               "OMPI_MCA_plm_rsh_args": "-o ConnectionAttempts=10",
               "OMPI_MCA_orte_keep_fqdn_hostnames": "true",
               "OMPI_MCA_orte_set_default_slots": str(job["slots"]),
               "K_MPI_JOB_ROLE": "launcher"}
        env.update({e["name"]: e["value"] for e in launcher.get("env", [])})
        self.assertIn("BASE_URL", env)
        env["BASE_URL"] = base_url
        options = ["--network", f"container:{job['worker']}", "-v", f"{job['hosts']}:/etc/hosts:ro",
                   "-v", f"{job['etc_mpi']}:/etc/mpi:ro", "-v", f"{job['keys']}:{job['ssh_path']}:ro",
                   "--entrypoint", launcher["command"][0]]
        for k, v in env.items():
            options += ["-e", f"{k}={v}"]
        if not detach:
            return self.run_in_image(*launcher["args"], *extra_args, options=options, timeout=120)
        name = f"{job['worker']}-launcher"
        self.store.podman("run", "-d", "--name", name, *options, IMAGE,
                          *launcher["args"], *extra_args, check=True)
        self.addCleanup(self.store.podman, "rm", "--force", "--time", "0", name)
        return name

    def wait_for_port(self, container, port):
        probe = f"for i in $(seq 100); do (echo > /dev/tcp/127.0.0.1/{port}) 2>/dev/null && exit 0; sleep 0.1; done; exit 1"
        r = self.store.podman("run", "--rm", "--network", f"container:{container}", IMAGE, "bash", "-c", probe)
        self.assertEqual(r.returncode, 0, f"nothing listens on {port} in {container}")

    def sshd_log(self, job):
        return self.store.podman("logs", job["worker"]).stderr

    def test_mpijob_launcher_starts_the_ranks_on_the_worker_over_ssh(self):
        job = self.start_worker()
        r = self.launcher(job, f"http://127.0.0.1:{TARGET_PORT}",
                          ["--vus", "4", "--duration", "3s", "--out", "/results/results.json"])
        self.assertEqual(r.returncode, 0, r.stdout[-3000:] + r.stderr[-3000:] + self.sshd_log(job))
        self.assertIn("Accepted publickey for stampede", self.sshd_log(job))
        # Rank 0 ran on the worker: the file is in the worker's /results, which the launcher lacks.
        self.check_results(os.path.join(job["results"], "results.json"), ranks=job["slots"], output=r.stdout)

    def test_mpijob_that_fails_a_threshold_fails_the_launcher(self):
        job = self.start_worker()
        # Nothing listens there: connections are refused and the manifest's thresholds fail.
        r = self.launcher(job, "http://127.0.0.1:9", ["--vus", "2", "--duration", "2s"])
        self.assertEqual(r.returncode, 1, r.stdout[-3000:] + r.stderr[-3000:] + self.sshd_log(job))
        self.assertRegex(r.stdout, r"(?m)^fail ws\.connect\.errors count")

    def test_mpijob_stops_on_sigusr1_to_the_launcher(self):
        """The guide's early stop: `kubectl exec ... -- bash -c 'kill -USR1 1'` (mpirun is
        process 1 of the launcher), which mpirun passes on and rank 0 takes as a Ctrl-C."""
        job = self.start_worker()
        name = self.launcher(job, f"http://127.0.0.1:{TARGET_PORT}", ["--vus", "4", "--duration", "60s"],
                             detach=True)
        # Stop once every VU joined (the target counts the joins it served).
        ask = (f"exec 3<>/dev/tcp/127.0.0.1/{TARGET_PORT}; "
               "printf 'GET /__channels HTTP/1.0\r\n\r\n' >&3; cat <&3")
        joins = 0
        deadline = time.monotonic() + 60
        while joins < 4 and time.monotonic() < deadline:
            out = self.store.podman("exec", job["target"], "bash", "-c", ask).stdout
            m = re.search(r'"joins":(\d+)', out)
            joins = int(m.group(1)) if m else 0
            if joins < 4:
                time.sleep(0.2)
        self.assertGreaterEqual(joins, 4, "the VUs never joined")
        stopped = time.monotonic()
        self.store.podman("exec", name, "bash", "-c", "kill -USR1 1", check=True)
        r = self.store.podman("wait", name, timeout=90)
        self.assertEqual(r.stdout.strip(), "0", self.store.podman("logs", name).stdout[-3000:])
        self.assertLess(time.monotonic() - stopped, 45, "it stopped early, not at the end of its 60 s")
        out = self.store.podman("logs", name).stdout
        self.assertRegex(out, r"(?m)^pass channel\.join\.errors count")
        joined = re.search(r"(?m)^channel\.join\s+(\d+)", out)
        self.assertIsNotNone(joined, out)
        self.assertGreaterEqual(int(joined.group(1)), 4)


if __name__ == "__main__":
    unittest.main(verbosity=2)
