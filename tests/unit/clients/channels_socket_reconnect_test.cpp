// A Phoenix socket whose connection was lost and comes back (ChannelsSocket::on_connection_lost,
// then on_open), without a network: what phoenix.js does then, frame by frame. When the
// reconnect happens is phoenix_reconnect_test's (plain times); PhoenixConnection arms it.
#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <optional>
#include <string>
#include <vector>

#include "clients/channels_socket.hpp"
#include "clients/channels_socket_harness.hpp"

namespace stampede::clients {
namespace {

namespace phx = proto::phx;

ChannelsOptions reconnecting() {
  ChannelsOptions options = ChannelsSocketHarness::without_heartbeat();
  options.reconnect = true;
  return options;
}

class ChannelsSocketReconnectTest : public ::testing::Test, public ChannelsSocketHarness {
 protected:
  ChannelsSocketReconnectTest() : ChannelsSocketHarness(reconnecting()) {}

  void reply(const phx::Message& to, const std::string& status) {
    socket->on_frame("[\"" + to.join_ref.value_or("") + "\",\"" + *to.ref + "\",\"" + to.topic +
                         "\",\"phx_reply\",{\"status\":\"" + status + "\",\"response\":{}}]",
                     false);
  }
  // Joins `topic` with `payload`; the server says ok.
  phx::Message joined(const std::string& topic, const std::string& payload) {
    socket->join(topic, payload, 0, [](const ChannelReply&) {});
    const phx::Message join = last_sent();
    reply(join, "ok");
    EXPECT_TRUE(socket->joined(topic));
    return join;
  }
  std::uint64_t counted(const char* name, const char* reason = nullptr) {
    metrics::MetricId id = 0;
    if (!registry.find(name, id)) return 0;
    const auto& m = snap.metrics[id];
    if (reason == nullptr) return m.count;
    const auto it = m.reasons.find(reason);
    return it == m.reasons.end() ? 0 : it->second;
  }

  metrics::Snapshot snap;
};

TEST_F(ChannelsSocketReconnectTest, RequestsInFlightFailClosedAndJoinedChannelsRejoinWithTheirPayload) {
  const phx::Message first = joined("room:1", R"({"user":"u1"})");
  std::optional<ChannelReply> push;
  socket->push("room:1", "msg", "{}", false, 0, [&](const ChannelReply& r) { push = r; });
  socket->on_connection_lost("3410 session_gone");
  // The push's reply went with the server's session.
  ASSERT_TRUE(push);
  EXPECT_EQ(push->failure, "closed");
  EXPECT_NE(push->message.find("session_gone"), std::string::npos);
  EXPECT_FALSE(socket->is_open());
  EXPECT_TRUE(socket->reconnecting());
  EXPECT_FALSE(socket->is_closed());
  EXPECT_FALSE(socket->joined("room:1"));
  EXPECT_TRUE(closed_with.empty());  // nothing was closed: the owner reconnects

  sent.clear();
  socket->on_open();
  ASSERT_EQ(sent.size(), 1u);
  const phx::Message rejoin = last_sent();
  EXPECT_EQ(rejoin.event, "phx_join");
  EXPECT_EQ(rejoin.topic, "room:1");
  EXPECT_EQ(rejoin.payload, R"({"user":"u1"})");
  ASSERT_TRUE(rejoin.join_ref && rejoin.ref);
  EXPECT_EQ(*rejoin.join_ref, *rejoin.ref);
  EXPECT_NE(*rejoin.join_ref, *first.join_ref);
  reply(rejoin, "ok");
  EXPECT_TRUE(socket->joined("room:1"));
  snap = sink.take(0);
  EXPECT_EQ(counted("channel.rejoin"), 1u);
  EXPECT_EQ(counted("channel.join"), 1u);  // the scenario's own join only
  EXPECT_EQ(counted("channel.push.errors", "closed"), 1u);

  // Broadcasts of the new join arrive; a stale push of the old join does not.
  socket->on_frame("[\"" + *first.join_ref + "\",null,\"room:1\",\"old\",{}]", false);
  socket->on_frame("[\"" + *rejoin.join_ref + "\",null,\"room:1\",\"new\",{}]", false);
  EXPECT_EQ(socket->find("room:1", "old", 0), nullptr);
  EXPECT_NE(socket->find("room:1", "new", 0), nullptr);
}

TEST_F(ChannelsSocketReconnectTest, PushesMadeWhileReconnectingWaitForTheRejoinAndCarryItsJoinRef) {
  joined("room:1", "{}");
  socket->on_connection_lost("1011 internal server error");
  sent.clear();
  std::vector<ChannelReply> replies;
  socket->push("room:1", "a", R"({"n":1})", false, 0, [&](const ChannelReply& r) { replies.push_back(r); });
  socket->push("room:1", "b", R"({"n":2})", false, 0, [&](const ChannelReply& r) { replies.push_back(r); });
  drain();
  EXPECT_TRUE(sent.empty());
  EXPECT_TRUE(replies.empty());  // waiting, not failed

  socket->on_open();
  ASSERT_EQ(sent.size(), 1u);  // the rejoin only: the pushes wait for its reply
  const phx::Message rejoin = last_sent();
  reply(rejoin, "ok");
  ASSERT_EQ(sent.size(), 3u);
  const phx::Message a = decode(sent[1]);
  const phx::Message b = decode(sent[2]);
  EXPECT_EQ(a.event, "a");
  EXPECT_EQ(b.event, "b");  // in the order they were made
  EXPECT_EQ(a.join_ref, rejoin.join_ref);
  EXPECT_EQ(b.join_ref, rejoin.join_ref);
  reply(a, "ok");
  reply(b, "ok");
  ASSERT_EQ(replies.size(), 2u);
  EXPECT_TRUE(replies[0].ok());
  EXPECT_TRUE(replies[1].ok());
}

TEST_F(ChannelsSocketReconnectTest, ARefusedRejoinIsCountedAndItsPushesKeepWaiting) {
  joined("room:1", "{}");
  socket->on_connection_lost("gone");
  std::optional<ChannelReply> push;
  socket->push("room:1", "a", "{}", false, 0, [&](const ChannelReply& r) { push = r; });
  sent.clear();
  socket->on_open();
  reply(last_sent(), "error");
  snap = sink.take(0);
  EXPECT_EQ(counted("channel.rejoin.errors", "refused"), 1u);
  EXPECT_FALSE(socket->joined("room:1"));
  drain();
  // No second rejoin at once (phoenix.js waits rejoinAfterMs: 1 s first), the push not sent.
  EXPECT_EQ(sent.size(), 1u);
  EXPECT_FALSE(push);
}

TEST_F(ChannelsSocketReconnectTest, AJoinInFlightFailsAndIsNotRejoined) {
  std::optional<ChannelReply> join;
  socket->join("room:1", "{}", 0, [&](const ChannelReply& r) { join = r; });
  socket->on_connection_lost("gone");
  ASSERT_TRUE(join);
  EXPECT_EQ(join->failure, "closed");
  sent.clear();
  socket->on_open();
  EXPECT_TRUE(sent.empty());
}

TEST_F(ChannelsSocketReconnectTest, AJoinMadeWhileReconnectingGoesOnceOpenAndALeaveIsOkAtOnce) {
  joined("room:1", "{}");
  socket->on_connection_lost("gone");
  sent.clear();
  std::optional<ChannelReply> left;
  socket->leave("room:1", 0, [&](const ChannelReply& r) { left = r; });
  drain();
  ASSERT_TRUE(left);  // phoenix.js: a leave it cannot push is ok at once
  EXPECT_TRUE(left->ok());
  std::optional<ChannelReply> join;
  socket->join("room:2", "{}", 0, [&](const ChannelReply& r) { join = r; });
  EXPECT_TRUE(sent.empty());
  socket->on_open();
  ASSERT_EQ(sent.size(), 1u);  // room:1 left: only room:2's join
  const phx::Message j = last_sent();
  EXPECT_EQ(j.topic, "room:2");
  reply(j, "ok");
  ASSERT_TRUE(join);
  EXPECT_TRUE(join->ok());
  EXPECT_TRUE(socket->joined("room:2"));
}

TEST_F(ChannelsSocketReconnectTest, ClosingWhileReconnectingFailsWhatWaits) {
  joined("room:1", "{}");
  socket->on_connection_lost("gone");
  std::optional<ChannelReply> push;
  socket->push("room:1", "a", "{}", false, 0, [&](const ChannelReply& r) { push = r; });
  std::optional<bool> awaited;
  socket->wait_message("room:1", "news", 0, 0, [&](const ChannelMessage* m) { awaited = m != nullptr; });
  drain();
  EXPECT_FALSE(awaited);  // an await waits through a reconnect
  socket->close("the iteration ended");
  ASSERT_TRUE(push);
  EXPECT_EQ(push->failure, "closed");
  ASSERT_TRUE(awaited);
  EXPECT_FALSE(*awaited);
  EXPECT_TRUE(socket->is_closed());
  EXPECT_FALSE(socket->reconnecting());
  sent.clear();
  socket->on_open();  // too late: closed for good
  EXPECT_TRUE(sent.empty());
  EXPECT_FALSE(socket->is_open());
}

// What LiveView needs from a rejoin (ChannelsSocket::RejoinHooks): told when the connection
// went, a payload built afresh for each rejoin, each rejoin's reply before the pushes that
// waited for it go, and a leave from a hook that calls the rejoin off.
TEST_F(ChannelsSocketReconnectTest, RejoinHooksBuildEachPayloadAndSeeEachReplyBeforeTheWaitingPushes) {
  std::vector<std::string> log;
  int payloads = 0;
  ChannelsSocket::RejoinHooks hooks;
  hooks.errored = [&](const std::string& reason) { log.push_back("errored " + reason); };
  hooks.payload = [&] { return R"({"mounts":)" + std::to_string(++payloads) + "}"; };
  hooks.rejoined = [&](const ChannelReply& r) {
    log.push_back("rejoined " + (r.failure.empty() ? r.status : r.failure) + " with " + std::to_string(sent.size()) +
                  " sent");
  };
  socket->join("lv:1", R"({"mounts":0})", 0, [](const ChannelReply&) {}, hooks);
  reply(last_sent(), "ok");

  socket->on_connection_lost("3410 session_gone");
  ASSERT_EQ(log, (std::vector<std::string>{"errored 3410 session_gone"}));
  EXPECT_TRUE(socket->joined_or_rejoining("lv:1"));
  EXPECT_FALSE(socket->joined("lv:1"));
  std::optional<ChannelReply> event;
  socket->push("lv:1", "event", "{}", false, 0, [&](const ChannelReply& r) { event = r; });
  sent.clear();
  socket->on_open();
  ASSERT_EQ(sent.size(), 1u);
  const phx::Message rejoin = last_sent();
  EXPECT_EQ(rejoin.payload, R"({"mounts":1})");  // built now, not the join's
  reply(rejoin, "ok");
  // The hook saw the reply while only the rejoin was sent; the event went right after it.
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[1], "rejoined ok with 1 sent");
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(decode(sent[1]).event, "event");
  EXPECT_EQ(decode(sent[1]).join_ref, rejoin.join_ref);

  // A second loss: errored again, and the next rejoin's payload is built again.
  socket->on_connection_lost("3410 session_gone");
  EXPECT_EQ(log.size(), 3u);
  ASSERT_TRUE(event);
  EXPECT_EQ(event->failure, "closed");  // in flight when the connection went
  sent.clear();
  socket->on_open();
  EXPECT_EQ(last_sent().payload, R"({"mounts":2})");
}

TEST_F(ChannelsSocketReconnectTest, AHookThatLeavesARefusedChannelCallsItsRejoinOffAndFailsItsWaitingPushes) {
  ChannelsSocket::RejoinHooks hooks;
  hooks.rejoined = [&](const ChannelReply& r) {
    if (r.status == "error") socket->leave("lv:1", 0, nullptr);  // LiveView: the view is gone
  };
  socket->join("lv:1", "{}", 0, [](const ChannelReply&) {}, hooks);
  reply(last_sent(), "ok");
  socket->on_connection_lost("gone");
  std::optional<ChannelReply> event;
  socket->push("lv:1", "event", "{}", false, 0, [&](const ChannelReply& r) { event = r; });
  sent.clear();
  socket->on_open();
  reply(last_sent(), "error");
  EXPECT_FALSE(socket->joined_or_rejoining("lv:1"));
  drain();
  ASSERT_TRUE(event);
  EXPECT_EQ(event->failure, "channel_closed");
  EXPECT_EQ(sent.size(), 1u);  // the event never went
}

TEST_F(ChannelsSocketReconnectTest, AnErroredHookThatLeavesAnotherChannelSkipsThatChannelsHook) {
  // LiveView: a parent's error destroys its nested views, which are then not rejoined.
  std::vector<std::string> errored;
  ChannelsSocket::RejoinHooks parent;
  parent.errored = [&](const std::string&) {
    errored.push_back("parent");
    socket->leave("lv:child", 0, nullptr);
  };
  ChannelsSocket::RejoinHooks child;
  child.errored = [&](const std::string&) { errored.push_back("child"); };
  socket->join("lv:parent", "{}", 0, [](const ChannelReply&) {}, parent);
  reply(last_sent(), "ok");
  socket->join("lv:child", "{}", 0, [](const ChannelReply&) {}, child);
  reply(last_sent(), "ok");
  socket->on_connection_lost("gone");
  EXPECT_EQ(errored, (std::vector<std::string>{"parent"}));
  sent.clear();
  socket->on_open();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(last_sent().topic, "lv:parent");
}

}  // namespace
}  // namespace stampede::clients
