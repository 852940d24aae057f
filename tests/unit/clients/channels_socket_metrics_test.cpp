// A channels socket driven by another client (LiveView) records no channel.* metric of its own,
// so that one user action is not counted under two names; its requests still count once.
#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <memory>
#include <string>
#include <vector>

#include "clients/channels_socket.hpp"
#include "clients/channels_socket_harness.hpp"

namespace stampede::clients {
namespace {

namespace phx = proto::phx;

constexpr const char* kChannelMetrics[] = {"channel.join",     "channel.join.errors",       "channel.push",
                                           "channel.push.errors", "channel.leave",          "channel.leave.errors",
                                           "channel.messages", "channel.messages.dropped", "channel.heartbeat",
                                           "channel.heartbeat.timeouts"};

// One socket with its own registry: joins room:1 (ok), pushes twice (one ok, one error reply),
// and receives a broadcast.
ChannelsOptions recording(bool record_metrics) {
  ChannelsOptions options = ChannelsSocketHarness::without_heartbeat();
  options.record_metrics = record_metrics;
  return options;
}

struct Session : ChannelsSocketHarness {
  explicit Session(bool record_metrics) : ChannelsSocketHarness(recording(record_metrics)) {
    socket->join("room:1", "{}", 0, [this](const ChannelReply& r) { replies.push_back(r.ok()); });
    reply("ok");
    socket->push("room:1", "a", "{}", false, 0, [this](const ChannelReply& r) { replies.push_back(r.ok()); });
    reply("ok");
    socket->push("room:1", "b", "{}", false, 0, [this](const ChannelReply& r) { replies.push_back(r.ok()); });
    reply("error");
    socket->on_frame(R"([null,null,"room:1","news",{}])", false);
  }

  // Answers the last frame sent with `status`.
  void reply(const std::string& status) {
    const phx::Message m = last_sent();
    socket->on_frame(R"([")" + *m.join_ref + R"(",")" + *m.ref + R"(","room:1","phx_reply",{"status":")" + status +
                         R"(","response":{}}])",
                     false);
  }

  bool registered(const char* name) {
    metrics::MetricId id = 0;
    return registry.find(name, id);
  }

  std::vector<bool> replies;
};

TEST(ChannelsSocketMetrics, OffRegistersAndRecordsNoChannelMetricButCountsEveryRequest) {
  Session s(false);
  EXPECT_EQ(s.replies, (std::vector<bool>{true, true, false}));
  for (const char* name : kChannelMetrics) EXPECT_FALSE(s.registered(name)) << name;
  const auto snap = s.sink.take(0);
  EXPECT_EQ(snap.requests.sent, 3u);
  EXPECT_EQ(snap.requests.completed, 2u);
  EXPECT_EQ(snap.requests.failed, 1u);
  EXPECT_EQ(s.socket->find("room:1", "news", 0)->event, "news");  // messages are still delivered
}

TEST(ChannelsSocketMetrics, OnByDefaultRecordsThem) {
  Session s(true);
  const auto snap = s.sink.take(0);
  metrics::MetricId join = 0, push = 0, push_errors = 0, messages = 0;
  ASSERT_TRUE(s.registry.find("channel.join", join));
  ASSERT_TRUE(s.registry.find("channel.push", push));
  ASSERT_TRUE(s.registry.find("channel.push.errors", push_errors));
  ASSERT_TRUE(s.registry.find("channel.messages", messages));
  EXPECT_EQ(snap.metrics[join].count, 1u);
  EXPECT_EQ(snap.metrics[push].count, 2u);
  EXPECT_EQ(snap.metrics[push_errors].count, 1u);
  EXPECT_EQ(snap.metrics[messages].count, 1u);
  EXPECT_EQ(snap.requests.sent, 3u);
}

}  // namespace
}  // namespace stampede::clients
