#include "metrics/error_group.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include <fmt/format.h>

#include "metrics/metric_sink.hpp"

namespace stampede::metrics {
namespace {

TEST(ErrorGroup, AMessageWithNothingPerConnectionIsItself) {
  for (const char* message : {"refused", "status 503", "timeout", "connect: connection refused",
                              "s.lua:12: assertion failed!", "the server closed the connection (close code 1011)",
                              "no reply to phx_join within 5 s", "HTTP/1.1 response without a status",
                              "a WebSocket URL starts with ws:// or wss://", "permessage-deflate: bad window bits 7",
                              "GET /api/posts/42: status 404", "sha256 of the body did not match",
                              "Sec-WebSocket-Accept header missing", "base64url token expected"})
    EXPECT_EQ(error_group(message), message);
}

TEST(ErrorGroup, WebSocketKeysAreOneGroup) {
  // The message the handshake gives for a wrong Sec-WebSocket-Accept: both values differ on
  // every connection (the second has a '/' and a '+', the first has neither).
  const std::string a = error_group(
      "s.lua:7: ws://127.0.0.1:4000/socket: the server's Sec-WebSocket-Accept is \"HSmrc0sMlYUkAGmm5OPpG2HaGWk=\", "
      "expected \"s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\"");
  const std::string b = error_group(
      "s.lua:7: ws://127.0.0.1:4000/socket: the server's Sec-WebSocket-Accept is \"aq/8bC+dEfGhIjKlMnOpQrStUvW=\", "
      "expected \"Zm9vYmFyYmF6cXV4cXV1eHh5eno=\"");
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, "s.lua:7: ws://<address>/socket: the server's Sec-WebSocket-Accept is \"<id>\", expected \"<id>\"");
}

TEST(ErrorGroup, AddressesWithPortsAndIpv6) {
  EXPECT_EQ(error_group("connect to 127.0.0.1:38981 from 127.0.0.7:51234 failed"),
            "connect to <address> from <address> failed");
  EXPECT_EQ(error_group("http://[::1]:4000/x: refused"), "http://<address>/x: refused");
  EXPECT_EQ(error_group("at [fe80::1%eth0]"), "at [fe80::1%eth0]");  // not an address we know: kept
  // A version or a decimal that is not an address stays or becomes <n>, never <address>.
  EXPECT_EQ(error_group("LiveView 0.20.17 is not supported"), "LiveView 0.20.17 is not supported");
  EXPECT_EQ(error_group("took 12.5 ms"), "took <n> ms");
  EXPECT_EQ(error_group("HTTP/1.1 503"), "HTTP/1.1 503");
}

TEST(ErrorGroup, ByteCountsAndLongNumbers) {
  EXPECT_EQ(error_group("a message of 16777217 bytes is over the limit of 16777216 bytes"),
            "a message of <n> bytes is over the limit of <n> bytes");
  EXPECT_EQ(error_group("read 512 bytes of 900"), "read <n> bytes of 900");
  EXPECT_EQ(error_group("upload chunk 12 B short"), "upload chunk <n> B short");
  EXPECT_EQ(error_group("no reply to ref 123456"), "no reply to ref <n>");
  EXPECT_EQ(error_group("offset -20000"), "offset -<n>");
  // A Lua error's line number says where, not which connection.
  EXPECT_EQ(error_group("long.lua:12345: boom at 99999"), "long.lua:12345: boom at <n>");
  EXPECT_EQ(error_group("the connection closed (4000 bye); 1011 later"), "the connection closed (4000 bye); 1011 later");
  EXPECT_EQ(error_group("no reply to ref 17, id=3, #9"), "no reply to ref <n>, id=<n>, #<n>");
}

TEST(ErrorGroup, TokensAndIds) {
  EXPECT_EQ(error_group("csrf token kJxF0aT1Bz4GFiMhAwU-LgAtGVoqAIUmT2Xp9_0ZFbkz0BCrSsAPGmY8 was rejected"),
            "csrf token <id> was rejected");
  EXPECT_EQ(error_group("no element phx-F7xA92k1bQ3 in the view"), "no element <id> in the view");
  EXPECT_EQ(error_group("upload 123e4567-e89b-12d3-a456-426614174000 failed"), "upload <id> failed");
  EXPECT_EQ(error_group("token=abc123def456ghi789jkl; path=/"), "token=<id>; path=/");
  // A path keeps its words; a long numeric segment is a number.
  EXPECT_EQ(error_group("GET /api/posts/1234567/comments: status 500"), "GET /api/posts/<n>/comments: status 500");
  // Words that merely look technical stay: no digits, few case changes.
  EXPECT_EQ(error_group("Sec-WebSocket-Extensions refused"), "Sec-WebSocket-Extensions refused");
}

TEST(ErrorGroup, TheScenarioPathIsKept) {
  EXPECT_EQ(error_group("/tmp/stampede-it-c5zc_wqs/scenario.lua:4: refused by 127.0.0.1:4000"),
            "/tmp/stampede-it-c5zc_wqs/scenario.lua:4: refused by <address>");
  EXPECT_EQ(error_group("a b.lua:4: x"), "a b.lua:4: x");
}

TEST(ErrorGroup, RandomKeysMakeOneGroup) {
  // 2,000 messages with random base64 keys (as Sec-WebSocket-Key makes them): one group.
  std::set<std::string> groups;
  std::uint64_t state = 42;
  const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (int i = 0; i < 2000; ++i) {
    std::string key;
    for (int c = 0; c < 27; ++c) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      key += alphabet[(state >> 33) % 64];
    }
    groups.insert(error_group(fmt::format("accept \"{}=\" from 127.0.0.1:{}", key, 40000 + i)));
  }
  EXPECT_EQ(groups.size(), 1u) << *groups.begin();
}

TEST(ErrorGroup, TheSinkCountsAGroupWithItsFirstMessageAsExample) {
  Registry registry;
  MetricSink sink(registry);
  const MetricId errors = sink.id("ws.connect.errors", Kind::Counter);
  for (int port = 40000; port < 40300; ++port)
    sink.add_error(errors, fmt::format("handshake from 127.0.0.1:{} refused", port));
  sink.add_error(errors, "refused");
  const Snapshot s = sink.take(0);
  const MetricData& d = s.metrics[errors];
  EXPECT_EQ(d.count, 301u);
  ASSERT_EQ(d.reasons.size(), 2u);
  EXPECT_EQ(d.reasons.at("handshake from <address> refused"), 300u);
  EXPECT_EQ(d.reasons.at("refused"), 1u);
  ASSERT_EQ(d.examples.size(), 1u);
  EXPECT_EQ(d.examples.at("handshake from <address> refused"), "handshake from 127.0.0.1:40000 refused");

  // Merging keeps the first example and the counts.
  MetricData merged;
  merged.merge_parallel(d);
  merged.merge_parallel(d);
  EXPECT_EQ(merged.reasons.at("handshake from <address> refused"), 600u);
  EXPECT_EQ(merged.examples.at("handshake from <address> refused"), "handshake from 127.0.0.1:40000 refused");
}

TEST(ErrorGroup, OtherReasonsKeepsOneExample) {
  MetricData d;
  for (std::size_t i = 0; i < MetricData::kMaxReasons; ++i) d.add_reason(fmt::format("kind {}", i), 1);
  d.add_reason("one too many", 1);
  EXPECT_EQ(d.reasons.at(std::string(MetricData::kOtherReason)), 1u);
  EXPECT_EQ(d.examples.at(std::string(MetricData::kOtherReason)), "one too many");
}

}  // namespace
}  // namespace stampede::metrics
