// Phoenix channels over real WebSockets against a running TargetServer: the behaviours of
// ChannelsSession once more end to end (both serializers, binary frames, broadcasts between
// sockets and between workers, presence, Absinthe on the socket's timer, a crashing frame),
// and the GET /__channels counters.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <memory>
#include <vector>

#include "target/loopback_client.hpp"
#include "target/target_server.hpp"
#include "target/ws_test_client.hpp"

namespace stampede::target {
namespace {

namespace json = boost::json;
using testing::LoopbackClient;
using testing::Received;
using testing::WsTestClient;
using std::chrono::milliseconds;

std::unique_ptr<TargetServer> start_channels_server(unsigned threads = 1) {
  TargetOptions options;
  options.listen.port = 0;
  options.seed = 1;
  options.threads = threads;
  auto server = std::make_unique<TargetServer>(options);
  server->start();
  return server;
}

json::array next_v2(WsTestClient& client) { return json::parse(client.next_text()).as_array(); }

std::unique_ptr<WsTestClient> joined_v2(std::uint16_t port, const std::string& topic, std::string_view user = "u") {
  auto client = std::make_unique<WsTestClient>(port);
  client->open("/socket/websocket?user_id=" + std::string(user) + "&vsn=2.0.0");
  client->send_text(R"(["1","1",")" + topic + R"(","phx_join",{}])");
  const auto reply = next_v2(*client);
  EXPECT_EQ(reply.at(4).at("status"), "ok");
  return client;
}

TEST(ChannelsLoopback, JoinPushReplyAndHeartbeatOverV2) {
  auto server = start_channels_server();
  auto client = joined_v2(server->port(), "room:lobby");
  client->send_text(R"(["1","2","room:lobby","ping",{"n":42}])");
  EXPECT_EQ(next_v2(*client), json::parse(R"(["1","2","room:lobby","phx_reply",{"status":"ok","response":{"n":42}}])"));
  client->send_text(R"([null,"3","phoenix","heartbeat",{}])");
  EXPECT_EQ(next_v2(*client), json::parse(R"([null,"3","phoenix","phx_reply",{"status":"ok","response":{}}])"));
}

TEST(ChannelsLoopback, V1SocketsGetObjectsWithoutJoinRef) {
  auto server = start_channels_server();
  WsTestClient client(server->port());
  client.open("/socket/websocket?vsn=1.0.0");
  client.send_text(R"({"topic":"room:lobby","event":"phx_join","payload":{},"ref":"1","join_ref":"1"})");
  EXPECT_EQ(json::parse(client.next_text()),
            json::parse(R"({"topic":"room:lobby","event":"phx_reply","payload":{"status":"ok","response":{}},"ref":"1"})"));
  client.send_text(R"({"topic":"room:lobby","event":"shout","payload":{"a":1},"ref":"2","join_ref":"1"})");
  EXPECT_EQ(json::parse(client.next_text()),
            json::parse(R"({"topic":"room:lobby","event":"shout","payload":{"a":1},"ref":null})"));
}

TEST(ChannelsLoopback, BinaryPushGetsABinaryReply) {
  auto server = start_channels_server();
  auto client = joined_v2(server->port(), "room:lobby");
  const std::string push("\x00\x01\x01\x0a\x06"
                         "12room:lobbybinary\x00\xfe\xff",
                         5 + 2 + 10 + 6 + 3);
  client->send_binary(push);
  const auto reply = client->next();
  ASSERT_EQ(reply.kind, Received::Kind::Message);
  EXPECT_TRUE(reply.binary);
  EXPECT_EQ(reply.payload, std::string("\x01\x01\x01\x0a\x02"
                                       "12room:lobbyok\x00\xfe\xff",
                                       5 + 2 + 10 + 2 + 3));
}

TEST(ChannelsLoopback, BroadcastsReachSocketsOnEveryWorker) {
  auto server = start_channels_server(2);
  // Enough sockets that the kernel spreads them over both workers.
  std::vector<std::unique_ptr<WsTestClient>> listeners;
  for (int i = 0; i < 8; ++i) listeners.push_back(joined_v2(server->port(), "room:lobby"));
  auto sender = joined_v2(server->port(), "room:lobby", "sender");
  sender->send_text(R"(["1","2","room:lobby","new_msg",{"body":"hi"}])");
  EXPECT_EQ(next_v2(*sender).at(3), "new_msg");
  EXPECT_EQ(next_v2(*sender).at(3), "phx_reply");
  for (auto& listener : listeners) {
    EXPECT_EQ(next_v2(*listener),
              json::parse(R"([null,null,"room:lobby","new_msg",{"body":"hi","echo":{"body":"hi"},"user_id":"sender"}])"));
  }
  LoopbackClient http(server->port());
  const auto stats = json::parse(http.get("/__channels").body).as_object();
  EXPECT_EQ(stats.at("sockets_open").as_int64(), 9);
  EXPECT_EQ(stats.at("joins").as_int64(), 9);
  EXPECT_EQ(stats.at("broadcasts_published").as_int64(), 1);
  EXPECT_EQ(stats.at("broadcasts_delivered").as_int64(), 9);
  EXPECT_EQ(stats.at("replies_sent").as_int64(), 10);
}

TEST(ChannelsLoopback, PresenceStateAndDiffsBetweenTwoSockets) {
  auto server = start_channels_server(2);
  WsTestClient alice(server->port());
  alice.open("/socket/websocket?vsn=2.0.0");
  alice.send_text(R"(["1","1","presence:lobby","phx_join",{"user_id":"alice"}])");
  EXPECT_EQ(next_v2(alice).at(3), "phx_reply");
  EXPECT_EQ(next_v2(alice).at(3), "presence_diff");
  EXPECT_EQ(next_v2(alice).at(4).as_object().size(), 1u);  // presence_state: alice

  WsTestClient bob(server->port());
  bob.open("/socket/websocket?vsn=2.0.0");
  bob.send_text(R"(["5","5","presence:lobby","phx_join",{"user_id":"bob"}])");
  EXPECT_EQ(next_v2(bob).at(3), "phx_reply");
  EXPECT_EQ(next_v2(bob).at(3), "presence_diff");
  const auto state = next_v2(bob);
  EXPECT_EQ(state.at(0), "5");
  EXPECT_EQ(state.at(3), "presence_state");
  EXPECT_TRUE(state.at(4).as_object().contains("alice"));
  EXPECT_TRUE(state.at(4).as_object().contains("bob"));

  const auto bob_joined = next_v2(alice);
  EXPECT_EQ(bob_joined.at(3), "presence_diff");
  EXPECT_TRUE(bob_joined.at(4).at("joins").as_object().contains("bob"));

  // Bob's socket goes away without leaving: alice hears of it.
  bob.send_close(1000);
  const auto bob_left = next_v2(alice);
  EXPECT_EQ(bob_left.at(3), "presence_diff");
  EXPECT_EQ(bob_left.at(4).at("leaves"), bob_joined.at(4).at("joins"));
}

TEST(ChannelsLoopback, AbsintheSubscriptionPushesDataUntilUnsubscribed) {
  auto server = start_channels_server();
  auto client = joined_v2(server->port(), "__absinthe__:control");
  client->send_text(
      R"(["1","2","__absinthe__:control","doc",{"query":"subscription { ticked { n } }","variables":{"interval_ms":50}}])");
  const auto reply = next_v2(*client);
  EXPECT_EQ(reply.at(4).at("status"), "ok");
  const std::string id(reply.at(4).at("response").at("subscriptionId").as_string());
  for (int seq = 1; seq <= 3; ++seq) {
    const auto push = next_v2(*client);
    EXPECT_EQ(push.at(2), id.c_str());
    EXPECT_EQ(push.at(3), "subscription:data");
    EXPECT_EQ(push.at(4).at("result").at("data").at("ticked").at("seq"), seq);
  }
  client->send_text(R"(["1","3","__absinthe__:control","unsubscribe",{"subscriptionId":")" + id + R"("}])");
  // Pushes already on the wire may come first.
  while (true) {
    const auto frame = next_v2(*client);
    if (frame.at(3) == "subscription:data") continue;
    EXPECT_EQ(frame.at(1), "3");
    break;
  }
  EXPECT_EQ(client->next(milliseconds(200)).kind, Received::Kind::Timeout);
}

TEST(ChannelsLoopback, CrashDuplicateJoinAndUnmatchedTopic) {
  auto server = start_channels_server();
  auto client = joined_v2(server->port(), "room:crashme");
  client->send_text(R"(["1","2","room:crashme","crash",{}])");
  EXPECT_EQ(next_v2(*client), json::parse(R"(["1","1","room:crashme","phx_error",{}])"));
  client->send_text(R"(["1","3","room:crashme","ping",{}])");
  EXPECT_EQ(next_v2(*client).at(4).at("response").at("reason"), "unmatched topic");

  client->send_text(R"(["4","4","room:a","phx_join",{}])");
  next_v2(*client);
  client->send_text(R"(["6","6","room:a","phx_join",{}])");
  EXPECT_EQ(next_v2(*client), json::parse(R"(["6","6","room:a","phx_reply",{"status":"ok","response":{}}])"));
  EXPECT_EQ(next_v2(*client), json::parse(R"(["4","4","room:a","phx_close",{}])"));
}

TEST(ChannelsLoopback, AnUndecodableFrameClosesTheSocketWith1011) {
  auto server = start_channels_server();
  auto client = joined_v2(server->port(), "room:lobby");
  auto other = joined_v2(server->port(), "room:lobby");
  client->send_text("this is not json");
  const auto close = client->next();
  EXPECT_EQ(close.kind, Received::Kind::Close);
  EXPECT_EQ(close.close_code, 1011);
  client->send_close(1011);
  EXPECT_TRUE(client->sees_eof());
  // The rest of the target carries on.
  other->send_text(R"(["1","2","room:lobby","ping",{}])");
  EXPECT_EQ(next_v2(*other).at(1), "2");
  LoopbackClient http(server->port());
  EXPECT_EQ(json::parse(http.get("/__channels").body).at("socket_errors").as_int64(), 1);
}

}  // namespace
}  // namespace stampede::target
