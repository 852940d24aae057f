#pragma once
// A thread's CPU time (user and system), ns: the generator monitor reads each worker's from
// its thread, a worker reads its own for PollGate.
#include <time.h>

#include "common/clock.hpp"

namespace stampede::engine {

// On `clock` (pthread_getcpuclockid, or CLOCK_THREAD_CPUTIME_ID); -1 once the thread has exited.
inline Nanos cpu_time(clockid_t clock) {
  timespec ts{};
  if (clock_gettime(clock, &ts) != 0) return -1;
  return static_cast<Nanos>(ts.tv_sec) * kSecond + ts.tv_nsec;
}

// The calling thread's.
inline Nanos thread_cpu_time() { return cpu_time(CLOCK_THREAD_CPUTIME_ID); }

}  // namespace stampede::engine
