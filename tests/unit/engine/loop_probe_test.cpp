// The loop probe's first due time: on the worker's grid, 100 ms points past its phase, so
// that it shares a wake-up with the heartbeats (clients::coarse_deadline with that phase).
#include "engine/loop_probe.hpp"

#include <gtest/gtest.h>

#include "clients/worker_timers.hpp"

namespace stampede::engine {
namespace {

TEST(LoopProbe, FirstDueIsTheNextGridPointPastThePhase) {
  EXPECT_EQ(LoopProbe::first_due(0), 0);
  EXPECT_EQ(LoopProbe::first_due(1), 100 * kMilli);
  EXPECT_EQ(LoopProbe::first_due(250 * kMilli), 300 * kMilli);
  constexpr Nanos kPhase = 25 * kMilli;
  EXPECT_EQ(LoopProbe::first_due(250 * kMilli, kPhase), 325 * kMilli);
  EXPECT_EQ(LoopProbe::first_due(325 * kMilli, kPhase), 325 * kMilli);
  EXPECT_EQ(LoopProbe::first_due(326 * kMilli, kPhase), 425 * kMilli);
}

TEST(LoopProbe, FallsOnTheSamePointsAsTheWorkersHeartbeats) {
  const Nanos phase = clients::grid_phase(7, 56);
  const Nanos probe = LoopProbe::first_due(12 * kSecond + 3 * kMilli, phase);
  // A heartbeat armed 30 s before some probe falls on a probe's point.
  const Nanos heartbeat = clients::coarse_deadline(probe - 30 * kSecond - 40 * kMilli, 30 * kSecond, phase);
  EXPECT_EQ((heartbeat - probe) % LoopProbe::kPeriod, 0);
  EXPECT_EQ(heartbeat, probe);
}

}  // namespace
}  // namespace stampede::engine
