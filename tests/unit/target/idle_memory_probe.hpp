#pragma once
// What the target's idle-memory tests share: the process's heap in use, plain POSIX clients
// (stack buffers, so the growth measured is the server's), and the warm-up-then-measure
// procedure. Used by channels_idle_memory_test.cpp and liveview_idle_memory_test.cpp.
// The sockets are WebSockets: the server's loop is known to have finished with them when a
// ping sent after them has been answered.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "heap_in_use.hpp"
#include "proto/websocket_frame.hpp"

namespace stampede::target::idle_memory {

using stampede::testing::heap_in_use;

// A blocking loopback connection to `port`, or -1.
inline int connect_to(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || ::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) return -1;
  return fd;
}

// Sends `bytes` at once and reads until `last` shows up (5 s per read at most); what was
// read, or nothing when the server closed, stalled or sent more than `Capacity` bytes.
template <std::size_t Capacity>
std::optional<std::string> send_and_read_until(int fd, const std::string& bytes, std::string_view last) {
  if (::send(fd, bytes.data(), bytes.size(), 0) != static_cast<ssize_t>(bytes.size())) return std::nullopt;
  char received[Capacity];
  std::size_t used = 0;
  while (used < sizeof received) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 5000) <= 0) return std::nullopt;
    const auto n = ::recv(fd, received + used, sizeof received - used, 0);
    if (n <= 0) return std::nullopt;
    used += static_cast<std::size_t>(n);
    const std::string_view seen(received, used);
    if (seen.find(last) != std::string_view::npos) return std::string(seen);
  }
  return std::nullopt;
}

// A ping on the open WebSocket `fd`, and its pong read: the server's loop (the target runs
// one) has then run every handler that was queued before the ping's read, the ones for the
// sockets opened before it included. False when no pong came.
inline bool server_caught_up(int fd) {
  std::string ping;
  proto::ws::write_frame(ping, proto::ws::Opcode::Ping, "sync", true, 0x0a0b0c0du);
  // What is still unread of the last reply comes first; a JSON text holds no 0x8a byte.
  return send_and_read_until<16384>(fd, ping, "\x8a\x04sync").has_value();
}

// Heap growth per socket while `count` more are opened with `open_many`, after `warm_up`
// opened first: the worker's scratch and spare buffers, a topic's subscriber set and Asio's
// caches are paid once, not per socket. Each heap reading waits for the server's loop to
// have finished with the sockets opened (`caught_up`, e.g. server_caught_up on the last).
inline std::size_t heap_per_socket(int warm_up, int count, const std::function<void(int)>& open_many,
                                   const std::function<bool()>& caught_up) {
  open_many(warm_up);
  if (!caught_up()) ADD_FAILURE() << "no pong from the server after the warm-up";
  const auto before = heap_in_use();
  open_many(count);
  if (!caught_up()) ADD_FAILURE() << "no pong from the server after the sockets measured";
  return (heap_in_use() - before) / static_cast<std::size_t>(count);
}

}  // namespace stampede::target::idle_memory
