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

TEST(WakeQuantum, SparseArrivalsEachWakeOnTimeHoweverBusyTheWorker) {
  WakeQuantum q;
  const Nanos every = WakeQuantum::kSampleEvery;
  EXPECT_EQ(WakeQuantum::kFine, 100 * kMicro);  // at most 10,000 wake-ups a second
  EXPECT_EQ(q.sample(0, 0.9, kSparse), WakeQuantum::kFine);
  // Short of CPU or not: what frugal would save at 10,000/s or less is a few thousand
  // wake-ups, and it would cost every arrival up to half a millisecond.
  EXPECT_EQ(q.sample(every, 0.2, kSparse), WakeQuantum::kFine);
  EXPECT_EQ(q.sample(2 * every, 0.6, WakeQuantum::kFine), WakeQuantum::kFine);  // exactly 10,000/s
  EXPECT_EQ(q.sample(3 * every, 0.6, ArrivalPacer::kNoSpacing), WakeQuantum::kFine);
}

TEST(WakeQuantum, WhenArrivalsGetDenserTheIdleShareDecidesAgain) {
  WakeQuantum q;
  const Nanos every = WakeQuantum::kSampleEvery;
  q.sample(0, 0.9, kSparse);
  EXPECT_EQ(q.sample(every, 0.6, kDense), WakeQuantum::kPrecise);  // between the thresholds
  q.sample(2 * every, 0.9, kSparse);
  EXPECT_EQ(q.sample(3 * every, 0.4, kDense), WakeQuantum::kFrugal);
  EXPECT_EQ(q.sample(4 * every, 0.6, WakeQuantum::kFine - 1), WakeQuantum::kFrugal);
}

TEST(WakeQuantum, SamplesOncePerPeriod) {
  WakeQuantum q;
  q.sample(5 * kMilli, 0.9, kDense);
  EXPECT_FALSE(q.sample_due(5 * kMilli + WakeQuantum::kSampleEvery - 1));
  EXPECT_TRUE(q.sample_due(5 * kMilli + WakeQuantum::kSampleEvery));
}

}  // namespace
}  // namespace stampede::engine
