// The Phoenix socket's protocol rules, without a network: frames in, frames out.
#include "clients/channels_socket.hpp"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/json/parse.hpp>

#include "clients/channels_socket_harness.hpp"

namespace stampede::clients {
namespace {

namespace phx = proto::phx;

class ChannelsSocketTest : public ::testing::Test, public ChannelsSocketHarness {
 protected:
  ChannelsSocketTest() : ChannelsSocketHarness(without_heartbeat()) {}

  void receive(const std::string& frame) { socket->on_frame(frame, false); }
};

TEST_F(ChannelsSocketTest, JoinRefEqualsTheJoinsRefAndTravelsWithEveryPush) {
  std::optional<ChannelReply> joined;
  socket->join("room:1", "{}", 0, [&](const ChannelReply& r) { joined = r; });
  const auto join = last_sent();
  ASSERT_TRUE(join.join_ref && join.ref);
  EXPECT_EQ(*join.join_ref, *join.ref);
  receive(R"([")" + *join.ref + R"(",")" + *join.ref + R"(","room:1","phx_reply",{"status":"ok","response":{"a":1}}])");
  ASSERT_TRUE(joined);
  EXPECT_TRUE(joined->ok());
  EXPECT_EQ(boost::json::parse(joined->response), boost::json::parse(R"({"a":1})"));

  socket->push("room:1", "msg", "{}", false, 0, [](const ChannelReply&) {});
  const auto push = last_sent();
  EXPECT_EQ(push.join_ref, join.join_ref);
  EXPECT_NE(push.ref, join.ref);
}

TEST_F(ChannelsSocketTest, OldJoinsPhxCloseAfterADuplicateJoinKeepsTheNewChannel) {
  socket->join("room:1", "{}", 0, [](const ChannelReply&) {});
  const std::string old_ref = *last_sent().ref;
  receive("[\"" + old_ref + "\",\"" + old_ref + "\",\"room:1\",\"phx_reply\",{\"status\":\"ok\",\"response\":{}}]");
  socket->join("room:1", "{}", 0, [](const ChannelReply&) {});
  const std::string new_ref = *last_sent().ref;
  receive("[\"" + new_ref + "\",\"" + new_ref + "\",\"room:1\",\"phx_reply\",{\"status\":\"ok\",\"response\":{}}]");
  receive("[\"" + old_ref + "\",\"" + old_ref + "\",\"room:1\",\"phx_close\",{}]");
  EXPECT_TRUE(socket->joined("room:1"));
}

TEST_F(ChannelsSocketTest, StaleMessagesAreDroppedAndBroadcastsKept) {
  socket->join("room:1", "{}", 0, [](const ChannelReply&) {});
  const std::string ref = *last_sent().ref;
  receive("[\"" + ref + "\",\"" + ref + "\",\"room:1\",\"phx_reply\",{\"status\":\"ok\",\"response\":{}}]");
  receive(R"(["999",null,"room:1","old",{}])");      // another join's push: stale
  receive(R"([null,null,"room:1","news",{"n":1}])");  // broadcast
  EXPECT_EQ(socket->find("room:1", "old", 0), nullptr);
  ASSERT_NE(socket->find("room:1", "news", 0), nullptr);
  // A topic never joined still gets join_ref-less pushes (Absinthe's subscription:data).
  receive(R"([null,null,"__absinthe__:doc:1:AB","subscription:data",{"result":{}}])");
  EXPECT_NE(socket->find("__absinthe__:doc:1:AB", "subscription:data", 0), nullptr);
}

TEST_F(ChannelsSocketTest, PhxErrorFailsEveryPendingPushOfThatChannelAtOnce) {
  socket->join("room:1", "{}", 0, [](const ChannelReply&) {});
  const std::string ref = *last_sent().ref;
  receive("[\"" + ref + "\",\"" + ref + "\",\"room:1\",\"phx_reply\",{\"status\":\"ok\",\"response\":{}}]");
  std::vector<std::string> failures;
  for (int i = 0; i < 3; ++i)
    socket->push("room:1", "slow", "{}", false, 0, [&](const ChannelReply& r) { failures.push_back(r.failure); });
  receive("[\"" + ref + "\",\"" + ref + "\",\"room:1\",\"phx_error\",{\"reason\":\"channel_crash\"}]");
  ASSERT_EQ(failures.size(), 3u);
  for (const auto& f : failures) EXPECT_EQ(f, "channel_crashed");
  EXPECT_FALSE(socket->joined("room:1"));
}

TEST_F(ChannelsSocketTest, PhxCloseBeforeTheLeaveReplyStillCompletesTheLeave) {
  socket->join("room:1", "{}", 0, [](const ChannelReply&) {});
  const std::string ref = *last_sent().ref;
  receive("[\"" + ref + "\",\"" + ref + "\",\"room:1\",\"phx_reply\",{\"status\":\"ok\",\"response\":{}}]");
  std::optional<ChannelReply> left;
  socket->leave("room:1", 0, [&](const ChannelReply& r) { left = r; });
  receive("[\"" + ref + "\",\"" + ref + "\",\"room:1\",\"phx_close\",{}]");  // LiveView order
  ASSERT_TRUE(left);
  EXPECT_TRUE(left->ok());
}

TEST_F(ChannelsSocketTest, ClosingFailsEverythingPendingWithClosed) {
  std::optional<ChannelReply> joined;
  socket->join("room:1", "{}", 0, [&](const ChannelReply& r) { joined = r; });
  socket->on_closed("remote 1011");
  ASSERT_TRUE(joined);
  EXPECT_EQ(joined->failure, "closed");
  EXPECT_NE(joined->message.find("1011"), std::string::npos);
}

TEST_F(ChannelsSocketTest, GarbageFromTheServerClosesTheSocket) {
  std::optional<ChannelReply> joined;
  socket->join("room:1", "{}", 0, [&](const ChannelReply& r) { joined = r; });
  receive("not json at all");
  EXPECT_EQ(closed_with, "invalid Phoenix frame");
  ASSERT_TRUE(joined);
  EXPECT_EQ(joined->failure, "closed");
}

TEST_F(ChannelsSocketTest, BufferIsBoundedAndCountsWhatItDrops) {
  ChannelsOptions options;
  options.heartbeat_interval = 0;
  options.buffer_limit = 2;
  auto small = std::make_shared<ChannelsSocket>(ctx, options, [](std::string_view, bool) {}, [](std::uint16_t, std::string) {});
  small->on_open();
  for (int i = 0; i < 5; ++i) small->on_frame(R"([null,null,"t","e",{}])", false);
  EXPECT_EQ(small->find("t", "e", 0)->seq, 4u);
  const auto snap = sink.take(0);
  metrics::MetricId dropped = 0;
  ASSERT_TRUE(registry.find("channel.messages.dropped", dropped));
  EXPECT_EQ(snap.metrics[dropped].count, 3u);
}

TEST_F(ChannelsSocketTest, V1RepliesHaveNoJoinRef) {
  ChannelsOptions options;
  options.heartbeat_interval = 0;
  options.serializer = phx::Serializer::V1;
  std::vector<std::string> out;
  auto v1 = std::make_shared<ChannelsSocket>(ctx, options, [&](std::string_view d, bool) { out.emplace_back(d); },
                                             [](std::uint16_t, std::string) {});
  v1->on_open();
  std::optional<ChannelReply> joined;
  v1->join("room:1", "{}", 0, [&](const ChannelReply& r) { joined = r; });
  const auto sent_json = boost::json::parse(out.back()).as_object();
  const std::string ref = std::string(sent_json.at("ref").as_string());
  v1->on_frame(R"({"topic":"room:1","event":"phx_reply","payload":{"status":"ok","response":{}},"ref":")" + ref + "\"}",
               false);
  ASSERT_TRUE(joined);
  EXPECT_TRUE(joined->ok());
  EXPECT_TRUE(v1->joined("room:1"));
}

// Over LongPoll a POST carries one message per line: a custom serializer's frame with a line
// break is refused before anything is sent or pending.
TEST(ChannelsSocketOneLineFrames, AFrameWithALineBreakIsRefusedBeforeItIsSent) {
  boost::asio::io_context io;
  SteadyClock clock;
  metrics::Registry registry;
  metrics::MetricSink sink(registry);
  ClientContext ctx(io, sink, clock);
  ChannelsOptions options;
  options.heartbeat_interval = 0;
  options.one_line_frames = true;
  options.custom_encode = [](const phx::Message& m) {
    phx::Frame f;
    f.data = m.event == "pretty" ? "{\n  \"event\": \"pretty\"\n}" : phx::encode(m, phx::Serializer::V2, phx::Direction::ClientToServer).data;
    return f;
  };
  std::vector<std::string> sent;
  auto socket = std::make_shared<ChannelsSocket>(
      ctx, options, [&sent](std::string_view data, bool) { sent.emplace_back(data); }, [](std::uint16_t, std::string) {});
  socket->on_open();
  bool called = false;
  EXPECT_THROW(socket->push("room:a", "pretty", "{}", false, 0, [&called](const ChannelReply&) { called = true; }),
               std::invalid_argument);
  EXPECT_TRUE(sent.empty());
  socket->push("room:a", "plain", "{}", false, 0, [](const ChannelReply&) {});
  EXPECT_EQ(sent.size(), 1u);
  io.poll();
  EXPECT_FALSE(called);
}

}  // namespace
}  // namespace stampede::clients
