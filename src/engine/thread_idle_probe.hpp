#pragma once
// How much of the time since the last ask the calling thread was idle: neither running nor
// waiting on a run queue for a CPU (so: its event loop blocked in epoll_wait with nothing to
// do). A worker behind its schedule with almost no idle time is short of CPU, not of VUs:
// more VUs would only add connections for it to serve (docs/design/020). Being preempted
// (the target or the other worker on the same cores) counts as busy, not idle.
//
// A worker under --cpu-policy poll is on its CPU even when it has nothing to do: its time
// in empty polls (IdlePoll) counts as idle here, as the sleep it replaces would.
//
// Reads /proc/thread-self/schedstat (time on a CPU and time waiting for one, in ns). Where
// the kernel does not provide it, every ask answers 1 (all idle): the budget then behaves as
// if it could not tell, as it did before it asked.
#include <cstdint>

#include "common/clock.hpp"
#include "engine/idle_poll.hpp"
#include "engine/idle_probe.hpp"

namespace stampede::engine {

class ThreadIdleProbe final : public IdleProbe {
 public:
  // `polling`: the watched thread's IdlePoll when it polls its loop (null: it sleeps).
  explicit ThreadIdleProbe(const IdlePoll* polling = nullptr) : polling_(polling) {}
  ThreadIdleProbe(const ThreadIdleProbe&) = delete;
  ThreadIdleProbe& operator=(const ThreadIdleProbe&) = delete;
  ~ThreadIdleProbe() override;

  // Must be asked on the thread it watches: the first ask opens that thread's file (and
  // answers 1: there is nothing to compare yet). `now` is on the monotonic clock.
  double idle_share_since_last_ask(Nanos now) override;

  // The share of `wall` that was neither on a CPU nor waiting for one, in [0, 1].
  static double idle_share(Nanos wall, std::uint64_t busy);

 private:
  int fd_ = -2;  // -2: not opened yet; -1: unavailable
  Nanos last_at_ = 0;
  std::uint64_t last_busy_ = 0;
  const IdlePoll* polling_;
  Nanos last_polled_ = 0;
};

}  // namespace stampede::engine
