// The target's WebSocket layer over real sockets: handshake answers (101, 400, 403, 404,
// 426), the /ws echo, pings, the close handshake, the idle timeout, permessage-deflate, and
// an upgrade that arrives behind a pipelined HTTP request.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <memory>

#include "target/loopback_client.hpp"
#include "target/target_server.hpp"
#include "target/ws_test_client.hpp"

namespace stampede::target {
namespace {

using testing::LoopbackClient;
using testing::Received;
using testing::WsTestClient;
using std::chrono::milliseconds;

std::unique_ptr<TargetServer> start_ws_server(Nanos idle_timeout = 60 * kSecond, bool compress = false) {
  TargetOptions options;
  options.listen.port = 0;
  options.seed = 1;
  options.ws_idle_timeout = idle_timeout;
  options.ws_compress = compress;
  auto server = std::make_unique<TargetServer>(options);
  server->start();
  return server;
}

TEST(WebSocketLoopback, EchoesTextAndBinaryMessages) {
  auto server = start_ws_server();
  WsTestClient client(server->port());
  client.open("/ws");
  client.send_text("hello echo");
  client.send_binary(std::string("\x01\x02\x03\xff", 4));
  EXPECT_EQ(client.next_text(), "hello echo");
  const auto binary = client.next();
  EXPECT_EQ(binary.kind, Received::Kind::Message);
  EXPECT_TRUE(binary.binary);
  EXPECT_EQ(binary.payload, std::string("\x01\x02\x03\xff", 4));
}

// A waiting socket's read lands in a 96-byte inbox (WsConnection::wait_readable); a frame
// that fills it exactly, or runs past it, is finished through the worker's read buffer.
TEST(WebSocketLoopback, FramesAroundTheWaitingReadsSizeArriveWhole) {
  auto server = start_ws_server();
  WsTestClient client(server->port());
  client.open("/ws");
  // A masked frame of payload n is n + 6 bytes: 80..110 crosses 96 on every side.
  for (std::size_t n = 80; n <= 110; ++n) {
    const std::string payload(n, static_cast<char>('a' + n % 26));
    client.send_text(payload);
    EXPECT_EQ(client.next_text(), payload) << "payload " << n << " bytes, sent alone";
  }
  for (std::size_t n = 80; n <= 110; ++n) client.send_text(std::string(n, static_cast<char>('A' + n % 26)));
  for (std::size_t n = 80; n <= 110; ++n) {
    EXPECT_EQ(client.next_text(), std::string(n, static_cast<char>('A' + n % 26))) << "payload " << n << " bytes, sent in a row";
  }
}

TEST(WebSocketLoopback, EchoesAFragmentedMessageWhole) {
  auto server = start_ws_server();
  WsTestClient client(server->port());
  client.open("/ws");
  client.send_frame(testing::ws::Opcode::Text, "frag", false);
  client.send_frame(testing::ws::Opcode::Ping, "between");
  client.send_frame(testing::ws::Opcode::Continuation, "mented", true);
  const auto pong = client.next();
  EXPECT_EQ(pong.kind, Received::Kind::Pong);
  EXPECT_EQ(pong.payload, "between");
  EXPECT_EQ(client.next_text(), "fragmented");
}

TEST(WebSocketLoopback, ClientCloseIsAnsweredWithTheSameCodeAndTheConnectionEnds) {
  auto server = start_ws_server();
  WsTestClient client(server->port());
  client.open("/ws");
  client.send_close(1000);
  const auto close = client.next();
  EXPECT_EQ(close.kind, Received::Kind::Close);
  EXPECT_EQ(close.close_code, 1000);
  EXPECT_TRUE(client.sees_eof());
}

TEST(WebSocketLoopback, AnUnmaskedClientFrameIsAProtocolError) {
  auto server = start_ws_server();
  WsTestClient client(server->port());
  client.open("/ws");
  client.send_raw(std::string("\x81\x02hi", 4));
  const auto close = client.next();
  EXPECT_EQ(close.kind, Received::Kind::Close);
  EXPECT_EQ(close.close_code, 1002);
}

TEST(WebSocketLoopback, IdleSocketsAreClosedWith1000AndTrafficKeepsThemOpen) {
  auto server = start_ws_server(500 * kMilli);
  WsTestClient busy(server->port());
  busy.open("/ws");
  // Before the idle one opens: the server's idle clock starts once its 101 is written, which
  // is before open() returns, so a clock started after open() could see the close come a
  // moment under 500 ms (499.1 ms once, under ASan).
  const auto started = std::chrono::steady_clock::now();
  WsTestClient idle(server->port());
  idle.open("/socket/websocket?vsn=2.0.0");

  // The busy one speaks every 100 ms, well inside the 500 ms (that pace is the subject); the
  // 100 ms are spent waiting for the idle one's close, so the loop ends when it comes (or
  // after a hang guard of 100 rounds).
  Received close;
  for (int i = 0; i < 100 && close.kind == Received::Kind::Timeout; ++i) {
    close = idle.next(milliseconds(100));
    busy.send_frame(testing::ws::Opcode::Pong, "");  // anything from the client counts
  }
  EXPECT_EQ(close.kind, Received::Kind::Close);
  EXPECT_EQ(close.close_code, 1000);
  EXPECT_GE(std::chrono::steady_clock::now() - started, milliseconds(500));
  idle.send_close(1000);
  EXPECT_TRUE(idle.sees_eof());

  busy.send_text("still here");
  EXPECT_EQ(busy.next_text(), "still here");

  LoopbackClient http(server->port());
  const auto stats = boost::json::parse(http.get("/__channels").body).as_object();
  EXPECT_EQ(stats.at("idle_timeouts").as_int64(), 1);
}

TEST(WebSocketLoopback, PeerThatNeverAnswersTheCloseIsCutOffAfterAMoment) {
  auto server = start_ws_server(200 * kMilli);
  WsTestClient client(server->port());
  client.open("/ws");
  EXPECT_EQ(client.next().kind, Received::Kind::Close);
  const auto closed_at = std::chrono::steady_clock::now();
  // The cut comes kCloseWait (2 s) after the close frame: 30 s is a hang guard, not a bound.
  EXPECT_TRUE(client.sees_eof(milliseconds(30000)));
  EXPECT_GE(std::chrono::steady_clock::now() - closed_at, milliseconds(1500));
}

TEST(WebSocketLoopback, RefusalsLookLikePhoenixs) {
  auto server = start_ws_server();
  {
    WsTestClient client(server->port());
    const auto answer = client.handshake("/socket/websocket?vsn=3.0.0");
    EXPECT_EQ(answer.status, 403);
    EXPECT_EQ(answer.body, "");
  }
  {
    WsTestClient client(server->port());
    EXPECT_EQ(client.handshake("/socket/websocket?vsn=2.1.0").status, 403);
  }
  {
    WsTestClient client(server->port());
    EXPECT_EQ(client.handshake("/nowhere").status, 404);
  }
  {
    WsTestClient client(server->port());
    const auto answer = client.raw_handshake(
        "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\r\n");
    EXPECT_EQ(answer.status, 400);
    EXPECT_NE(answer.body.find("sec-websocket-key"), std::string::npos) << answer.body;
  }
  {
    WsTestClient client(server->port());
    const auto answer = client.raw_handshake(
        "POST /socket/websocket HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nContent-Length: 0\r\n\r\n");
    EXPECT_EQ(answer.status, 400);
  }
  {
    WsTestClient client(server->port());
    const auto answer = client.raw_handshake(
        "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 12\r\n\r\n");
    EXPECT_EQ(answer.status, 426);
    EXPECT_TRUE(answer.has_header_line("Sec-WebSocket-Version: 13"));
  }
  {
    // A plain GET of a WebSocket path is a bad upgrade, not a page.
    LoopbackClient http(server->port());
    EXPECT_EQ(http.get("/ws").status, 400);
  }
  // None of it is measured.
  EXPECT_EQ(server->truth().count, 0u);
}

TEST(WebSocketLoopback, VsnSelectsTheSerializer) {
  auto server = start_ws_server();
  for (const char* target : {"/socket/websocket", "/socket/websocket?vsn=1.0.0&token=abc"}) {
    WsTestClient client(server->port());
    client.open(target);
    client.send_text(R"({"topic":"phoenix","event":"heartbeat","payload":{},"ref":"1"})");
    EXPECT_EQ(boost::json::parse(client.next_text()).at("ref"), "1") << target;
  }
  WsTestClient client(server->port());
  client.open("/socket/websocket?vsn=2.0.0");
  client.send_text(R"([null,"1","phoenix","heartbeat",{}])");
  EXPECT_EQ(boost::json::parse(client.next_text()).as_array().at(1), "1");
}

TEST(WebSocketLoopback, CompressionIsNegotiatedOnlyWhenEnabledAndOffered) {
  const std::string offer = "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n";
  {
    auto server = start_ws_server(60 * kSecond, false);
    WsTestClient client(server->port());
    EXPECT_FALSE(client.handshake("/ws", offer).has_header_line("permessage-deflate"));
  }
  auto server = start_ws_server(60 * kSecond, true);
  {
    WsTestClient plain(server->port());
    plain.open("/ws");
    plain.send_text("uncompressed");
    EXPECT_EQ(plain.next_text(), "uncompressed");
    EXPECT_EQ(plain.compressed_messages, 0);
  }
  WsTestClient client(server->port());
  const auto answer = client.handshake("/ws", offer);
  ASSERT_EQ(answer.status, 101);
  EXPECT_TRUE(answer.has_header_line("Sec-WebSocket-Extensions: permessage-deflate"));
  const std::string text(5000, 'z');
  for (int i = 0; i < 3; ++i) {
    client.send_text(text);
    EXPECT_EQ(client.next_text(), text);
  }
  EXPECT_EQ(client.compressed_messages, 3);

  WsTestClient channels(server->port());
  channels.open("/socket/websocket?vsn=2.0.0", offer);
  channels.send_text(R"([null,"1","phoenix","heartbeat",{}])");
  EXPECT_EQ(boost::json::parse(channels.next_text()).as_array().at(3), "phx_reply");
  EXPECT_EQ(channels.compressed_messages, 1);
}

TEST(WebSocketLoopback, AnUpgradeBehindAPipelinedRequestWaitsForItsAnswer) {
  auto server = start_ws_server();
  WsTestClient client(server->port());
  // A held HTTP request, the upgrade and the first WebSocket frame, all in one write.
  std::string frame;
  testing::ws::write_frame(frame, testing::ws::Opcode::Text, "early", true, 0x01020304u);
  client.send_raw(
      "GET /slow?ms=100 HTTP/1.1\r\nHost: x\r\n\r\n"
      "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n" +
      frame);
  EXPECT_EQ(client.read_answer().status, 200);
  EXPECT_EQ(client.read_answer().status, 101);
  EXPECT_EQ(client.next_text(), "early");
  // The held request is measured; the upgrade is not.
  EXPECT_EQ(server->truth().count, 1u);
}

TEST(WebSocketLoopback, BytesSentRightBehindTheUpgradeAreNotLost) {
  auto server = start_ws_server();
  WsTestClient client(server->port());
  std::string frame;
  testing::ws::write_frame(frame, testing::ws::Opcode::Text, "early", true, 0x01020304u);
  const auto answer = client.raw_handshake(
      "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n" + frame);
  ASSERT_EQ(answer.status, 101);
  EXPECT_TRUE(answer.has_header_line("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo="));
  EXPECT_EQ(client.next_text(), "early");
}

}  // namespace
}  // namespace stampede::target
