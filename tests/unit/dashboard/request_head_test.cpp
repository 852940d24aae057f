#include "dashboard/request_head.hpp"

#include <gtest/gtest.h>

namespace stampede::dashboard {
namespace {

TEST(RequestHead, ReadsMethodPathAndHost) {
  auto head = parse_request_head("GET /events?x=1 HTTP/1.1\r\nHost: 127.0.0.1:4040\r\nAccept: text/event-stream\r\n\r\n");
  ASSERT_TRUE(head);
  EXPECT_EQ(head->method, "GET");
  EXPECT_EQ(head->path, "/events");
  EXPECT_EQ(head->host, "127.0.0.1:4040");

  head = parse_request_head("GET / HTTP/1.0\r\nhOsT:   LocalHost:80  \r\n\r\n");
  ASSERT_TRUE(head);
  EXPECT_EQ(head->path, "/");
  EXPECT_EQ(head->host, "localhost:80");
}

TEST(RequestHead, RejectsWhatIsNotARequestLine) {
  EXPECT_FALSE(parse_request_head("GET /\r\n\r\n"));
  EXPECT_FALSE(parse_request_head("GET / SPDY/3\r\n\r\n"));
  EXPECT_FALSE(parse_request_head("GET http://example.com/ HTTP/1.1\r\n\r\n"));
  EXPECT_FALSE(parse_request_head("no line end"));
}

TEST(RequestHead, MissingHostIsEmpty) {
  auto head = parse_request_head("GET / HTTP/1.1\r\n\r\n");
  ASSERT_TRUE(head);
  EXPECT_EQ(head->host, "");
}

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
