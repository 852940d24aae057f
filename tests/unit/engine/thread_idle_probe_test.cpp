// The probe that tells a worker short of CPU (its loop is hardly ever idle) from one short of
// VUs (its loop waits for replies).
#include "engine/thread_idle_probe.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>

namespace stampede::engine {
namespace {

TEST(ThreadIdleProbe, TheShareIsWhatWasNeitherRunningNorWaitingToRun) {
  EXPECT_DOUBLE_EQ(ThreadIdleProbe::idle_share(4 * kMilli, kMilli), 0.75);
  EXPECT_DOUBLE_EQ(ThreadIdleProbe::idle_share(4 * kMilli, 0), 1.0);
  EXPECT_DOUBLE_EQ(ThreadIdleProbe::idle_share(4 * kMilli, 5 * kMilli), 0.0);  // clock granularity
  EXPECT_DOUBLE_EQ(ThreadIdleProbe::idle_share(0, kMilli), 1.0);
}

TEST(ThreadIdleProbe, ASleepingThreadIsIdleAndASpinningOneIsNot) {
  ThreadIdleProbe probe;
  EXPECT_DOUBLE_EQ(probe.idle_share_since_last_ask(SteadyClock::monotonic_now()), 1.0);  // the reference
  // The sleep is what is measured (a sleeping thread is what "idle" means), not a wait for
  // something else to happen.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_GT(probe.idle_share_since_last_ask(SteadyClock::monotonic_now()), 0.5);
  // Spinning for 20 ms: on a CPU, or waiting for one when the machine is busy; never idle. Time
  // the hypervisor steals (or the kernel spends in interrupts) counts as neither, so one window
  // on a noisy VM read 0.30 in CI; the least of five windows is what the thread itself did.
  double least = 1.0;
  for (int window = 0; window < 5; ++window) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(20);
    volatile unsigned spins = 0;
    while (std::chrono::steady_clock::now() < until) spins = spins + 1;
    least = std::min(least, probe.idle_share_since_last_ask(SteadyClock::monotonic_now()));
  }
  EXPECT_LT(least, 0.2);
}

// Under --cpu-policy poll the worker is on its CPU while it polls with nothing to do: that
// time counts as idle, as the sleep it replaces would.
TEST(ThreadIdleProbe, APollingThreadsEmptyPollsAreIdle) {
  IdlePoll polling(kMilli);
  ThreadIdleProbe probe(&polling);
  probe.idle_share_since_last_ask(SteadyClock::monotonic_now());  // the reference
  // 20 ms of polls that find nothing, reported to the IdlePoll as the worker's loop does.
  const Nanos began = SteadyClock::monotonic_now();
  EXPECT_FALSE(polling.polled(began, 0));
  volatile unsigned spins = 0;
  while (SteadyClock::monotonic_now() < began + 20 * kMilli) spins = spins + 1;
  EXPECT_FALSE(polling.polled(SteadyClock::monotonic_now(), 1));  // the streak ends: ~20 ms counted
  ASSERT_GE(polling.idle_polled(), 20 * kMilli);
  // Without the IdlePoll the same 20 ms read as busy (ASleepingThreadIsIdleAndASpinningOneIsNot).
  EXPECT_GT(probe.idle_share_since_last_ask(SteadyClock::monotonic_now()), 0.5) << "the empty polls were idle";
}

}  // namespace
}  // namespace stampede::engine
