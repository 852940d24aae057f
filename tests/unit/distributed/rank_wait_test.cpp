#include "distributed/rank_wait.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace stampede::distributed {
namespace {

// Times are a simulated clock: nanoseconds from an arbitrary origin.
constexpr Nanos kStart = 1'000 * kSecond;

TEST(AnswerWait, NobodyIsOverdueBeforeTheTimeout) {
  AnswerWait wait({1, 2, 3}, kStart, 2 * kSecond);
  EXPECT_FALSE(wait.complete());
  EXPECT_TRUE(wait.overdue(kStart).empty());
  EXPECT_TRUE(wait.overdue(kStart + 2 * kSecond).empty());  // exactly the timeout: still in time
}

TEST(AnswerWait, TheRanksThatDidNotAnswerAreOverdueAfterIt) {
  AnswerWait wait({1, 2, 3}, kStart, 2 * kSecond);
  wait.answered(2);
  EXPECT_EQ(wait.overdue(kStart + 2 * kSecond + 1), (std::vector<int>{1, 3}));
  wait.answered(1);
  wait.answered(3);
  EXPECT_TRUE(wait.complete());
  EXPECT_TRUE(wait.overdue(kStart + 60 * kSecond).empty());
}

TEST(AnswerWait, AnsweringTwiceOrAnUnawaitedRankChangesNothing) {
  AnswerWait wait({1, 2}, kStart, kSecond);
  wait.answered(1);
  wait.answered(1);
  wait.answered(7);
  EXPECT_EQ(wait.awaited(), (std::vector<int>{2}));
}

TEST(AnswerWait, NoTimeoutMeansNoBound) {
  AnswerWait wait({1}, kStart, 0);
  EXPECT_TRUE(wait.overdue(kStart + 3600 * kSecond).empty());
}

TEST(Liveness, NoBoundBeforeRank0sFirstBeat) {
  Liveness rank0;
  rank0.started(kStart);
  EXPECT_FALSE(rank0.presumed_dead(kStart + 3600 * kSecond));
}

TEST(Liveness, BeatsKeepRank0AliveForLongerThanItsTimeout) {
  // A setup() of 30 s with a 2 s timeout: rank 0 beats every 0.5 s, the wait goes on.
  Liveness rank0;
  rank0.started(kStart);
  for (Nanos t = kStart; t <= kStart + 30 * kSecond; t += beat_interval(2 * kSecond)) {
    rank0.beat(t, 2 * kSecond);
    EXPECT_FALSE(rank0.presumed_dead(t + kSecond));
  }
}

TEST(Liveness, SilenceLongerThanTheTimeoutMeansDead) {
  Liveness rank0;
  rank0.started(kStart);
  rank0.beat(kStart + kSecond, 2 * kSecond);
  EXPECT_FALSE(rank0.presumed_dead(kStart + 3 * kSecond));
  EXPECT_TRUE(rank0.presumed_dead(kStart + 3 * kSecond + 1));
  EXPECT_EQ(rank0.silence(kStart + 4 * kSecond), 3 * kSecond);
}

TEST(Liveness, SilenceIsCountedFromTheWaitsStartAtTheEarliest) {
  // The last beat was taken in long ago (before this rank's run); a new wait starts afresh.
  Liveness rank0;
  rank0.beat(kStart, 2 * kSecond);
  rank0.started(kStart + 60 * kSecond);
  EXPECT_FALSE(rank0.presumed_dead(kStart + 61 * kSecond));
  EXPECT_TRUE(rank0.presumed_dead(kStart + 62 * kSecond + 1));
}

TEST(BeatInterval, FourBeatsATimeoutAtLeastOneASecond) {
  EXPECT_EQ(beat_interval(500 * kMilli), 125 * kMilli);
  EXPECT_EQ(beat_interval(2 * kSecond), 500 * kMilli);
  EXPECT_EQ(beat_interval(10 * kSecond), kSecond);
  EXPECT_EQ(beat_interval(600 * kSecond), kSecond);
}

TEST(NoAnswer, NamesTheRanksAndTheTimeout) {
  EXPECT_STREQ(NoAnswer({1}, 2 * kSecond).what(), "rank 1 did not answer within 2.0 s");
  EXPECT_STREQ(NoAnswer({1, 3}, 10 * kSecond).what(), "ranks 1, 3 did not answer within 10.0 s");
}

TEST(PollBackoff, SleepsLongerWhileNothingComesAndShortAgainOnceSomethingDid) {
  PollBackoff backoff;
  EXPECT_EQ(backoff.next(false), 200 * kMicro);
  EXPECT_EQ(backoff.next(false), 400 * kMicro);
  Nanos last = 0;
  for (int i = 0; i < 20; ++i) last = backoff.next(false);
  EXPECT_EQ(last, PollBackoff::kLongest);  // capped: a rank 0 that answers is heard within 10 ms
  EXPECT_EQ(backoff.next(true), PollBackoff::kFirst);
  EXPECT_EQ(backoff.next(false), 400 * kMicro);
}

}  // namespace
}  // namespace stampede::distributed
