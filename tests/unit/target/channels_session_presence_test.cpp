// presence:* in ChannelsSession: presence_state after the join reply, presence_diff to the
// topic on join, leave, crash-free disconnect, in the shapes of §4.1.
#include <gtest/gtest.h>

#include <regex>

#include "target/session_fixture.hpp"

namespace stampede::target {
namespace {

using testing::parse_json;
using testing::SessionWorld;

const boost::json::object& only_meta(const boost::json::value& presences, std::string_view key) {
  const auto& metas = presences.at(key).at("metas").as_array();
  EXPECT_EQ(metas.size(), 1u);
  return metas.at(0).as_object();
}

void expect_meta_shape(const boost::json::object& meta) {
  EXPECT_EQ(meta.size(), 2u);
  const std::string online_at(meta.at("online_at").as_string());
  EXPECT_TRUE(std::regex_match(online_at, std::regex("[0-9]{10}"))) << online_at;
  const std::string phx_ref(meta.at("phx_ref").as_string());
  EXPECT_TRUE(std::regex_match(phx_ref, std::regex("[A-Za-z0-9_-]{16}"))) << phx_ref;
}

TEST(ChannelsSessionPresence, JoinRepliesThenBroadcastsTheDiffThenPushesTheState) {
  SessionWorld world;
  auto peer = world.v2("user-2.0.0");
  peer->send(R"(["22","22","presence:lobby","phx_join",{}])");
  EXPECT_FRAME(peer->take_text(), R"(["22","22","presence:lobby","phx_reply",{"response":{},"status":"ok"}])");

  const auto diff = parse_json(peer->take_text()).as_array();
  EXPECT_TRUE(diff[0].is_null());
  EXPECT_TRUE(diff[1].is_null());
  EXPECT_EQ(diff[3], "presence_diff");
  EXPECT_EQ(diff[4].at("leaves"), boost::json::object());
  const auto& joined = only_meta(diff[4].at("joins"), "user-2.0.0");
  expect_meta_shape(joined);

  const auto state = parse_json(peer->take_text()).as_array();
  EXPECT_EQ(state[0], "22");
  EXPECT_TRUE(state[1].is_null());
  EXPECT_EQ(state[3], "presence_state");
  EXPECT_EQ(state[4].as_object().size(), 1u);
  EXPECT_EQ(only_meta(state[4], "user-2.0.0"), joined);
  EXPECT_TRUE(peer->idle());
}

TEST(ChannelsSessionPresence, TheSecondJoinerSeesBothAndTheFirstGetsTheDiff) {
  SessionWorld world;
  auto alice = world.v2();
  auto bob = world.v1();
  alice->send(R"(["1","1","presence:room","phx_join",{"user_id":"alice"}])");
  for (int i = 0; i < 3; ++i) alice->take();

  bob->send(R"({"topic":"presence:room","event":"phx_join","payload":{"user_id":"bob"},"ref":"1"})");
  bob->take();  // reply
  bob->take();  // its own join diff
  const auto state = parse_json(bob->take_text()).as_object();
  EXPECT_EQ(state.at("event"), "presence_state");
  EXPECT_TRUE(state.at("ref").is_null());
  EXPECT_FALSE(state.contains("join_ref"));
  EXPECT_TRUE(state.at("payload").as_object().contains("alice"));
  EXPECT_TRUE(state.at("payload").as_object().contains("bob"));

  const auto diff = parse_json(alice->take_text()).as_array();
  EXPECT_EQ(diff[3], "presence_diff");
  expect_meta_shape(only_meta(diff[4].at("joins"), "bob"));
  EXPECT_TRUE(alice->idle());
}

TEST(ChannelsSessionPresence, LeavingBroadcastsTheLeaveAfterThePhxClose) {
  SessionWorld world;
  auto alice = world.v2();
  auto bob = world.v2();
  alice->send(R"(["1","1","presence:room","phx_join",{"user_id":"alice"}])");
  for (int i = 0; i < 3; ++i) alice->take();
  bob->send(R"(["1","1","presence:room","phx_join",{"user_id":"bob"}])");
  for (int i = 0; i < 3; ++i) bob->take();
  const auto bob_join = parse_json(alice->take_text()).as_array();

  bob->send(R"(["1","2","presence:room","phx_leave",{}])");
  EXPECT_FRAME(bob->take_text(), R"(["1","2","presence:room","phx_reply",{"response":{},"status":"ok"}])");
  EXPECT_FRAME(bob->take_text(), R"(["1","1","presence:room","phx_close",{}])");
  // As recorded: the leaver still gets its own leave diff (phoenix.js drops it).
  const auto own_leave = parse_json(bob->take_text()).as_array();
  EXPECT_EQ(own_leave[3], "presence_diff");
  const auto leave = parse_json(alice->take_text()).as_array();
  EXPECT_EQ(leave, own_leave);
  EXPECT_EQ(leave[4].at("joins"), boost::json::object());
  EXPECT_EQ(leave[4].at("leaves"), bob_join[4].at("joins"));
  const auto state = parse_json(world.presence.state_json("presence:room")).as_object();
  EXPECT_TRUE(state.contains("alice"));
  EXPECT_FALSE(state.contains("bob"));
}

TEST(ChannelsSessionPresence, DisconnectingBroadcastsTheLeaveToTheOthers) {
  SessionWorld world;
  auto alice = world.v2();
  auto bob = world.v2();
  alice->send(R"(["1","1","presence:room","phx_join",{"user_id":"alice"}])");
  for (int i = 0; i < 3; ++i) alice->take();
  bob->send(R"(["1","1","presence:room","phx_join",{"user_id":"bob"}])");
  for (int i = 0; i < 3; ++i) bob->take();
  alice->take();

  bob->session.handle_disconnect();
  EXPECT_TRUE(bob->idle());
  const auto leave = parse_json(alice->take_text()).as_array();
  EXPECT_TRUE(leave[4].at("leaves").as_object().contains("bob"));
  EXPECT_FALSE(parse_json(world.presence.state_json("presence:room")).as_object().contains("bob"));
}

TEST(ChannelsSessionPresence, TheKeyIsTheJoinUserIdElseTheSocketsElseAGeneratedOne) {
  SessionWorld world;
  auto from_payload = world.v2("socket-user");
  from_payload->send(R"(["1","1","presence:a","phx_join",{"user_id":7}])");
  from_payload->take();
  EXPECT_TRUE(parse_json(from_payload->take_text()).as_array()[4].at("joins").as_object().contains("7"));

  auto from_socket = world.v2("socket-user");
  from_socket->send(R"(["1","1","presence:b","phx_join",{}])");
  from_socket->take();
  EXPECT_TRUE(parse_json(from_socket->take_text()).as_array()[4].at("joins").as_object().contains("socket-user"));

  auto anonymous = world.v2();
  anonymous->send(R"(["1","1","presence:c","phx_join",{}])");
  anonymous->take();
  const auto joins = parse_json(anonymous->take_text()).as_array()[4].at("joins").as_object();
  ASSERT_EQ(joins.size(), 1u);
  EXPECT_EQ(std::string(joins.begin()->key()).rfind("anonymous-", 0), 0u);
}

TEST(ChannelsSessionPresence, TwoSocketsOfOneUserAreTwoMetasUnderOneKey) {
  SessionWorld world;
  auto first = world.v2();
  auto second = world.v2();
  first->send(R"(["1","1","presence:room","phx_join",{"user_id":"ann"}])");
  second->send(R"(["1","1","presence:room","phx_join",{"user_id":"ann"}])");
  const auto state = parse_json(world.presence.state_json("presence:room"));
  EXPECT_EQ(state.at("ann").at("metas").as_array().size(), 2u);
}

TEST(ChannelsSessionPresence, EventsOnAPresenceChannelGetNoReply) {
  SessionWorld world;
  auto peer = world.v2();
  peer->send(R"(["1","1","presence:room","phx_join",{}])");
  for (int i = 0; i < 3; ++i) peer->take();
  peer->send(R"(["1","2","presence:room","anything",{}])");
  EXPECT_TRUE(peer->idle());
}

TEST(PresenceRegistry, StateAndDiffShapes) {
  PresenceRegistry registry;
  EXPECT_EQ(registry.state_json("presence:x"), "{}");
  const auto state = registry.track("presence:x", "a\"b", PresenceMeta{"AAAAAAAAAAAAAAAA", 1719830000});
  EXPECT_FRAME(state, R"({"a\"b":{"metas":[{"online_at":"1719830000","phx_ref":"AAAAAAAAAAAAAAAA"}]}})");
  EXPECT_FRAME(presence_diff_json("k", PresenceMeta{"r", 5}, true),
               R"({"joins":{"k":{"metas":[{"online_at":"5","phx_ref":"r"}]}},"leaves":{}})");
  EXPECT_FRAME(presence_diff_json("k", PresenceMeta{"r", 5}, false),
               R"({"joins":{},"leaves":{"k":{"metas":[{"online_at":"5","phx_ref":"r"}]}}})");
  EXPECT_FALSE(registry.untrack("presence:x", "a\"b", "other"));
  EXPECT_TRUE(registry.untrack("presence:x", "a\"b", "AAAAAAAAAAAAAAAA"));
  EXPECT_EQ(registry.state_json("presence:x"), "{}");
}

}  // namespace
}  // namespace stampede::target
