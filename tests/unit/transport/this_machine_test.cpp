#include "transport/this_machine.hpp"

#include <gtest/gtest.h>

namespace stampede::transport {
namespace {

TEST(ThisMachine, LoopbackAndLocalhostAreThisMachine) {
  EXPECT_EQ(is_this_machine("127.0.0.1:4000"), true);
  EXPECT_EQ(is_this_machine("127.0.0.9"), true);
  EXPECT_EQ(is_this_machine("localhost:4000"), true);
  EXPECT_EQ(is_this_machine("app.localhost"), true);
  EXPECT_EQ(is_this_machine("[::1]:4443"), true);
}

TEST(ThisMachine, OtherAddressesAreNot) {
  // TEST-NET-1 (RFC 5737): never an interface of a test machine.
  EXPECT_EQ(is_this_machine("192.0.2.7:80"), false);
  EXPECT_EQ(is_this_machine("[2001:db8::1]:443"), false);
}

TEST(ThisMachine, ANameThatDoesNotResolveIsUnknown) {
  EXPECT_EQ(is_this_machine("no-such-host.invalid"), std::nullopt);
  EXPECT_EQ(is_this_machine(""), std::nullopt);
}

}  // namespace
}  // namespace stampede::transport
