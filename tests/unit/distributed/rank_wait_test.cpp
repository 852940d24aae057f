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

// Rank 0 watching three others with a 60 s rank timeout, checking every 50 ms as its loop does.
constexpr Nanos kTimeout = 60 * kSecond;
constexpr Nanos kCheck = 50 * kMilli;

TEST(RankSilence, ARankThatStopsSendingIsLostOnceItsSilenceExceedsTheTimeout) {
  RankSilence silence(4, 0, kTimeout);
  Nanos t = 0;
  for (; t <= 100 * kSecond; t += kCheck) {
    if (t % kSecond == 0) {
      silence.heard(1, t);
      silence.heard(3, t);
      if (t <= 30 * kSecond) silence.heard(2, t);  // rank 2 dies at 30 s
    }
    const std::vector<int> lost = silence.check(t);
    if (!lost.empty()) {
      EXPECT_EQ(lost, std::vector<int>{2});
      EXPECT_GT(t, 90 * kSecond);
      EXPECT_LE(t, 90 * kSecond + kCheck);
      EXPECT_GT(silence.silence(2, t), kTimeout);
      silence.forget(2);
      break;
    }
  }
  EXPECT_LT(t, 100 * kSecond) << "rank 2 was never found silent";
  EXPECT_TRUE(silence.check(t + kCheck).empty()) << "a rank forgotten is not reported twice";
}

TEST(RankSilence, ABacklogDrainedForMinutesIsHeardOverThoseMinutes) {
  // Rank 0, short of CPU, drains a backlog from 639 s to 950 s: a message from every rank
  // about every second. Heard when each was received, nobody is silent when the drain ends.
  RankSilence silence(4, 0, kTimeout);
  Nanos t = 639 * kSecond;
  EXPECT_TRUE(silence.check(t).empty());
  for (; t < 950 * kSecond; t += kSecond)
    for (int r = 1; r < 4; ++r) silence.heard(r, t + r * kMilli);
  EXPECT_TRUE(silence.check(t).empty());
  EXPECT_TRUE(silence.check(t + kCheck).empty());
}

TEST(RankSilence, ACheckAfterRankZerosOwnStallRestartsTheCount) {
  RankSilence silence(3, 0, kTimeout);
  silence.heard(1, 10 * kSecond);
  silence.heard(2, 10 * kSecond);
  EXPECT_TRUE(silence.check(10 * kSecond).empty());
  // Rank 0's loop ran nothing for 300 s, and nothing has been received yet when it checks.
  EXPECT_TRUE(silence.check(310 * kSecond).empty()) << "the watcher stalled: the messages may be on their way";
  silence.heard(1, 310 * kSecond + kCheck);
  // Rank 2 really is gone: lost one timeout after the watcher came back, not before.
  Nanos t = 310 * kSecond;
  std::vector<int> lost;
  while (lost.empty() && t < 400 * kSecond) {
    t += kCheck;
    if ((t / kCheck) % 20 == 0) silence.heard(1, t);
    lost = silence.check(t);
  }
  EXPECT_EQ(lost, std::vector<int>{2});
  EXPECT_GT(t, 370 * kSecond);
  EXPECT_LE(t, 370 * kSecond + kCheck);
}

TEST(RankSilence, NothingIsDueBeforeTheFirstSecondEnds) {
  RankSilence silence(2, 5 * kSecond, kTimeout);
  for (Nanos t = 0; t <= 65 * kSecond; t += kCheck) EXPECT_TRUE(silence.check(t).empty()) << t;
  EXPECT_EQ(silence.check(65 * kSecond + kCheck), std::vector<int>{1});
}

}  // namespace
}  // namespace stampede::distributed
