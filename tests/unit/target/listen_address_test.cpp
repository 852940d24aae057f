#include "target/listen_address.hpp"

#include <gtest/gtest.h>

namespace stampede::target {
namespace {

TEST(ListenAddress, ParsesTheAcceptedForms) {
  auto a = parse_listen_address("127.0.0.1:4000");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->host, "127.0.0.1");
  EXPECT_EQ(a->port, 4000);
  a = parse_listen_address("0.0.0.0:0");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->port, 0);
  a = parse_listen_address("[::1]:8080");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->host, "::1");
  a = parse_listen_address("localhost:4001");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->host, "127.0.0.1");
  a = parse_listen_address("4002");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->host, "127.0.0.1");
  EXPECT_EQ(a->port, 4002);
}

TEST(ListenAddress, RejectsWithAReason) {
  std::string error;
  EXPECT_FALSE(parse_listen_address("127.0.0.1:70000", &error));
  EXPECT_NE(error.find("not a port number"), std::string::npos) << error;
  EXPECT_FALSE(parse_listen_address("example.com:80", &error));
  EXPECT_NE(error.find("not an IP address"), std::string::npos) << error;
  EXPECT_FALSE(parse_listen_address("[::1]8080", &error));
  EXPECT_FALSE(parse_listen_address("", &error));
  EXPECT_FALSE(parse_listen_address("127.0.0.1:", &error));
}

TEST(ListenAddress, UrlBracketsIpv6) {
  EXPECT_EQ(listen_url("127.0.0.1", 4000), "http://127.0.0.1:4000");
  EXPECT_EQ(listen_url("::1", 4000), "http://[::1]:4000");
}

}  // namespace
}  // namespace stampede::target
