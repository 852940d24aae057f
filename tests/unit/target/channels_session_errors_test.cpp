// What ends a Phoenix socket: frames the serializer cannot decode close it with 1011, as a
// crashed socket process does (§1.8, §8.11), and the session ignores everything after.
#include <gtest/gtest.h>

#include "target/session_fixture.hpp"

namespace stampede::target {
namespace {

using testing::SessionWorld;

void expect_socket_crash(testing::Peer& peer) {
  ASSERT_TRUE(peer.sink.close_code.has_value());
  EXPECT_EQ(*peer.sink.close_code, 1011);
  EXPECT_FALSE(peer.sink.close_reason.empty());
}

TEST(ChannelsSessionErrors, UndecodableV2FramesCloseTheSocketWith1011) {
  for (const char* frame : {"not json", R"(["1","1","room:a","phx_join"])", R"({"topic":"room:a"})", "[1,2,3,4,5]", ""}) {
    SessionWorld world;
    auto peer = world.v2();
    peer->send(frame);
    expect_socket_crash(*peer);
    EXPECT_TRUE(peer->idle()) << frame;
  }
}

TEST(ChannelsSessionErrors, AV1ObjectWithoutRefOrAV2ArrayOnV1CloseTheSocket) {
  for (const char* frame : {R"({"topic":"room:a","event":"phx_join","payload":{}})", R"(["1","1","room:a","phx_join",{}])"}) {
    SessionWorld world;
    auto peer = world.v1();
    peer->send(frame);
    expect_socket_crash(*peer);
  }
}

TEST(ChannelsSessionErrors, BinaryFramesThatAreNotPushesCloseTheSocket) {
  SessionWorld world;
  auto peer = world.v2();
  peer->send_binary(std::string("\x01\x00\x00\x00\x00", 5));
  expect_socket_crash(*peer);

  auto short_header = world.v2();
  short_header->send_binary(std::string("\x00\x09\x01", 3));
  expect_socket_crash(*short_header);

  auto v1 = world.v1();
  v1->send_binary("{}");
  expect_socket_crash(*v1);
}

TEST(ChannelsSessionErrors, NothingIsHandledAfterTheSocketFailed) {
  SessionWorld world;
  auto peer = world.v2();
  auto other = world.v2();
  peer->send(R"(["1","1","room:a","phx_join",{}])");
  peer->take();
  other->send(R"(["1","1","room:a","phx_join",{}])");
  other->take();
  peer->send("{");
  expect_socket_crash(*peer);
  peer->send(R"([null,"2","phoenix","heartbeat",{}])");
  other->send(R"(["1","2","room:a","shout",{}])");
  EXPECT_TRUE(peer->idle());
  EXPECT_EQ(world.bus.stats().socket_errors.get(), 1u);
}

TEST(ChannelsSessionErrors, AnAnswerThatCannotBeEncodedCrashesOnlyThatSocket) {
  SessionWorld world;
  auto peer = world.v2();
  auto other = world.v2();
  // A binary push may name a topic that is not UTF-8; the "unmatched topic" answer is a
  // text frame, which cannot carry it (Jason would raise in Phoenix).
  peer->send_binary(std::string("\x00\x01\x01\x03\x01" "12\xff\xfe\xfd" "xb", 12));
  expect_socket_crash(*peer);
  other->send(R"([null,"1","phoenix","heartbeat",{}])");
  EXPECT_FALSE(other->idle());
  EXPECT_FALSE(other->sink.close_code.has_value());
}

}  // namespace
}  // namespace stampede::target
