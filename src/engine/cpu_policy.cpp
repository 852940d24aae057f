#include "engine/cpu_policy.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <cstring>
#include <thread>

namespace stampede::engine {

std::optional<CpuPolicy> parse_cpu_policy(std::string_view text) {
  for (std::size_t i = 0; i < kCpuPolicyNames.size(); ++i) {
    if (text == kCpuPolicyNames[i]) return static_cast<CpuPolicy>(i);
  }
  return std::nullopt;
}

std::string_view cpu_policy_name(CpuPolicy policy) { return kCpuPolicyNames.at(static_cast<std::size_t>(policy)); }

bool may_poll(CpuPolicy policy) { return policy == CpuPolicy::poll || policy == CpuPolicy::adaptive; }

int default_worker_threads(CpuPolicy policy, unsigned cores) {
  const int n = static_cast<int>(std::max(1u, cores));
  // A polling worker keeps its core while busy: leave one to the server and the main thread.
  return may_poll(policy) ? std::max(1, n - 1) : n;
}

int worker_threads(int requested, CpuPolicy policy) {
  return requested > 0 ? requested : default_worker_threads(policy, std::thread::hardware_concurrency());
}

std::string apply_cpu_policy(CpuPolicy policy) {
  sched_param param{};
  param.sched_priority = 0;  // the only priority SCHED_OTHER and SCHED_BATCH have
  // `poll` and `adaptive` are about the loop (Worker::run_loop), not the kernel: the default
  // policy.
  const int native = policy == CpuPolicy::batch ? SCHED_BATCH : SCHED_OTHER;
  const int rc = pthread_setschedparam(pthread_self(), native, &param);
  return rc == 0 ? std::string() : std::string(std::strerror(rc));
}

std::string cpu_policy_unavailable(CpuPolicy policy) {
  if (policy != CpuPolicy::batch) return {};  // every thread starts with SCHED_OTHER
  std::string error;
  std::thread probe([&error, policy] { error = apply_cpu_policy(policy); });
  probe.join();
  return error;
}

}  // namespace stampede::engine
