// The heap an idle Phoenix socket costs the target: upgraded, joined to a room, heartbeat
// answered, then quiet. The bench holds 19,000 of them per process, so the budget is 2 KiB.
// Measured as the growth of the whole process's heap while 2,000 such sockets are opened by
// plain POSIX clients (idle_memory_probe.hpp), so all of the growth is the server's.
#include <gtest/gtest.h>
#include <unistd.h>

#include <iostream>
#include <string>
#include <vector>

#include "proto/websocket_frame.hpp"
#include "target/idle_memory_probe.hpp"
#include "target/target_server.hpp"

namespace stampede::target {
namespace {

using idle_memory::connect_to;

constexpr int kSockets = 2000;
constexpr std::size_t kBudgetBytes = 2048;

// Writes the upgrade, a join and a heartbeat at once, and reads until the heartbeat's reply.
bool open_idle_socket(int fd, const std::string& opening) {
  return idle_memory::send_and_read_until<2048>(fd, opening, R"([null,"2","phoenix","phx_reply")").has_value();
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
  const auto per_socket = idle_memory::heap_per_socket(200, kSockets, open_many,
                                                       [&] { return idle_memory::server_caught_up(fds.back()); });
  std::cout << "heap per idle joined channel socket: " << per_socket << " bytes\n";
  RecordProperty("bytes_per_idle_socket", static_cast<int>(per_socket));
  EXPECT_GT(per_socket, 0u) << "nothing was measured (is the heap probe blind under this build?)";
  EXPECT_LT(per_socket, kBudgetBytes);
  for (const int fd : fds) ::close(fd);
  server.stop();
}

}  // namespace
}  // namespace stampede::target
