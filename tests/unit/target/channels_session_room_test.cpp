// room:* and the socket-level rules (heartbeat, join, leave, duplicate join, unmatched
// topic, stale join_ref) of ChannelsSession, frame by frame, over both serializers. The
// expected frames are the ones in frames_channels.json.
#include <gtest/gtest.h>

#include "target/session_fixture.hpp"

namespace stampede::target {
namespace {

using testing::SessionWorld;

TEST(ChannelsSessionRoom, HeartbeatGetsAnOkReplyWithNullJoinRef) {
  SessionWorld world;
  auto peer = world.v2();
  peer->send(R"(["9","17","phoenix","heartbeat",{}])");
  EXPECT_FRAME(peer->take_text(), R"([null,"17","phoenix","phx_reply",{"response":{},"status":"ok"}])");
  EXPECT_TRUE(peer->idle());
  EXPECT_EQ(world.bus.stats().heartbeats.get(), 1u);
}

TEST(ChannelsSessionRoom, JoinReplyEchoesBothRefs) {
  SessionWorld world;
  auto peer = world.v2();
  peer->send(R"(["4","4","room:lobby","phx_join",{"hello":"join-params"}])");
  EXPECT_FRAME(peer->take_text(), R"(["4","4","room:lobby","phx_reply",{"response":{},"status":"ok"}])");
  EXPECT_EQ(peer->session.channel_count(), 1u);
  EXPECT_EQ(world.bus.stats().joins.get(), 1u);
}

TEST(ChannelsSessionRoom, NewMsgIsBroadcastBeforeTheReplyAndReachesEverySubscriber) {
  SessionWorld world;
  auto sender = world.v2("user-2.0.0");
  auto observer = world.v1("observer");
  auto elsewhere = world.v2();
  observer->send(R"({"topic":"room:lobby","event":"phx_join","payload":{},"ref":"3","join_ref":"3"})");
  observer->take();
  sender->send(R"(["4","4","room:lobby","phx_join",{}])");
  sender->take();
  elsewhere->send(R"(["1","1","room:other","phx_join",{}])");
  elsewhere->take();

  sender->send(R"(["4","5","room:lobby","new_msg",{"body":"hello from 2.0.0"}])");
  EXPECT_FRAME(sender->take_text(),
               R"([null,null,"room:lobby","new_msg",{"body":"hello from 2.0.0","echo":{"body":"hello from 2.0.0"},"user_id":"user-2.0.0"}])");
  EXPECT_FRAME(sender->take_text(), R"(["4","5","room:lobby","phx_reply",{"response":{},"status":"ok"}])");
  EXPECT_FRAME(observer->take_text(),
               R"({"event":"new_msg","payload":{"body":"hello from 2.0.0","echo":{"body":"hello from 2.0.0"},"user_id":"user-2.0.0"},"ref":null,"topic":"room:lobby"})");
  EXPECT_TRUE(elsewhere->idle());
  EXPECT_EQ(world.bus.stats().broadcasts_published.get(), 1u);
  EXPECT_EQ(world.bus.stats().broadcasts_delivered.get(), 2u);
}

TEST(ChannelsSessionRoom, NewMsgFromASocketWithoutUserIdSaysNull) {
  SessionWorld world;
  auto peer = world.v2();
  peer->send(R"(["1","1","room:a","phx_join",{}])");
  peer->take();
  peer->send(R"(["1","2","room:a","new_msg",{}])");
  EXPECT_FRAME(peer->take_text(), R"([null,null,"room:a","new_msg",{"echo":{},"user_id":null}])");
}

TEST(ChannelsSessionRoom, ShoutIsBroadcastWithoutAReply) {
  SessionWorld world;
  auto peer = world.v2();
  peer->send(R"(["4","4","room:lobby","phx_join",{}])");
  peer->take();
  peer->send(R"(["4","7","room:lobby","shout",{"loud":true}])");
  EXPECT_FRAME(peer->take_text(), R"([null,null,"room:lobby","shout",{"loud":true}])");
  EXPECT_TRUE(peer->idle());
}

TEST(ChannelsSessionRoom, PingRepliesWithItsPayload) {
  SessionWorld world;
  auto peer = world.v2();
  peer->send(R"(["4","4","room:lobby","phx_join",{}])");
  peer->take();
  peer->send(R"(["4","6","room:lobby","ping",{"n":42,"s":"x"}])");
  EXPECT_FRAME(peer->take_text(), R"(["4","6","room:lobby","phx_reply",{"response":{"n":42,"s":"x"},"status":"ok"}])");
}

TEST(ChannelsSessionRoom, UnhandledEventGetsNoReplyAtAll) {
  SessionWorld world;
  auto peer = world.v2();
  peer->send(R"(["4","4","room:lobby","phx_join",{}])");
  peer->take();
  peer->send(R"(["4","5","room:lobby","no_such_event",{}])");
  EXPECT_TRUE(peer->idle());
  EXPECT_EQ(peer->session.channel_count(), 1u);
}

TEST(ChannelsSessionRoom, CrashSendsPhxErrorWithTheJoinRefAndTheChannelIsGone) {
  SessionWorld world;
  auto peer = world.v2();
  peer->send(R"(["15","15","room:crashme","phx_join",{}])");
  peer->take();
  peer->send(R"(["15","16","room:crashme","crash",{}])");
  EXPECT_FRAME(peer->take_text(), R"(["15","15","room:crashme","phx_error",{}])");
  EXPECT_EQ(peer->session.channel_count(), 0u);
  // As in the captures: a leave after the crash is answered ok, with nothing to close.
  peer->send(R"(["15","19","room:crashme","phx_leave",{}])");
  EXPECT_FRAME(peer->take_text(), R"(["15","19","room:crashme","phx_reply",{"response":{},"status":"ok"}])");
  EXPECT_TRUE(peer->idle());
  EXPECT_EQ(world.bus.stats().channel_crashes.get(), 1u);
}

TEST(ChannelsSessionRoom, PayloadsThatAreNotMapsCrashTheChannel) {
  for (const char* event : {"ping", "new_msg", "shout"}) {
    SessionWorld world;
    auto peer = world.v2();
    peer->send(R"(["1","1","room:a","phx_join",{}])");
    peer->take();
    peer->send(std::string(R"(["1","2","room:a",")") + event + R"(",[1,2]])");
    EXPECT_FRAME(peer->take_text(), R"(["1","1","room:a","phx_error",{}])") << event;
    EXPECT_TRUE(peer->idle()) << event;
  }
}

TEST(ChannelsSessionRoom, BinaryPushGetsTheBytesBackInABinaryReply) {
  SessionWorld world;
  auto peer = world.v2();
  peer->send(R"(["4","4","room:lobby","phx_join",{}])");
  peer->take();
  // The frames of frames_channels.json: kind 0 push "binary" and its kind 1 reply.
  const std::string push("\x00\x01\x01\x0a\x06"
                         "48room:lobbybinary\x00\x01\x02\xfa\xfb\xfc\xfd\xfe\xff",
                         5 + 1 + 1 + 10 + 6 + 9);
  const std::string reply("\x01\x01\x01\x0a\x02"
                          "48room:lobbyok\x00\x01\x02\xfa\xfb\xfc\xfd\xfe\xff",
                          5 + 1 + 1 + 10 + 2 + 9);
  peer->send_binary(push);
  const auto frame = peer->take();
  EXPECT_TRUE(frame.binary);
  EXPECT_EQ(frame.data, reply);
}

TEST(ChannelsSessionRoom, PrivateRoomRefusesTheJoin) {
  SessionWorld world;
  auto peer = world.v2();
  peer->send(R"(["11","11","room:private","phx_join",{}])");
  EXPECT_FRAME(peer->take_text(),
               R"(["11","11","room:private","phx_reply",{"response":{"reason":"unauthorized"},"status":"error"}])");
  EXPECT_EQ(peer->session.channel_count(), 0u);
  peer->send(R"(["11","12","room:private","phx_leave",{}])");
  EXPECT_FRAME(peer->take_text(), R"(["11","12","room:private","phx_reply",{"response":{},"status":"ok"}])");
  EXPECT_TRUE(peer->idle());
  EXPECT_EQ(world.bus.stats().joins_refused.get(), 1u);
}

TEST(ChannelsSessionRoom, LeaveRepliesThenClosesWithTheJoinRef) {
  SessionWorld world;
  auto peer = world.v2();
  auto other = world.v2();
  peer->send(R"(["4","4","room:lobby","phx_join",{}])");
  peer->take();
  other->send(R"(["1","1","room:lobby","phx_join",{}])");
  other->take();
  peer->send(R"(["4","24","room:lobby","phx_leave",{}])");
  EXPECT_FRAME(peer->take_text(), R"(["4","24","room:lobby","phx_reply",{"response":{},"status":"ok"}])");
  EXPECT_FRAME(peer->take_text(), R"(["4","4","room:lobby","phx_close",{}])");
  // Unsubscribed: a broadcast on the topic no longer reaches it.
  other->send(R"(["1","2","room:lobby","shout",{}])");
  EXPECT_TRUE(peer->idle());
}

TEST(ChannelsSessionRoom, DuplicateJoinRepliesToTheNewJoinBeforeClosingTheOldOne) {
  SessionWorld world;
  auto peer = world.v2();
  peer->send(R"(["3","3","room:lobby","phx_join",{}])");
  peer->take();
  peer->send(R"(["7","7","room:lobby","phx_join",{}])");
  EXPECT_FRAME(peer->take_text(), R"(["7","7","room:lobby","phx_reply",{"response":{},"status":"ok"}])");
  EXPECT_FRAME(peer->take_text(), R"(["3","3","room:lobby","phx_close",{}])");
  EXPECT_TRUE(peer->idle());
  EXPECT_EQ(peer->session.channel_count(), 1u);
  // The new join is the current one: its join_ref is accepted, the old one is stale.
  peer->send(R"(["7","8","room:lobby","ping",{}])");
  EXPECT_FRAME(peer->take_text(), R"(["7","8","room:lobby","phx_reply",{"response":{},"status":"ok"}])");
  peer->send(R"(["3","9","room:lobby","ping",{}])");
  EXPECT_TRUE(peer->idle());
}

TEST(ChannelsSessionRoom, EventsOnATopicNotJoinedAreUnmatchedWithNullJoinRef) {
  SessionWorld world;
  auto peer = world.v2();
  peer->send(R"(["9","21","room:other","new_msg",{}])");
  EXPECT_FRAME(peer->take_text(),
               R"([null,"21","room:other","phx_reply",{"response":{"reason":"unmatched topic"},"status":"error"}])");
}

TEST(ChannelsSessionRoom, JoiningATopicWithoutARouteIsUnmatched) {
  SessionWorld world;
  auto peer = world.v2();
  peer->send(R"(["1","1","lobby","phx_join",{}])");
  EXPECT_FRAME(peer->take_text(),
               R"([null,"1","lobby","phx_reply",{"response":{"reason":"unmatched topic"},"status":"error"}])");
  peer->send(R"(["2","2","phoenix","phx_join",{}])");
  EXPECT_FRAME(peer->take_text(),
               R"([null,"2","phoenix","phx_reply",{"response":{"reason":"unmatched topic"},"status":"error"}])");
}

TEST(ChannelsSessionRoom, NullJoinRefReachesTheChannelAndAStaleOneIsDropped) {
  SessionWorld world;
  auto peer = world.v2();
  peer->send(R"(["4","4","room:lobby","phx_join",{}])");
  peer->take();
  peer->send(R"([null,"5","room:lobby","ping",{"a":1}])");
  EXPECT_FRAME(peer->take_text(), R"(["4","5","room:lobby","phx_reply",{"response":{"a":1},"status":"ok"}])");
  peer->send(R"(["2","6","room:lobby","ping",{}])");
  peer->send(R"(["2","7","room:lobby","phx_leave",{}])");
  EXPECT_TRUE(peer->idle());
  EXPECT_EQ(peer->session.channel_count(), 1u);
}

TEST(ChannelsSessionRoom, JoinWithoutJoinRefUsesItsRef) {
  SessionWorld world;
  auto peer = world.v2();
  peer->send(R"([null,"8","room:lobby","phx_join",{}])");
  EXPECT_FRAME(peer->take_text(), R"(["8","8","room:lobby","phx_reply",{"response":{},"status":"ok"}])");
  peer->send(R"([null,"9","room:lobby","phx_leave",{}])");
  EXPECT_FRAME(peer->take_text(), R"(["8","9","room:lobby","phx_reply",{"response":{},"status":"ok"}])");
  EXPECT_FRAME(peer->take_text(), R"(["8","8","room:lobby","phx_close",{}])");
}

TEST(ChannelsSessionRoom, AJoinBeyondOneHundredChannelsIsRefused) {
  SessionWorld world;
  auto peer = world.v2();
  for (int i = 0; i < 100; ++i) {
    const auto n = std::to_string(i);
    peer->send(R"([")" + n + R"(",")" + n + R"(","room:)" + n + R"(","phx_join",{}])");
    peer->take();
  }
  peer->send(R"(["x","x","room:x","phx_join",{}])");
  EXPECT_FRAME(peer->take_text(),
               R"(["x","x","room:x","phx_reply",{"response":{"reason":"too many channels joined"},"status":"error"}])");
  EXPECT_EQ(peer->session.channel_count(), 100u);
}

TEST(ChannelsSessionRoom, V1FramesCarryNoJoinRefAndPushesHaveANullRef) {
  SessionWorld world;
  auto peer = world.v1("user-1.0.0");
  peer->send(R"({"topic":"room:lobby","event":"phx_join","payload":{"hello":"join-params"},"ref":"4","join_ref":"4"})");
  EXPECT_FRAME(peer->take_text(), R"({"event":"phx_reply","payload":{"response":{},"status":"ok"},"ref":"4","topic":"room:lobby"})");
  peer->send(R"({"topic":"room:lobby","event":"new_msg","payload":{"body":"hello from 1.0.0"},"ref":"5","join_ref":"4"})");
  EXPECT_FRAME(peer->take_text(),
               R"({"event":"new_msg","payload":{"body":"hello from 1.0.0","echo":{"body":"hello from 1.0.0"},"user_id":"user-1.0.0"},"ref":null,"topic":"room:lobby"})");
  EXPECT_FRAME(peer->take_text(), R"({"event":"phx_reply","payload":{"response":{},"status":"ok"},"ref":"5","topic":"room:lobby"})");
  peer->send(R"({"topic":"room:lobby","event":"crash","payload":{},"ref":"15"})");
  EXPECT_FRAME(peer->take_text(), R"({"event":"phx_error","payload":{},"ref":"4","topic":"room:lobby"})");
  peer->send(R"({"topic":"phoenix","event":"heartbeat","payload":{},"ref":"16"})");
  EXPECT_FRAME(peer->take_text(), R"({"event":"phx_reply","payload":{"response":{},"status":"ok"},"ref":"16","topic":"phoenix"})");
}

TEST(ChannelsSessionRoom, ADisconnectedSessionReceivesNoMoreBroadcasts) {
  SessionWorld world;
  auto peer = world.v2();
  auto other = world.v2();
  peer->send(R"(["1","1","room:a","phx_join",{}])");
  peer->take();
  other->send(R"(["1","1","room:a","phx_join",{}])");
  other->take();
  peer->session.handle_disconnect();
  other->send(R"(["1","2","room:a","shout",{}])");
  other->take();
  EXPECT_TRUE(peer->idle());
  EXPECT_EQ(peer->session.channel_count(), 0u);
}

}  // namespace
}  // namespace stampede::target
