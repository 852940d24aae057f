// When an adaptive worker polls its loop and when it sleeps (PollGate), on a simulated clock:
// the worker's CPU time and empty polls are fed in as a worker of a given busyness would
// accumulate them.
#include "engine/poll_gate.hpp"

#include <gtest/gtest.h>

namespace stampede::engine {
namespace {

constexpr Nanos kStep = PollGate::kSampleEvery;

// A worker whose samples come every 100 ms; `work` of each sample's time is work, and while
// it polls, `empty` more is spent in empty polls (on the CPU, not work).
struct SimulatedWorker {
  PollGate gate;
  Nanos now = 5 * kSecond;  // any start: the first sample only starts the count
  Nanos cpu = 0;
  Nanos idle_polled = 0;

  SimulatedWorker() { gate.sample(now, cpu, idle_polled); }

  bool run_for(Nanos span, double work, double empty = 0.0) {
    for (Nanos end = now + span; now < end;) {
      now += kStep;
      cpu += static_cast<Nanos>(work * static_cast<double>(kStep));
      if (gate.polling()) {
        const auto polled = static_cast<Nanos>(empty * static_cast<double>(kStep));
        cpu += polled;
        idle_polled += polled;
      }
      gate.sample(now, cpu, idle_polled);
    }
    return gate.polling();
  }
};

TEST(PollGate, AWorkerDoingHalfACoreOfWorkNeverPolls) {
  SimulatedWorker w;
  EXPECT_FALSE(w.run_for(60 * kSecond, 0.5)) << "10,000/s with a wake-up per arrival: half a core, left to the server";
  EXPECT_EQ(w.gate.switches(), 0);
  EXPECT_EQ(w.gate.polled_for(), 0);
}

TEST(PollGate, AWorkerBusyMostOfItsCorePollsAfterThreeSamplesInARow) {
  SimulatedWorker w;
  EXPECT_FALSE(w.run_for(2 * kStep, 0.8));
  EXPECT_TRUE(w.run_for(kStep, 0.8)) << "300 ms of samples at 0.8: poll";
  EXPECT_EQ(w.gate.switches(), 1);
  EXPECT_TRUE(w.run_for(10 * kSecond, 0.7, 0.3)) << "its empty polls are not work: it stays";
  EXPECT_EQ(w.gate.polled_for(), 10 * kSecond);
}

TEST(PollGate, ABusyMomentDoesNotStartPolling) {
  SimulatedWorker w;
  for (int i = 0; i < 50; ++i) {
    EXPECT_FALSE(w.run_for(2 * kStep, 0.95)) << "two busy samples (a run's opening, every VU connecting)";
    EXPECT_FALSE(w.run_for(kStep, 0.3));
  }
  EXPECT_EQ(w.gate.switches(), 0);
}

TEST(PollGate, WorkBetweenTheThresholdsKeepsWhicheverChoiceIsMade) {
  SimulatedWorker sleeping;
  EXPECT_FALSE(sleeping.run_for(30 * kSecond, 0.55));
  SimulatedWorker polling;
  EXPECT_TRUE(polling.run_for(kSecond, 0.9));
  EXPECT_TRUE(polling.run_for(30 * kSecond, 0.55, 0.45)) << "the CPU a poll saves does not flip it back";
  EXPECT_EQ(polling.gate.switches(), 1);
}

TEST(PollGate, APollingWorkerSleepsAgainAfterASecondOfLittleWork) {
  SimulatedWorker w;
  EXPECT_TRUE(w.run_for(kSecond, 0.9));
  EXPECT_TRUE(w.run_for(kSecond - kStep, 0.2, 0.8));
  EXPECT_TRUE(w.run_for(kStep, 0.6, 0.4)) << "one busier sample restarts the count";
  EXPECT_TRUE(w.run_for(kSecond - kStep, 0.2, 0.8));
  EXPECT_FALSE(w.run_for(kStep, 0.2, 0.8)) << "a second in a row below 0.45: sleep";
  EXPECT_EQ(w.gate.switches(), 2);
  const Nanos polled = w.gate.polled_for();
  EXPECT_EQ(polled, 3 * kSecond - 3 * kStep) << "from the sample that turned it on to the one that turned it off";
  EXPECT_FALSE(w.run_for(10 * kSecond, 0.1));
  EXPECT_EQ(w.gate.polled_for(), polled);
}

TEST(PollGate, SamplesAreDueEveryHundredMillisecondsAndLongerGapsCountInFull) {
  PollGate gate;
  gate.sample(0, 0, 0);
  EXPECT_FALSE(gate.sample_due(kStep - 1));
  EXPECT_TRUE(gate.sample_due(kStep));
  // A loop that slept 2 s in one run_one() (nothing to do) samples once: 2 s of no work.
  gate.sample(2 * kSecond, 0, 0);
  EXPECT_FALSE(gate.polling());
  // One long busy sample is a streak of its whole length.
  EXPECT_TRUE(gate.sample(2 * kSecond + PollGate::kPollAfter, PollGate::kPollAfter, 0));
}

TEST(PollGate, TheFirstSampleOnlyStartsTheCount) {
  PollGate gate;
  EXPECT_FALSE(gate.sample(10 * kSecond, 10 * kSecond, 0)) << "CPU time from before the load is not this sample's";
  EXPECT_FALSE(gate.sample(10 * kSecond + kStep, 10 * kSecond, 0));
  EXPECT_EQ(gate.switches(), 0);
}

}  // namespace
}  // namespace stampede::engine
