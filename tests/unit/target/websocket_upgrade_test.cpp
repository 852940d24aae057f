// answer_upgrade() and the vsn rules, without sockets.
#include "target/websocket_upgrade.hpp"

#include <gtest/gtest.h>

#include "proto/http_request_parser.hpp"

namespace stampede::target {
namespace {

using proto::phx::Serializer;

proto::HttpRequest parsed_request(std::string_view head) {
  proto::HttpRequestParser parser;
  parser.feed(head);
  EXPECT_TRUE(parser.done()) << head;
  return parser.request();
}

constexpr std::string_view kUpgrade =
    "Host: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n";

UpgradeAnswer answer(std::string_view path, std::string_view query, std::string_view extra = "",
                     bool compress = false) {
  const auto r = parsed_request("GET " + std::string(path) + (query.empty() ? "" : "?") + std::string(query) +
                         " HTTP/1.1\r\n" + std::string(kUpgrade) + std::string(extra) + "\r\n");
  return answer_upgrade(r, path, query, compress);
}

TEST(WebSocketUpgrade, VsnChoosesTheSerializerLikePhoenix) {
  EXPECT_EQ(serializer_for_vsn(std::nullopt), Serializer::V1);
  EXPECT_EQ(serializer_for_vsn("1.0.0"), Serializer::V1);
  EXPECT_EQ(serializer_for_vsn("1.0.7"), Serializer::V1);
  EXPECT_EQ(serializer_for_vsn("2.0.0"), Serializer::V2);
  EXPECT_EQ(serializer_for_vsn("2.0.3"), Serializer::V2);
  for (const char* bad : {"", "2", "2.0", "2.1.0", "3.0.0", "1.1.0", "2.0.0-rc", "v2.0.0", "2.0.0.0", "-2.0.0"}) {
    EXPECT_EQ(serializer_for_vsn(bad), std::nullopt) << bad;
  }
}

TEST(WebSocketUpgrade, ChannelsPathAcceptsWithTheChosenSerializerAndUser) {
  const auto a = answer("/socket/websocket", "token=t&user_id=ann%20b&vsn=2.0.0");
  ASSERT_EQ(a.status, 101);
  EXPECT_EQ(a.plan.application, WsApplication::Channels);
  EXPECT_EQ(a.plan.serializer, Serializer::V2);
  EXPECT_EQ(a.plan.user_id, "ann b");
  EXPECT_NE(a.head.find("HTTP/1.1 101 Switching Protocols\r\n"), std::string::npos);
  EXPECT_NE(a.head.find("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"), std::string::npos);
  EXPECT_EQ(answer("/socket/websocket", "").plan.serializer, Serializer::V1);
  EXPECT_EQ(answer("/ws", "").plan.application, WsApplication::Echo);
}

TEST(WebSocketUpgrade, RefusalsInPhoenixsOrder) {
  EXPECT_EQ(answer("/other", "").status, 404);
  EXPECT_EQ(answer("/socket/websocket", "vsn=9.0.0").status, 403);
  EXPECT_EQ(answer("/socket/websocket", "vsn=%zz").status, 400);
  // vsn is checked before the upgrade headers, as Phoenix connects before upgrading.
  const auto bad_headers = parsed_request("GET /socket/websocket?vsn=9.0.0 HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n\r\n");
  EXPECT_EQ(answer_upgrade(bad_headers, "/socket/websocket", "vsn=9.0.0", false).status, 403);
  const auto missing_key = parsed_request(
      "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\r\n");
  const auto refused = answer_upgrade(missing_key, "/ws", "", false);
  EXPECT_EQ(refused.status, 400);
  EXPECT_FALSE(refused.body.empty());
  const auto post = parsed_request("POST /socket/websocket?vsn=9.0.0 HTTP/1.1\r\nContent-Length: 0\r\n" + std::string(kUpgrade) + "\r\n");
  EXPECT_EQ(answer_upgrade(post, "/socket/websocket", "vsn=9.0.0", false).status, 400);
}

TEST(WebSocketUpgrade, WantsWebSocketForUpgradesAndForItsPaths) {
  EXPECT_TRUE(wants_websocket(parsed_request("GET /ws HTTP/1.1\r\nHost: x\r\n\r\n"), "/ws"));
  EXPECT_TRUE(wants_websocket(parsed_request("GET /socket/websocket HTTP/1.1\r\nHost: x\r\n\r\n"), "/socket/websocket"));
  EXPECT_TRUE(wants_websocket(parsed_request("GET /x HTTP/1.1\r\nUpgrade: WebSocket\r\n\r\n"), "/x"));
  EXPECT_FALSE(wants_websocket(parsed_request("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), "/"));
  EXPECT_FALSE(wants_websocket(parsed_request("GET /x HTTP/1.1\r\nUpgrade: h2c\r\n\r\n"), "/x"));
}

TEST(WebSocketUpgrade, DeflateOnlyWhenAllowedAndOffered) {
  const std::string offer = "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n";
  EXPECT_FALSE(answer("/ws", "", offer, false).plan.deflate.has_value());
  EXPECT_FALSE(answer("/ws", "", "", true).plan.deflate.has_value());
  const auto accepted = answer("/ws", "", offer, true);
  ASSERT_TRUE(accepted.plan.deflate.has_value());
  EXPECT_NE(accepted.head.find("Sec-WebSocket-Extensions: permessage-deflate"), std::string::npos);
}

}  // namespace
}  // namespace stampede::target
