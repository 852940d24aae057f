#include "dashboard/loopback_host.hpp"

#include <gtest/gtest.h>

namespace stampede::dashboard {
namespace {

TEST(LoopbackHost, AcceptsLoopbackNamesOnTheRightPortOnly) {
  EXPECT_TRUE(is_loopback_host("127.0.0.1:4040", 4040));
  EXPECT_TRUE(is_loopback_host("localhost:4040", 4040));
  EXPECT_TRUE(is_loopback_host("[::1]:4040", 4040));
  EXPECT_TRUE(is_loopback_host("localhost", 80));
  EXPECT_FALSE(is_loopback_host("localhost", 4040));
  EXPECT_FALSE(is_loopback_host("127.0.0.1:4041", 4040));
  EXPECT_FALSE(is_loopback_host("attacker.example:4040", 4040));
  EXPECT_FALSE(is_loopback_host("", 4040));
}

}  // namespace
}  // namespace stampede::dashboard
