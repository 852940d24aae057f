// When a worker under --cpu-policy poll stops polling and sleeps, and what it counts as its
// time in empty polls (taken out of its CPU time by the monitor and the idle probe).
#include "engine/idle_poll.hpp"

#include <gtest/gtest.h>

namespace stampede::engine {
namespace {

constexpr Nanos kBudget = 200 * kMicro;  // shorter than the default: the arithmetic is the same

TEST(IdlePoll, ALoopWithWorkAtEveryPollNeverSleepsAndIsNeverIdle) {
  IdlePoll poll(kBudget);
  for (Nanos t = 0; t < 10 * kMilli; t += 50 * kMicro) EXPECT_FALSE(poll.polled(t, 3));
  EXPECT_EQ(poll.idle_polled(), 0);
}

TEST(IdlePoll, EmptyPollsShorterThanTheBudgetKeepPollingAndCountAsIdle) {
  IdlePoll poll(kBudget);
  EXPECT_FALSE(poll.polled(0, 1));
  // Nothing from 10 µs to 150 µs, then a reply: the streak is 10 -> 150.
  for (Nanos t = 10 * kMicro; t < 150 * kMicro; t += kMicro) EXPECT_FALSE(poll.polled(t, 0));
  EXPECT_EQ(poll.idle_polled(), 0) << "a streak still going is not counted yet";
  EXPECT_FALSE(poll.polled(150 * kMicro, 2));
  EXPECT_EQ(poll.idle_polled(), 140 * kMicro);
  // A second streak adds to the first.
  EXPECT_FALSE(poll.polled(160 * kMicro, 0));
  EXPECT_FALSE(poll.polled(170 * kMicro, 0));
  EXPECT_FALSE(poll.polled(180 * kMicro, 1));
  EXPECT_EQ(poll.idle_polled(), 160 * kMicro);
}

TEST(IdlePoll, ABudgetOfEmptyPollsSleepsAndTheNextStreakStartsAfresh) {
  IdlePoll poll(kBudget);
  EXPECT_FALSE(poll.polled(0, 0));  // the streak starts
  EXPECT_FALSE(poll.polled(199 * kMicro, 0));
  EXPECT_TRUE(poll.polled(200 * kMicro, 0)) << "200 µs of empty polls: block until the next event";
  EXPECT_EQ(poll.idle_polled(), 200 * kMicro) << "counted up to the sleep, not through it";
  // Woken 3 ms later by an event (run_one ran it); the polls after it find nothing again.
  EXPECT_FALSE(poll.polled(3 * kMilli, 0));
  EXPECT_FALSE(poll.polled(3 * kMilli + 100 * kMicro, 0)) << "a new streak: its own budget";
  EXPECT_TRUE(poll.polled(3 * kMilli + 200 * kMicro, 0));
  EXPECT_EQ(poll.idle_polled(), 400 * kMicro);
}

TEST(IdlePoll, OnePollWithWorkResetsTheBudget) {
  IdlePoll poll(kBudget);
  EXPECT_FALSE(poll.polled(0, 0));
  EXPECT_FALSE(poll.polled(190 * kMicro, 0));
  EXPECT_FALSE(poll.polled(195 * kMicro, 1));
  EXPECT_FALSE(poll.polled(200 * kMicro, 0));
  EXPECT_FALSE(poll.polled(390 * kMicro, 0)) << "190 µs since the streak began at 200";
  EXPECT_TRUE(poll.polled(400 * kMicro, 0));
}

TEST(IdlePoll, ALoopThatStopsPollingEndsItsStreakAndItsSleepIsNotCounted) {
  // An adaptive worker (PollGate) goes back to sleeping in the middle of a streak, sleeps
  // for 2 s, then polls again: only the 50 µs of empty polls before the switch count.
  IdlePoll poll(kBudget);
  EXPECT_FALSE(poll.polled(0, 1));
  EXPECT_FALSE(poll.polled(10 * kMicro, 0));
  EXPECT_FALSE(poll.polled(60 * kMicro, 0));
  poll.stopped(60 * kMicro);
  EXPECT_EQ(poll.idle_polled(), 50 * kMicro);
  EXPECT_FALSE(poll.polled(2 * kSecond, 0)) << "a new streak, not 2 s of empty polls";
  EXPECT_FALSE(poll.polled(2 * kSecond + 10 * kMicro, 3));
  EXPECT_EQ(poll.idle_polled(), 60 * kMicro);
  poll.stopped(2 * kSecond + 20 * kMicro);
  EXPECT_EQ(poll.idle_polled(), 60 * kMicro) << "no streak going: nothing to end";
}

}  // namespace
}  // namespace stampede::engine
