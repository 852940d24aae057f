// phoenix.js's reconnect and rejoin back-off (socket.js reconnectAfterMs, channel.js
// rejoinAfterMs, timer.js), stepped through on plain times.
#include "clients/phoenix_reconnect.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace stampede::clients {
namespace {

TEST(PhoenixReconnect, TheStepsArePhoenixJsDefaults) {
  const std::vector<Nanos> ms{10, 50, 100, 150, 200, 250, 500, 1000, 2000, 5000, 5000, 5000};
  for (unsigned tries = 1; tries <= ms.size(); ++tries) {
    EXPECT_EQ(phoenix_reconnect_after(tries), ms[tries - 1] * kMilli) << tries;
  }
  EXPECT_EQ(phoenix_reconnect_after(1000), 5 * kSecond);
  EXPECT_EQ(phoenix_rejoin_after(1), 1 * kSecond);
  EXPECT_EQ(phoenix_rejoin_after(2), 2 * kSecond);
  EXPECT_EQ(phoenix_rejoin_after(3), 5 * kSecond);
  EXPECT_EQ(phoenix_rejoin_after(4), 10 * kSecond);
  EXPECT_EQ(phoenix_rejoin_after(99), 10 * kSecond);
}

TEST(PhoenixReconnect, EachFailedTryWaitsTheNextStepUntilOneOpens) {
  PhoenixBackoff backoff(&phoenix_reconnect_after);
  // Lost at 100 s; every try fails the moment it is made.
  Nanos now = 100 * kSecond;
  std::vector<Nanos> waits;
  for (int i = 0; i < 11; ++i) {
    const Nanos due = backoff.next_try(now);
    waits.push_back(due - now);
    now = due;
  }
  const std::vector<Nanos> expected{10 * kMilli,  50 * kMilli,  100 * kMilli, 150 * kMilli,
                                    200 * kMilli, 250 * kMilli, 500 * kMilli, 1000 * kMilli,
                                    2000 * kMilli, 5 * kSecond,  5 * kSecond};
  EXPECT_EQ(waits, expected);
  EXPECT_EQ(backoff.tries(), 11u);
  // The 11th try opened; lost again later: from the first step again.
  backoff.reset();
  EXPECT_EQ(backoff.next_try(now + kSecond), now + kSecond + 10 * kMilli);
  EXPECT_EQ(backoff.tries(), 1u);
}

TEST(PhoenixReconnect, ARejoinRefusedAgainAndAgainWaitsLonger) {
  PhoenixBackoff backoff(&phoenix_rejoin_after);
  EXPECT_EQ(backoff.next_try(0), 1 * kSecond);
  EXPECT_EQ(backoff.next_try(1 * kSecond), 3 * kSecond);
  EXPECT_EQ(backoff.next_try(3 * kSecond), 8 * kSecond);
  EXPECT_EQ(backoff.next_try(8 * kSecond), 18 * kSecond);
  EXPECT_EQ(backoff.next_try(18 * kSecond), 28 * kSecond);
}

}  // namespace
}  // namespace stampede::clients
