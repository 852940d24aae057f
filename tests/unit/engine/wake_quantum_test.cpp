#include "engine/wake_quantum.hpp"

#include <gtest/gtest.h>

#include "engine/arrival_pacer.hpp"

namespace stampede::engine {
namespace {

TEST(WakeQuantum, StartsPreciseAndSamplesAtOnce) {
  WakeQuantum q;
  EXPECT_EQ(q.quantum(), WakeQuantum::kPrecise);
  EXPECT_EQ(WakeQuantum::kPrecise, ArrivalPacer::kDefaultQuantum);
  EXPECT_TRUE(q.sample_due(0));
}

TEST(WakeQuantum, AWorkerShortOfCpuWakesHalfAsOften) {
  WakeQuantum q;
  EXPECT_EQ(q.sample(0, 0.3), WakeQuantum::kFrugal);
  EXPECT_EQ(q.quantum(), 2 * WakeQuantum::kPrecise);
}

TEST(WakeQuantum, BetweenTheThresholdsItKeepsWhatItHad) {
  WakeQuantum q;
  const Nanos every = WakeQuantum::kSampleEvery;
  EXPECT_EQ(q.sample(0, 0.6), WakeQuantum::kPrecise);  // not short enough to change
  EXPECT_EQ(q.sample(every, 0.4), WakeQuantum::kFrugal);
  // What the longer quantum saved shows as idle time: not enough to flip it back.
  EXPECT_EQ(q.sample(2 * every, 0.6), WakeQuantum::kFrugal);
  EXPECT_EQ(q.sample(3 * every, 0.75), WakeQuantum::kPrecise);
  EXPECT_EQ(q.sample(4 * every, 0.55), WakeQuantum::kPrecise);
}

TEST(WakeQuantum, AnIdleWorkerOrOneThatCannotTellIsPrecise) {
  WakeQuantum q;
  q.sample(0, 0.1);
  // ThreadIdleProbe answers 1 where the kernel has no schedstat.
  EXPECT_EQ(q.sample(WakeQuantum::kSampleEvery, 1.0), WakeQuantum::kPrecise);
}

TEST(WakeQuantum, SamplesOncePerPeriod) {
  WakeQuantum q;
  q.sample(5 * kMilli, 0.9);
  EXPECT_FALSE(q.sample_due(5 * kMilli + WakeQuantum::kSampleEvery - 1));
  EXPECT_TRUE(q.sample_due(5 * kMilli + WakeQuantum::kSampleEvery));
}

TEST(WakeQuantum, APollingWorkerIsPreciseToItsOwnQuantumAndAsFrugalWhenShort) {
  WakeQuantum q(ArrivalPacer::kPollingQuantum);
  EXPECT_EQ(q.quantum(), ArrivalPacer::kPollingQuantum);
  EXPECT_EQ(q.sample(0, 0.3), WakeQuantum::kFrugal);
  EXPECT_EQ(q.sample(WakeQuantum::kSampleEvery, 0.9), ArrivalPacer::kPollingQuantum);
}

}  // namespace
}  // namespace stampede::engine
