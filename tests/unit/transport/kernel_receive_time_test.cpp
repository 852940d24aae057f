// The kernel's receive stamp over a real loopback TCP connection: a read long after the bytes
// arrived still says when they arrived.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio/error.hpp>
#include <cerrno>
#include <chrono>
#include <thread>

#include "transport/kernel_receive_time.hpp"

namespace stampede::transport {
namespace {

// A connected pair of loopback TCP sockets (client, server side), closed at the end.
struct TcpPair {
  int client = -1;
  int server = -1;
  TcpPair() {
    const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    EXPECT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    EXPECT_EQ(::listen(listener, 1), 0);
    EXPECT_EQ(::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length), 0);
    client = ::socket(AF_INET, SOCK_STREAM, 0);
    EXPECT_EQ(::connect(client, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    server = ::accept(listener, nullptr, nullptr);
    ::close(listener);
  }
  ~TcpPair() {
    ::close(client);
    ::close(server);
  }
};

// The conversion's error (the two clocks read about 20 µs apart at most, read_clocks()).
constexpr Nanos kClockPairing = 50 * kMicro;

TEST(KernelReceiveTime, ARealTimeStampMovesOntoTheMonotonicClock) {
  EXPECT_EQ(realtime_to_monotonic(1'000 * kSecond, 1'000 * kSecond + 3 * kMilli, 50 * kSecond),
            50 * kSecond - 3 * kMilli);
  // A stamp that looks later than now (the real-time clock stepped back): never in the future.
  EXPECT_EQ(realtime_to_monotonic(1'000 * kSecond, 999 * kSecond, 50 * kSecond), 50 * kSecond);
}

// The kernel turns stamping on for the whole machine from a work queue, a moment after the
// first socket asks: until then segments come unstamped. Waits for a stamped one (a byte
// sent and read back), the way a target that asks at start sees its first requests stamped.
void wait_until_stamping(const TcpPair& pair) {
  char byte = 0;
  for (int attempt = 0; attempt < 1000; ++attempt) {
    ASSERT_EQ(::send(pair.client, "s", 1, 0), 1);
    StampedRead read;
    do {
      read = read_stamped(pair.server, &byte, 1);
    } while (read.bytes < 0 && errno == EINTR);
    ASSERT_EQ(read.bytes, 1);
    if (read.received_at != 0) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  FAIL() << "the kernel never stamped a segment (1,000 tries over at least a second)";
}

TEST(KernelReceiveTime, AReadLongAfterTheBytesArrivedSaysWhenTheyArrived) {
  TcpPair pair;
  ASSERT_TRUE(enable_receive_timestamps(pair.server));
  wait_until_stamping(pair);
  const Nanos before_send = SteadyClock::monotonic_now();
  ASSERT_EQ(::send(pair.client, "GET / HTTP/1.1\r\n\r\n", 18, 0), 18);
  const Nanos after_send = SteadyClock::monotonic_now();
  // The bytes wait in the socket while this thread is away, as they do while a busy loop is.
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  char buffer[64];
  const StampedRead read = read_stamped(pair.server, buffer, sizeof buffer);
  const Nanos read_done = SteadyClock::monotonic_now();
  ASSERT_EQ(read.bytes, 18);
  // Loopback delivers inside send(): the stamp lies between the send's start and end, 30 ms
  // or more before the read.
  EXPECT_GE(read.received_at, before_send - kClockPairing);
  EXPECT_LE(read.received_at, after_send + kClockPairing);
  EXPECT_GE(read_done - read.received_at, 30 * kMilli - kClockPairing);
}

TEST(KernelReceiveTime, WithoutTimestampsAReadHasNoStamp) {
  TcpPair pair;
  ASSERT_EQ(::send(pair.client, "x", 1, 0), 1);
  char buffer[8];
  StampedRead read;
  do {
    read = read_stamped(pair.server, buffer, sizeof buffer);
  } while (read.bytes < 0 && errno == EINTR);
  ASSERT_EQ(read.bytes, 1);
  EXPECT_EQ(read.received_at, 0);
}

TEST(KernelReceiveTime, TheEndOfTheStreamIsZeroBytes) {
  TcpPair pair;
  ASSERT_TRUE(enable_receive_timestamps(pair.server));
  ::shutdown(pair.client, SHUT_WR);
  char buffer[8];
  const StampedRead read = read_stamped(pair.server, buffer, sizeof buffer);
  EXPECT_EQ(read.bytes, 0);
  EXPECT_EQ(read.received_at, 0);
}

TEST(KernelReceiveTime, AsAnAsioReadItSaysWouldBlockEndOfStreamAndNowWithoutAStamp) {
  TcpPair pair;
  ASSERT_EQ(::fcntl(pair.server, F_SETFL, ::fcntl(pair.server, F_GETFL) | O_NONBLOCK), 0);
  char buffer[8];
  boost::system::error_code ec;
  Nanos received_at = -1;
  EXPECT_EQ(read_available_stamped(pair.server, boost::asio::buffer(buffer), ec, received_at), 0u);
  EXPECT_EQ(ec, boost::asio::error::would_block);

  // No timestamps asked for: the stamp is the monotonic clock at the read.
  ASSERT_EQ(::send(pair.client, "x", 1, 0), 1);
  const Nanos before_read = SteadyClock::monotonic_now();
  std::size_t n = 0;
  do {
    n = read_available_stamped(pair.server, boost::asio::buffer(buffer), ec, received_at);
  } while (ec == boost::asio::error::would_block);
  EXPECT_EQ(n, 1u);
  EXPECT_FALSE(ec);
  EXPECT_GE(received_at, before_read);
  EXPECT_LE(received_at, SteadyClock::monotonic_now());

  ::shutdown(pair.client, SHUT_WR);
  do {
    n = read_available_stamped(pair.server, boost::asio::buffer(buffer), ec, received_at);
  } while (ec == boost::asio::error::would_block);
  EXPECT_EQ(n, 0u);
  EXPECT_EQ(ec, boost::asio::error::eof);
}

}  // namespace
}  // namespace stampede::transport
