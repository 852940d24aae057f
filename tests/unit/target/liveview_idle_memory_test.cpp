// The heap a joined, idle LiveView costs the target: the socket upgraded with the session
// cookie, /counter joined and rendered once, a click answered, a heartbeat answered, then
// quiet. Measured like channels_idle_memory_test.cpp: the growth of the process's heap while
// 2,000 of them are opened by plain POSIX clients (tokens are minted by the test, so no page
// request is in the count). The budget: the channel socket's 2 KiB, and 1 KiB for the view.
#include <gtest/gtest.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <iostream>
#include <string>
#include <vector>

#include "proto/websocket_frame.hpp"
#include "target/idle_memory_probe.hpp"
#include "target/liveview_tokens.hpp"
#include "target/target_server.hpp"

namespace stampede::target {
namespace {

using idle_memory::connect_to;

constexpr int kLiveViewSockets = 2000;
constexpr std::size_t kLiveViewBudgetBytes = 3072;

// What a browser sends for one /counter tab: upgrade, join, a click, a heartbeat.
std::string opening(TokenRandom& random) {
  const auto secret = new_csrf_secret(random);
  const auto csrf = mask_csrf_token(secret, random);
  const auto id = new_phx_id(random);
  const auto now = wall_clock_ms();
  boost::json::object join{
      {"url", "http://127.0.0.1/counter"},
      {"params", boost::json::object{{"_csrf_token", csrf}, {"_mounts", 0}}},
      {"session", sign_view_session(LiveViewDialect::V1, {id, "Elixir.DemoWeb.CounterLive", "default"}, now)},
      {"static", sign_view_static(LiveViewDialect::V1, id, now)}};
  std::string bytes = "GET /live/websocket?_csrf_token=" + csrf +
                      "&vsn=2.0.0 HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nCookie: _demo_key=" +
                      encode_session_cookie({secret, ""}) + "\r\n\r\n";
  const std::string topic = "lv:" + id;
  proto::ws::write_frame(bytes, proto::ws::Opcode::Text,
                         R"(["4","4",")" + topic + R"(","phx_join",)" + boost::json::serialize(join) + "]", true,
                         0x11223344u);
  proto::ws::write_frame(bytes, proto::ws::Opcode::Text,
                         R"(["4","5",")" + topic + R"(","event",{"type":"click","event":"inc","value":{"value":""}}])",
                         true, 0x55667788u);
  proto::ws::write_frame(bytes, proto::ws::Opcode::Text, R"([null,"6","phoenix","heartbeat",{}])", true, 0x01020304u);
  return bytes;
}

bool open_idle_view(int fd, const std::string& bytes) {
  const auto seen = idle_memory::send_and_read_until<8192>(fd, bytes, R"([null,"6","phoenix","phx_reply")");
  return seen && seen->find(R"("r":{"count":1})") != std::string::npos;
}

TEST(LiveViewIdleMemory, AJoinedIdleLiveViewCostsUnderThreeKilobytes) {
  TargetOptions options;
  options.listen.port = 0;
  TargetServer server(options);
  server.start();
  TokenRandom random(23);
  std::vector<std::string> openings;
  for (int i = 0; i < kLiveViewSockets + 200; ++i) openings.push_back(opening(random));

  std::vector<int> fds;
  fds.reserve(kLiveViewSockets + 200);
  const auto open_many = [&](int count) {
    for (int i = 0; i < count; ++i) {
      const int fd = connect_to(server.port());
      ASSERT_GE(fd, 0);
      fds.push_back(fd);
      ASSERT_TRUE(open_idle_view(fd, openings[fds.size() - 1])) << "socket " << fds.size();
    }
  };
  const auto per_view = idle_memory::heap_per_socket(200, kLiveViewSockets, open_many,
                                                     [&] { return idle_memory::server_caught_up(fds.back()); });
  std::cout << "heap per joined idle LiveView (socket included): " << per_view << " bytes\n";
  RecordProperty("bytes_per_idle_liveview", static_cast<int>(per_view));
  EXPECT_GT(per_view, 0u) << "nothing was measured (is the heap probe blind under this build?)";
  EXPECT_LT(per_view, kLiveViewBudgetBytes);
  for (const int fd : fds) ::close(fd);
  server.stop();
}

}  // namespace
}  // namespace stampede::target
