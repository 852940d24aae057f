// The heap an idle Phoenix socket costs the target: upgraded, joined to a room, heartbeat
// answered, then quiet. The bench holds 19,000 of them per process, so the budget is 2 KiB.
// Measured as the growth of the whole process's heap (mallinfo2 sums every arena; under
// AddressSanitizer, whose allocator glibc does not see, ASan's own count) while 2,000 such
// sockets are opened; the clients are plain POSIX sockets with stack buffers, so all of the
// growth is the server's.
#include <gtest/gtest.h>
#include <malloc.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
// From the ASan runtime (declared here: Debian's GCC ships no sanitizer headers).
extern "C" std::size_t __sanitizer_get_current_allocated_bytes();
#endif

#include <chrono>
#include <cstring>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "proto/websocket_frame.hpp"
#include "target/target_server.hpp"

namespace stampede::target {
namespace {

constexpr int kSockets = 2000;
constexpr std::size_t kBudgetBytes = 2048;

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

// Writes the upgrade, a join and a heartbeat at once, and reads until the heartbeat's reply.
bool open_idle_socket(int fd, const std::string& opening) {
  if (::send(fd, opening.data(), opening.size(), 0) != static_cast<ssize_t>(opening.size())) return false;
  char received[2048];
  std::size_t used = 0;
  constexpr std::string_view kLast = R"([null,"2","phoenix","phx_reply")";
  while (used < sizeof received) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 5000) <= 0) return false;
    const auto n = ::recv(fd, received + used, sizeof received - used, 0);
    if (n <= 0) return false;
    used += static_cast<std::size_t>(n);
    if (std::string_view(received, used).find(kLast) != std::string_view::npos) return true;
  }
  return false;
}

TEST(ChannelsIdleMemory, AnIdleJoinedSocketCostsUnderTwoKilobytes) {
  TargetOptions options;
  options.listen.port = 0;
  TargetServer server(options);
  server.start();

  std::string opening =
      "GET /socket/websocket?vsn=2.0.0 HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n";
  proto::ws::write_frame(opening, proto::ws::Opcode::Text, R"(["1","1","room:lobby","phx_join",{}])", true, 0x11223344u);
  proto::ws::write_frame(opening, proto::ws::Opcode::Text, R"([null,"2","phoenix","heartbeat",{}])", true, 0x55667788u);

  std::vector<int> fds;
  fds.reserve(2 * kSockets);
  const auto open_many = [&](int count) {
    for (int i = 0; i < count; ++i) {
      const int fd = connect_to(server.port());
      ASSERT_GE(fd, 0);
      fds.push_back(fd);
      ASSERT_TRUE(open_idle_socket(fd, opening)) << "socket " << fds.size();
    }
  };
  // Warm-up: the worker's scratch and spare buffers, the topic's subscriber set, Asio's
  // caches are paid once, not per socket.
  open_many(200);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const auto before = heap_in_use();
  open_many(kSockets);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const auto after = heap_in_use();

  const auto per_socket = (after - before) / kSockets;
  std::cout << "heap per idle joined channel socket: " << per_socket << " bytes\n";
  RecordProperty("bytes_per_idle_socket", static_cast<int>(per_socket));
  EXPECT_LT(per_socket, kBudgetBytes);
  for (const int fd : fds) ::close(fd);
  server.stop();
}

}  // namespace
}  // namespace stampede::target
