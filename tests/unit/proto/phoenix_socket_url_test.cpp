// Where the channels and LiveView clients open their socket: phoenix.js's endPointURL.
#include "proto/phoenix_socket_url.hpp"

#include <gtest/gtest.h>

namespace stampede::proto::phx {
namespace {

TEST(PhoenixSocketUrl, ChannelsEndpointThenParamsThenVsn) {
  EXPECT_EQ(socket_url("http://localhost:4000/socket", {}, "2.0.0"), "ws://localhost:4000/socket/websocket?vsn=2.0.0");
  EXPECT_EQ(socket_url("https://example.com/socket/", {{"token", "a b"}}, "1.0.0"),
            "wss://example.com/socket/websocket?token=a+b&vsn=1.0.0");
  EXPECT_EQ(socket_url("ws://h/socket/websocket", {}, "2.0.0"), "ws://h/socket/websocket?vsn=2.0.0");
  EXPECT_EQ(socket_url("HTTP://h:1/s?x=1", {{"user", "7"}}, "2.0.0"), "ws://h:1/s/websocket?x=1&user=7&vsn=2.0.0");
  EXPECT_EQ(socket_url("wss://h", {}, "2.0.0"), "wss://h/websocket?vsn=2.0.0");
}

TEST(PhoenixSocketUrl, WhatIsNotAUrlIsKeptForTheConnectToReport) {
  EXPECT_EQ(socket_url("/socket", {}, "2.0.0"), "/socket?vsn=2.0.0");
  EXPECT_EQ(socket_url("not a url", {}, "2.0.0"), "not a url?vsn=2.0.0");
}

TEST(PhoenixSocketUrl, APathIsTheSocketOfThePagesOrigin) {
  const auto live = websocket_endpoint("/live", "https://example.com:8443/posts/1?x=1#top");
  ASSERT_TRUE(live);
  EXPECT_EQ(live->buffer(), "wss://example.com:8443/live/websocket");
  EXPECT_EQ(websocket_endpoint("live/", "http://127.0.0.1:4000/")->buffer(), "ws://127.0.0.1:4000/live/websocket");
  EXPECT_EQ(websocket_endpoint("", "http://h/")->buffer(), "ws://h/websocket");
  EXPECT_FALSE(websocket_endpoint("/live", "not a url"));
  EXPECT_FALSE(websocket_endpoint("/live", ""));
}

}  // namespace
}  // namespace stampede::proto::phx
