// The heap a joined, idle LiveView costs the target: the socket upgraded with the session
// cookie, /counter joined and rendered once, a click answered, a heartbeat answered, then
// quiet. Measured like channels_idle_memory_test.cpp: the growth of the process's heap while
// 2,000 of them are opened by plain POSIX clients (tokens are minted by the test, so no page
// request is in the count). The budget: the channel socket's 2 KiB, and 1 KiB for the view.
#include <gtest/gtest.h>
#include <malloc.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
extern "C" std::size_t __sanitizer_get_current_allocated_bytes();
#endif

#include <boost/json.hpp>
#include <chrono>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "proto/websocket_frame.hpp"
#include "target/liveview_tokens.hpp"
#include "target/target_server.hpp"

namespace stampede::target {
namespace {

constexpr int kSockets = 2000;
constexpr std::size_t kBudgetBytes = 3072;

std::size_t heap_in_use() {
#if defined(__SANITIZE_ADDRESS__)
  return __sanitizer_get_current_allocated_bytes();
#else
  return mallinfo2().uordblks;
#endif
}

int connect_to(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || ::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) return -1;
  return fd;
}

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
  if (::send(fd, bytes.data(), bytes.size(), 0) != static_cast<ssize_t>(bytes.size())) return false;
  char received[8192];
  std::size_t used = 0;
  constexpr std::string_view kLast = R"([null,"6","phoenix","phx_reply")";
  while (used < sizeof received) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 5000) <= 0) return false;
    const auto n = ::recv(fd, received + used, sizeof received - used, 0);
    if (n <= 0) return false;
    used += static_cast<std::size_t>(n);
    const std::string_view seen(received, used);
    if (seen.find(kLast) != std::string_view::npos) return seen.find(R"("r":{"count":1})") != std::string_view::npos;
  }
  return false;
}

TEST(LiveViewIdleMemory, AJoinedIdleLiveViewCostsUnderThreeKilobytes) {
  TargetOptions options;
  options.listen.port = 0;
  TargetServer server(options);
  server.start();
  TokenRandom random(23);
  std::vector<std::string> openings;
  for (int i = 0; i < kSockets + 200; ++i) openings.push_back(opening(random));

  std::vector<int> fds;
  fds.reserve(kSockets + 200);
  const auto open_many = [&](int count) {
    for (int i = 0; i < count; ++i) {
      const int fd = connect_to(server.port());
      ASSERT_GE(fd, 0);
      fds.push_back(fd);
      ASSERT_TRUE(open_idle_view(fd, openings[fds.size() - 1])) << "socket " << fds.size();
    }
  };
  // Warm-up: the worker's scratch and spare buffers are paid once, not per socket.
  open_many(200);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const auto before = heap_in_use();
  open_many(kSockets);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const auto after = heap_in_use();

  const auto per_view = (after - before) / kSockets;
  std::cout << "heap per joined idle LiveView (socket included): " << per_view << " bytes\n";
  RecordProperty("bytes_per_idle_liveview", static_cast<int>(per_view));
  EXPECT_LT(per_view, kBudgetBytes);
  for (const int fd : fds) ::close(fd);
  server.stop();
}

}  // namespace
}  // namespace stampede::target
