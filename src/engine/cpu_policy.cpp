#include "engine/cpu_policy.hpp"

#include <pthread.h>
#include <sched.h>

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

std::string apply_cpu_policy(CpuPolicy policy) {
  sched_param param{};
  param.sched_priority = 0;  // the only priority SCHED_OTHER and SCHED_BATCH have
  const int native = policy == CpuPolicy::batch ? SCHED_BATCH : SCHED_OTHER;
  const int rc = pthread_setschedparam(pthread_self(), native, &param);
  return rc == 0 ? std::string() : std::string(std::strerror(rc));
}

std::string cpu_policy_unavailable(CpuPolicy policy) {
  if (policy == CpuPolicy::normal) return {};  // every thread starts with it
  std::string error;
  std::thread probe([&error, policy] { error = apply_cpu_policy(policy); });
  probe.join();
  return error;
}

}  // namespace stampede::engine
