// HoldQueue on plain times: holds end in due order and never early; the wake-up is exact
// while reads are sparse and a slack later while they are dense.
#include "target/hold_queue.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace stampede::target {
namespace {

constexpr Nanos kSlack = 250 * kMicro;

std::vector<int> release(HoldQueue<int>& holds, Nanos now) {
  std::vector<int> ended;
  holds.release_due(now, [&](int id) { ended.push_back(id); });
  return ended;
}

// Reads every `gap` from `from` for `count` reads; returns the time of the last one.
Nanos read_every(HoldQueue<int>& holds, Nanos from, Nanos gap, int count) {
  Nanos t = from;
  for (int i = 0; i < count; ++i) {
    t += gap;
    holds.note_read(t);
  }
  return t;
}

TEST(HoldQueue, EndsHoldsInDueOrderAndNeverEarly) {
  HoldQueue<int> holds(kSlack);
  holds.push(30 * kMilli, 3);
  holds.push(10 * kMilli, 1);
  holds.push(20 * kMilli, 2);
  holds.push(20 * kMilli, 4);
  EXPECT_TRUE(release(holds, 10 * kMilli - 1).empty());
  EXPECT_EQ(release(holds, 10 * kMilli), std::vector<int>({1}));
  const auto both = release(holds, 25 * kMilli);
  ASSERT_EQ(both.size(), 2U);
  EXPECT_EQ(both[0] + both[1], 6);  // 2 and 4, due at the same time, in either order
  EXPECT_EQ(release(holds, kSecond), std::vector<int>({3}));
  EXPECT_TRUE(holds.empty());
  EXPECT_FALSE(holds.wake_at().has_value());
}

TEST(HoldQueue, WakesExactlyWhenDueWhileReadsAreSparse) {
  HoldQueue<int> holds(kSlack);
  EXPECT_FALSE(holds.dense());
  // 1,000 reads a second: far fewer than four per slack.
  const Nanos now = read_every(holds, kSecond, kMilli, 50);
  EXPECT_FALSE(holds.dense());
  holds.push(now + 10 * kMilli, 1);
  EXPECT_EQ(holds.wake_at(), now + 10 * kMilli);
}

TEST(HoldQueue, WakesASlackLaterWhileReadsAreDense) {
  HoldQueue<int> holds(kSlack);
  // A read every 20 µs (50,000/s): they end the holds; the timer is only a backstop.
  const Nanos now = read_every(holds, kSecond, 20 * kMicro, 150);
  EXPECT_TRUE(holds.dense());
  holds.push(now + kMilli, 1);
  holds.push(now + kMilli + 5 * kMicro, 2);
  EXPECT_EQ(holds.wake_at(), now + kMilli + kSlack);
  // A read at the due time still ends the hold then, not at the backstop.
  EXPECT_EQ(release(holds, now + kMilli), std::vector<int>({1}));
  EXPECT_EQ(holds.wake_at(), now + kMilli + 5 * kMicro + kSlack);
}

TEST(HoldQueue, TheBackstopBacksOffWhileReadsEndEverythingAndReturnsWhenItFindsWork) {
  HoldQueue<int> holds(kSlack);
  Nanos now = read_every(holds, kSecond, 20 * kMicro, 150);
  ASSERT_TRUE(holds.dense());
  holds.push(now + kMilli, 1);
  EXPECT_EQ(holds.wake_at(), now + kMilli + kSlack);
  // Each time the timer finds that the reads ended everything, it waits twice as long.
  holds.timer_fired(0);
  EXPECT_EQ(holds.wake_at(), now + kMilli + 2 * kSlack);
  holds.timer_fired(0);
  EXPECT_EQ(holds.wake_at(), now + kMilli + 4 * kSlack);
  holds.timer_fired(0);  // never more than 4 slacks (1 ms by default)
  EXPECT_EQ(holds.wake_at(), now + kMilli + 4 * kSlack);
  // It found work: the reads stopped keeping up, back to one slack.
  holds.timer_fired(1);
  EXPECT_EQ(holds.wake_at(), now + kMilli + kSlack);
}

TEST(HoldQueue, OnePauseAfterABusyStretchMakesItExactAgain) {
  HoldQueue<int> holds(kSlack);
  Nanos now = read_every(holds, kSecond, 20 * kMicro, 100);
  ASSERT_TRUE(holds.dense());
  // The load stops; 10 ms later one request comes.
  now += 10 * kMilli;
  holds.note_read(now);
  EXPECT_FALSE(holds.dense());
  const Nanos due = now + kMilli;
  holds.push(due, 1);
  EXPECT_EQ(holds.wake_at(), due);
  // A timer that finds nothing while reads are sparse does not back off: the next busy
  // stretch starts from one slack.
  holds.timer_fired(0);
  read_every(holds, now, 20 * kMicro, 150);
  ASSERT_TRUE(holds.dense());
  EXPECT_EQ(holds.wake_at(), due + kSlack);
}

TEST(HoldQueue, TheBoundaryIsFourReadsPerSlack) {
  HoldQueue<int> at_bound(kSlack);
  read_every(at_bound, kSecond, kSlack / 4 - kMicro, 200);
  EXPECT_TRUE(at_bound.dense());
  HoldQueue<int> past_bound(kSlack);
  read_every(past_bound, kSecond, kSlack / 4 + 10 * kMicro, 200);
  EXPECT_FALSE(past_bound.dense());
}

}  // namespace
}  // namespace stampede::target
