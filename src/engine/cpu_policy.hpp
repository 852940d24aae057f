#pragma once
// How the worker threads use their CPUs (`--cpu-policy`). `normal` is Linux's default
// policy. `batch` (SCHED_BATCH) tells the scheduler the workers are throughput work: a
// worker that wakes up does not preempt the thread running on that CPU, it waits for that
// thread's slice to end or for it to sleep. When the server under test shares the machine
// (a local Phoenix app, the built-in target), the server's wake-ups then come first and the
// two stop preempting each other on every request: more requests per CPU, at the price of
// up to a slice of lateness for the generator, which `iteration.lag` measures
// (docs/design/027-cpu-policy-batch.md). `poll`: each worker polls its event loop instead
// of sleeping while it has work at least every IdlePoll::kDefaultBudget, so it holds a core
// while busy; by default one worker fewer than the cores then runs, leaving one for the
// server and the main thread (docs/design/029-cpu-policy-poll.md). `adaptive`: a worker
// sleeps like `normal`, and polls like `poll` only while its own work takes most of its core
// (PollGate, docs/design/054); the default on two cores and more. No privileges needed.
#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace stampede::engine {

enum class CpuPolicy { normal, batch, poll, adaptive };

// Every policy by its name, in the enum's order: the option's accepted values come from here.
inline constexpr std::array<std::string_view, 4> kCpuPolicyNames = {"normal", "batch", "poll", "adaptive"};

std::optional<CpuPolicy> parse_cpu_policy(std::string_view text);
std::string_view cpu_policy_name(CpuPolicy policy);
// Whether a worker under `policy` may poll its loop (its empty polls are then not work).
bool may_poll(CpuPolicy policy);

// Worker threads when --threads is not given: one per core (`cores`, 0: unknown, as
// std::thread::hardware_concurrency says it), one fewer under `poll` and `adaptive` (at least
// one).
int default_worker_threads(CpuPolicy policy, unsigned cores);
// `--threads` as asked (`requested` > 0), or default_worker_threads for this machine's cores.
int worker_threads(int requested, CpuPolicy policy);

// Applies `policy` to the calling thread. Returns "" or why the kernel refused.
std::string apply_cpu_policy(CpuPolicy policy);

// Whether a thread of this process may take `policy`: tried on a short-lived thread of its
// own, so the caller's thread keeps its policy. Returns "" or why not (a seccomp filter or
// a kernel without it), for a usage error before the run.
std::string cpu_policy_unavailable(CpuPolicy policy);

}  // namespace stampede::engine
