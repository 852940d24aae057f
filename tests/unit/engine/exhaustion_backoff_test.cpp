// The wait before a VU's next iteration after it ran out of a local resource (EMFILE,
// no free port), on a simulated clock.
#include "engine/exhaustion_backoff.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <vector>

namespace stampede::engine {
namespace {

TEST(ExhaustionBackoff, WaitsDoubleFromTenMillisecondsToOneSecond) {
  EXPECT_EQ(ExhaustionBackoff::ceiling(1), 10 * kMilli);
  EXPECT_EQ(ExhaustionBackoff::ceiling(2), 20 * kMilli);
  EXPECT_EQ(ExhaustionBackoff::ceiling(3), 40 * kMilli);
  EXPECT_EQ(ExhaustionBackoff::ceiling(7), 640 * kMilli);
  EXPECT_EQ(ExhaustionBackoff::ceiling(8), kSecond);
  EXPECT_EQ(ExhaustionBackoff::ceiling(1000), kSecond);

  ExhaustionBackoff backoff(7);
  ManualClock clock(5 * kSecond);
  for (int streak = 1; streak <= 100; ++streak) {
    const Nanos next = backoff.next_start(clock.now(), true);
    const Nanos wait = next - clock.now();
    ASSERT_GE(wait, ExhaustionBackoff::ceiling(streak) / 2) << "streak " << streak;
    ASSERT_LE(wait, ExhaustionBackoff::ceiling(streak)) << "streak " << streak;
    EXPECT_EQ(backoff.streak(), std::min(streak, 64));
    clock.set(next);
  }
}

TEST(ExhaustionBackoff, AnyOtherOutcomeStartsAtOnceAndResets) {
  ExhaustionBackoff backoff(1);
  EXPECT_EQ(backoff.next_start(100, false), 100);  // a healthy VU never waits
  for (int i = 0; i < 10; ++i) backoff.next_start(0, true);
  EXPECT_GE(backoff.next_start(0, true), 500 * kMilli);
  EXPECT_EQ(backoff.next_start(7 * kSecond, false), 7 * kSecond);
  EXPECT_EQ(backoff.streak(), 0);
  const Nanos wait = backoff.next_start(8 * kSecond, true) - 8 * kSecond;
  EXPECT_GE(wait, 5 * kMilli);
  EXPECT_LE(wait, 10 * kMilli);
}

TEST(ExhaustionBackoff, VusThatFailTogetherDoNotRetryTogether) {
  std::set<Nanos> first_retries;
  for (int vu = 1; vu <= 200; ++vu) first_retries.insert(ExhaustionBackoff(vu).next_start(0, true));
  EXPECT_GT(first_retries.size(), 190u);
  // The same VU id draws the same waits: runs are reproducible.
  ExhaustionBackoff a(42), b(42);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(a.next_start(i * kSecond, true), b.next_start(i * kSecond, true));
}

TEST(BackoffQueue, HandsOutVusWhenTheirWaitIsOverEarliestFirst) {
  BackoffQueue<int> queue;
  EXPECT_FALSE(queue.earliest());
  queue.push(1, 30);
  queue.push(2, 10);
  queue.push(3, 20);
  EXPECT_EQ(queue.earliest(), 10);
  EXPECT_FALSE(queue.pop_ready(9));
  auto first = queue.pop_ready(25);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->second, 2);
  EXPECT_EQ(first->first, 10);
  EXPECT_EQ(queue.pop_ready(25)->second, 3);
  EXPECT_FALSE(queue.pop_ready(25));
  EXPECT_EQ(queue.size(), 1u);
  EXPECT_EQ(queue.pop_ready(30)->second, 1);
  EXPECT_TRUE(queue.empty());
}

// A closed-model worker on a simulated clock: `vus` VUs, each iteration takes `cost` of
// time; while the machine is out of file descriptors (before `recovers_at`) every iteration
// fails at once with EMFILE. Without a backoff each VU would fail every `cost`.
struct ClosedLoop {
  int failures = 0;
  int successes = 0;
  std::vector<Nanos> first_success;  // per VU

  void run(int vus, Nanos cost, Nanos recovers_at, Nanos end) {
    std::vector<ExhaustionBackoff> backoff;
    for (int i = 0; i < vus; ++i) backoff.emplace_back(static_cast<std::uint64_t>(i + 1));
    first_success.assign(vus, -1);
    BackoffQueue<int> queue;
    for (int i = 0; i < vus; ++i) queue.push(i, 0);
    ManualClock clock(0);
    while (auto earliest = queue.earliest()) {
      if (*earliest >= end) break;
      clock.set(*earliest);
      const auto ready = queue.pop_ready(clock.now());
      const int vu = ready->second;
      const bool exhausted = clock.now() < recovers_at;
      const Nanos ended = clock.now() + cost;
      if (exhausted) {
        ++failures;
      } else {
        ++successes;
        if (first_success[vu] < 0) first_success[vu] = clock.now();
      }
      queue.push(vu, backoff[vu].next_start(ended, exhausted));
    }
  }
};

TEST(ExhaustionBackoff, OutOfDescriptorsCostsAFewIterationsPerVuNotMillions) {
  ClosedLoop loop;
  const int vus = 1000;
  const Nanos cost = 20 * kMicro;  // a failed connect: the socket() call and the error table
  loop.run(vus, cost, 3 * kSecond, 3 * kSecond);
  // A tight loop: 3 s / 20 µs = 150,000 failures per VU. Backing off from 10 ms to 1 s: about
  // 7 to reach the cap (~1.3 s) and one per 0.5-1 s after it.
  EXPECT_GE(loop.failures, vus * 7);
  EXPECT_LE(loop.failures, vus * 12);
  EXPECT_EQ(loop.successes, 0);
}

TEST(ExhaustionBackoff, VusComeBackWithinTheCapOnceTheMachineRecovers) {
  ClosedLoop loop;
  const int vus = 100;
  loop.run(vus, 20 * kMicro, 2 * kSecond, 3100 * kMilli);
  for (int vu = 0; vu < vus; ++vu) {
    ASSERT_GE(loop.first_success[vu], 2 * kSecond) << vu;
    ASSERT_LE(loop.first_success[vu], 2 * kSecond + ExhaustionBackoff::kCap + kMilli) << vu;
  }
  // Then they run back to back again: the first success reset the backoff.
  EXPECT_GT(loop.successes, vus * 1000);
}

}  // namespace
}  // namespace stampede::engine
