#include "engine/wake_quantum.hpp"

#include <gtest/gtest.h>

#include "engine/arrival_pacer.hpp"

namespace stampede::engine {
namespace {

// Arrivals 20 µs apart (50,000/s on this worker): too dense for the fine quantum.
constexpr Nanos kDense = 20 * kMicro;
// 200 µs apart (5,000/s): each can have a wake-up of its own.
constexpr Nanos kSparse = 200 * kMicro;

TEST(WakeQuantum, StartsPreciseAndSamplesAtOnce) {
  WakeQuantum q;
  EXPECT_EQ(q.quantum(), WakeQuantum::kPrecise);
  EXPECT_EQ(WakeQuantum::kPrecise, ArrivalPacer::kDefaultQuantum);
  EXPECT_TRUE(q.sample_due(0));
}

TEST(WakeQuantum, AWorkerShortOfCpuWakesHalfAsOften) {
  WakeQuantum q;
  EXPECT_EQ(q.sample(0, 0.3, kDense), WakeQuantum::kFrugal);
  EXPECT_EQ(q.quantum(), 2 * WakeQuantum::kPrecise);
}

TEST(WakeQuantum, BetweenTheThresholdsItKeepsWhatItHad) {
  WakeQuantum q;
  const Nanos every = WakeQuantum::kSampleEvery;
  EXPECT_EQ(q.sample(0, 0.6, kDense), WakeQuantum::kPrecise);  // not short enough to change
  EXPECT_EQ(q.sample(every, 0.4, kDense), WakeQuantum::kFrugal);
  // What the longer quantum saved shows as idle time: not enough to flip it back.
  EXPECT_EQ(q.sample(2 * every, 0.6, kDense), WakeQuantum::kFrugal);
  EXPECT_EQ(q.sample(3 * every, 0.75, kDense), WakeQuantum::kPrecise);
  EXPECT_EQ(q.sample(4 * every, 0.55, kDense), WakeQuantum::kPrecise);
}

TEST(WakeQuantum, AnIdleWorkerOrOneThatCannotTellIsPrecise) {
  WakeQuantum q;
  q.sample(0, 0.1, kDense);
  // ThreadIdleProbe answers 1 where the kernel has no schedstat.
  EXPECT_EQ(q.sample(WakeQuantum::kSampleEvery, 1.0, kDense), WakeQuantum::kPrecise);
}

TEST(WakeQuantum, SparseArrivalsOnAnIdleWorkerEachWakeOnTime) {
  WakeQuantum q;
  const Nanos every = WakeQuantum::kSampleEvery;
  EXPECT_EQ(q.sample(0, 0.9, kSparse), WakeQuantum::kFine);
  EXPECT_EQ(WakeQuantum::kFine, 100 * kMicro);  // at most 10,000 wake-ups a second
  // What the wake-ups cost shows as busy time: ~0.15 of a core at 10,000/s. Not enough to
  // call the worker short...
  EXPECT_EQ(q.sample(every, 0.5, kSparse), WakeQuantum::kFine);
  // ...less than kFineDownBelow is: one level back, then on to frugal if still short.
  EXPECT_EQ(q.sample(2 * every, 0.3, kSparse), WakeQuantum::kPrecise);
  EXPECT_EQ(q.sample(3 * every, 0.4, kSparse), WakeQuantum::kFrugal);
  EXPECT_EQ(q.sample(4 * every, 0.8, kSparse), WakeQuantum::kPrecise);  // one level a sample
  EXPECT_EQ(q.sample(5 * every, 0.8, kSparse), WakeQuantum::kFine);
}

TEST(WakeQuantum, FineNeedsSparseArrivalsAndRoomForItsWakeUps) {
  WakeQuantum q;
  const Nanos every = WakeQuantum::kSampleEvery;
  EXPECT_EQ(q.sample(0, 0.9, kDense), WakeQuantum::kPrecise);  // dense: fine would only wake more often
  EXPECT_EQ(q.sample(every, 0.55, kSparse), WakeQuantum::kPrecise);  // sparse, but no room
  EXPECT_EQ(q.sample(2 * every, 0.65, WakeQuantum::kFine), WakeQuantum::kFine);  // exactly 10,000/s
  EXPECT_EQ(q.sample(3 * every, 0.65, kDense), WakeQuantum::kPrecise);  // the rate went up
  EXPECT_EQ(q.sample(4 * every, 0.65, ArrivalPacer::kNoSpacing), WakeQuantum::kFine);
}

TEST(WakeQuantum, SamplesOncePerPeriod) {
  WakeQuantum q;
  q.sample(5 * kMilli, 0.9, kDense);
  EXPECT_FALSE(q.sample_due(5 * kMilli + WakeQuantum::kSampleEvery - 1));
  EXPECT_TRUE(q.sample_due(5 * kMilli + WakeQuantum::kSampleEvery));
}

}  // namespace
}  // namespace stampede::engine
