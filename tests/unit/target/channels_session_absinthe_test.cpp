// __absinthe__:control in ChannelsSession: doc -> subscriptionId, subscription:data pushes on
// the session's time (driven by hand here), unsubscribe, and the document helpers.
#include <gtest/gtest.h>

#include <regex>

#include "target/absinthe_document.hpp"
#include "target/session_fixture.hpp"

namespace stampede::target {
namespace {

using testing::parse_json;
using testing::SessionWorld;

constexpr std::string_view kDoc =
    R"(["1","2","__absinthe__:control","doc",{"query":"subscription($postId: ID!) { commentAdded(postId: $postId) { id body } }","variables":{"postId":"42","interval_ms":100}}])";

// Joins the control channel and subscribes kDoc at `now`; returns the subscription id.
std::string subscribe(testing::Peer& peer, Nanos now) {
  peer.send(R"(["1","1","__absinthe__:control","phx_join",{}])", now);
  EXPECT_FRAME(peer.take_text(), R"(["1","1","__absinthe__:control","phx_reply",{"response":{},"status":"ok"}])");
  peer.send(kDoc, now);
  const auto reply = parse_json(peer.take_text()).as_array();
  EXPECT_EQ(reply[0], "1");
  EXPECT_EQ(reply[1], "2");
  EXPECT_EQ(reply[3], "phx_reply");
  EXPECT_EQ(reply[4].at("status"), "ok");
  return std::string(reply[4].at("response").at("subscriptionId").as_string());
}

TEST(ChannelsSessionAbsinthe, DocRepliesWithASubscriptionIdShapedLikeAbsinthes) {
  SessionWorld world;
  auto peer = world.v2();
  const auto id = subscribe(*peer, 0);
  EXPECT_TRUE(std::regex_match(id, std::regex("__absinthe__:doc:[0-9]+:[0-9A-F]{64}"))) << id;
  EXPECT_EQ(peer->session.subscription_count(), 1u);
}

TEST(ChannelsSessionAbsinthe, DataIsPushedOnTheSubscriptionTopicEveryInterval) {
  SessionWorld world;
  auto peer = world.v2();
  const auto id = subscribe(*peer, 1000 * kMilli);
  EXPECT_EQ(peer->session.next_due(), std::optional<Nanos>(1100 * kMilli));

  peer->session.handle_time(1099 * kMilli);
  EXPECT_TRUE(peer->idle());
  peer->session.handle_time(1100 * kMilli);
  const auto push = parse_json(peer->take_text()).as_array();
  EXPECT_TRUE(push[0].is_null());
  EXPECT_TRUE(push[1].is_null());
  EXPECT_EQ(push[2], id.c_str());
  EXPECT_EQ(push[3], "subscription:data");
  EXPECT_EQ(push[4], parse_json(R"({"result":{"data":{"commentAdded":{"seq":1}}},"subscriptionId":")" + id + R"("})"));
  EXPECT_EQ(peer->session.next_due(), std::optional<Nanos>(1200 * kMilli));

  // A loop that stalled for a second catches up with one push, not ten.
  peer->session.handle_time(2250 * kMilli);
  EXPECT_EQ(parse_json(peer->take_text()).as_array()[4].at("result").at("data").at("commentAdded").at("seq"), 2);
  EXPECT_TRUE(peer->idle());
  EXPECT_EQ(peer->session.next_due(), std::optional<Nanos>(2350 * kMilli));
}

TEST(ChannelsSessionAbsinthe, UnsubscribeRepliesWithTheIdAndStopsThePushes) {
  SessionWorld world;
  auto peer = world.v2();
  const auto id = subscribe(*peer, 0);
  peer->send(R"(["1","3","__absinthe__:control","unsubscribe",{"subscriptionId":")" + id + R"("}])");
  EXPECT_FRAME(peer->take_text(), R"(["1","3","__absinthe__:control","phx_reply",{"response":{"subscriptionId":")" + id +
                                      R"("},"status":"ok"}])");
  EXPECT_EQ(peer->session.next_due(), std::nullopt);
  peer->session.handle_time(10 * kSecond);
  EXPECT_TRUE(peer->idle());
}

TEST(ChannelsSessionAbsinthe, LeavingTheControlChannelEndsItsSubscriptions) {
  SessionWorld world;
  auto peer = world.v2();
  subscribe(*peer, 0);
  peer->send(R"(["1","3","__absinthe__:control","phx_leave",{}])");
  peer->take();
  peer->take();
  EXPECT_EQ(peer->session.subscription_count(), 0u);
  EXPECT_EQ(peer->session.next_due(), std::nullopt);
}

TEST(ChannelsSessionAbsinthe, DefaultIntervalIsOneSecondAndVariablesMayBeNull) {
  SessionWorld world;
  auto peer = world.v1();
  peer->send(R"({"topic":"__absinthe__:control","event":"phx_join","payload":{},"ref":"1"})");
  peer->take();
  peer->send(R"({"topic":"__absinthe__:control","event":"doc","payload":{"query":"subscription { ticks { n } }","variables":null},"ref":"2"})",
             5 * kSecond);
  const auto reply = parse_json(peer->take_text()).as_object();
  EXPECT_EQ(reply.at("payload").at("status"), "ok");
  EXPECT_EQ(peer->session.next_due(), std::optional<Nanos>(6 * kSecond));
  peer->session.handle_time(6 * kSecond);
  const auto push = parse_json(peer->take_text()).as_object();
  EXPECT_EQ(push.at("event"), "subscription:data");
  EXPECT_TRUE(push.at("ref").is_null());
  EXPECT_EQ(push.at("payload").at("result").at("data").at("ticks").at("seq"), 1);
}

TEST(ChannelsSessionAbsinthe, BadDocumentsGetErrorReplies) {
  SessionWorld world;
  auto peer = world.v2();
  peer->send(R"(["1","1","__absinthe__:control","phx_join",{}])");
  peer->take();
  peer->send(R"(["1","2","__absinthe__:control","doc",{"query":"subscription { a }","variables":[1]}])");
  EXPECT_FRAME(peer->take_text(),
               R"(["1","2","__absinthe__:control","phx_reply",{"response":{"error":"Could not parse variables as map"},"status":"error"}])");
  peer->send(R"(["1","3","__absinthe__:control","doc",{"query":"query { posts { id } }"}])");
  const auto query_reply = parse_json(peer->take_text()).as_array();
  EXPECT_EQ(query_reply[4].at("status"), "error");
  EXPECT_TRUE(query_reply[4].at("response").at("errors").is_array());
  peer->send(R"(["1","4","__absinthe__:control","doc",{}])");
  EXPECT_EQ(parse_json(peer->take_text()).as_array()[4].at("status"), "error");
  EXPECT_EQ(peer->session.subscription_count(), 0u);
  EXPECT_EQ(peer->session.channel_count(), 1u);
}

TEST(ChannelsSessionAbsinthe, EventsWithoutAHandlerCrashTheControlChannel) {
  SessionWorld world;
  auto peer = world.v2();
  subscribe(*peer, 0);
  peer->send(R"(["1","3","__absinthe__:control","unsubscribe",{}])");
  EXPECT_FRAME(peer->take_text(), R"(["1","1","__absinthe__:control","phx_error",{}])");
  EXPECT_EQ(peer->session.subscription_count(), 0u);
}

TEST(AbsintheDocument, FindsTheRootFieldOfSubscriptionsOnly) {
  EXPECT_EQ(subscription_root_field("subscription { a { b } }"), "a");
  EXPECT_EQ(subscription_root_field("  # comment\n subscription Named($x: In = {k: \"{\"}) @dir { alias: field(x: $x) }"),
            "alias");
  EXPECT_EQ(subscription_root_field("query { a }"), std::nullopt);
  EXPECT_EQ(subscription_root_field("{ a }"), std::nullopt);
  EXPECT_EQ(subscription_root_field("subscription"), std::nullopt);
  EXPECT_EQ(subscription_root_field("subscription { ...F }"), std::nullopt);
  EXPECT_EQ(subscription_root_field("subscription ( \"\\"), std::nullopt);
}

TEST(AbsintheDocument, DocumentIdIsUppercaseSha256OfDocumentAndVariables) {
  // sha256("abc")
  EXPECT_EQ(absinthe_document_id("ab", "c"), "BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD");
}

TEST(AbsintheDocument, IntervalIsClamped) {
  const auto interval = [](std::string_view variables) {
    return subscription_interval(parse_json(variables).as_object());
  };
  EXPECT_EQ(interval("{}"), 1000 * kMilli);
  EXPECT_EQ(interval(R"({"interval_ms":250})"), 250 * kMilli);
  EXPECT_EQ(interval(R"({"interval_ms":"40"})"), 40 * kMilli);
  EXPECT_EQ(interval(R"({"interval_ms":1})"), 10 * kMilli);
  EXPECT_EQ(interval(R"({"interval_ms":-5})"), 10 * kMilli);
  EXPECT_EQ(interval(R"({"interval_ms":1e300})"), 60 * kSecond);
  EXPECT_EQ(interval(R"({"interval_ms":"x"})"), 1000 * kMilli);
  EXPECT_EQ(interval(R"({"interval_ms":true})"), 1000 * kMilli);
}

}  // namespace
}  // namespace stampede::target
