// Batched sends (transport/send_batch.hpp) through Stream::async_write_batched, over real
// loopback sockets: one submission per loop turn, a full socket finishing later, a stream
// closed or destroyed before its batch goes, a peer that reset, and the switch that turns
// it off.
#include "transport/send_batch.hpp"

#include <gtest/gtest.h>
#include <sys/socket.h>

#include <boost/asio/read.hpp>
#include <array>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "transport/run_until.hpp"
#include "transport/stream.hpp"

namespace stampede::transport {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;
using boost::system::error_code;

struct Written {
  bool done = false;
  error_code ec;
  std::size_t bytes = 0;
  Nanos sent_at = -1;
};

class SendBatchTest : public ::testing::Test {
 protected:
  SendBatchTest() : acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)), clock(7 * kSecond) {}

  void SetUp() override {
    batch = SendBatch::open(io, clock);
    if (!batch) GTEST_SKIP() << "io_uring is not available on this machine (the clients write one send at a time)";
  }

  // A connected stream and the server's end of it.
  std::pair<std::unique_ptr<Stream>, std::unique_ptr<tcp::socket>> connected() {
    auto stream = std::make_unique<Stream>(io, nullptr);
    auto peer = std::make_unique<tcp::socket>(io);
    bool accepted = false;
    bool connected = false;
    acceptor.async_accept(*peer, [&](const error_code& ec) { accepted = !ec; });
    stream->async_connect(std::make_shared<const std::vector<tcp::endpoint>>(1, acceptor.local_endpoint()), {},
                          [&](const Failure* failure) { connected = failure == nullptr; });
    run_until([&] { return accepted && connected; });
    return {std::move(stream), std::move(peer)};
  }

  void write(Stream& stream, const std::vector<asio::const_buffer>& buffers, Written& into) {
    stream.async_write_batched(*batch, buffers, [&into](const error_code& ec, std::size_t n, Nanos sent_at) {
      into = Written{true, ec, n, sent_at};
    });
  }

  void run_until(const std::function<bool()>& done) { testing::run_until(io, done); }

  // Everything the peer can read within `wait`.
  std::string drain(tcp::socket& peer, std::chrono::milliseconds wait = std::chrono::milliseconds(200)) {
    std::string got;
    const auto deadline = std::chrono::steady_clock::now() + wait;
    peer.non_blocking(true);
    char buffer[65536];
    while (std::chrono::steady_clock::now() < deadline) {
      error_code ec;
      const std::size_t n = peer.read_some(asio::buffer(buffer), ec);
      if (n > 0) got.append(buffer, n);
      if (ec && ec != asio::error::would_block) break;
      if (ec == asio::error::would_block) io.run_one_for(std::chrono::milliseconds(1));
      if (io.stopped()) io.restart();
    }
    return got;
  }

  asio::io_context io;
  tcp::acceptor acceptor;
  ManualClock clock;
  std::unique_ptr<SendBatch> batch;
};

TEST_F(SendBatchTest, TheSendsOfOneLoopTurnGoInOneSubmission) {
  auto [a, peer_a] = connected();
  auto [b, peer_b] = connected();
  auto [c, peer_c] = connected();
  const std::string head = "GET / HTTP/1.1\r\nhost: x\r\n\r\n";
  const std::string body_a = "from a";
  Written wa, wb, wc;
  write(*a, {asio::buffer(head), asio::buffer(body_a)}, wa);
  write(*b, {asio::buffer(head)}, wb);
  write(*c, {asio::buffer(std::string_view("")), asio::buffer(body_a), asio::buffer(head)}, wc);
  EXPECT_FALSE(wa.done || wb.done || wc.done) << "never from inside the call";
  clock.set(9 * kSecond);  // the batch stamps when it goes, not when a send was queued
  run_until([&] { return wa.done && wb.done && wc.done; });

  EXPECT_EQ(batch->submissions(), 1u);
  EXPECT_EQ(batch->sends(), 3u);
  for (const Written* w : {&wa, &wb, &wc}) {
    EXPECT_FALSE(w->ec) << w->ec.message();
    EXPECT_EQ(w->sent_at, 9 * kSecond);
  }
  EXPECT_EQ(wa.bytes, head.size() + body_a.size());
  EXPECT_EQ(wb.bytes, head.size());
  EXPECT_EQ(wc.bytes, body_a.size() + head.size());
  EXPECT_EQ(drain(*peer_a), head + body_a);
  EXPECT_EQ(drain(*peer_b), head);
  EXPECT_EQ(drain(*peer_c), body_a + head);

  // A later turn is a submission of its own.
  Written again;
  write(*a, {asio::buffer(body_a)}, again);
  run_until([&] { return again.done; });
  EXPECT_EQ(batch->submissions(), 2u);
  EXPECT_EQ(drain(*peer_a), body_a);
}

TEST_F(SendBatchTest, WhatAFullSocketDoesNotTakeIsSentOnceItHasRoom) {
  auto [stream, peer] = connected();
  // Fixed buffers on both ends: with the kernel's autotuning the peer's receive window
  // could still grow while the test waits, and the write would complete (seen under load).
  const int small = 64 * 1024;
  ::setsockopt(stream->socket().native_handle(), SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
  ::setsockopt(peer->native_handle(), SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
  // Fill the path (the client's send buffer, the peer's receive buffer) until the socket
  // takes nothing more.
  std::string filler;
  const std::string chunk(65536, 'f');
  for (;;) {
    const ssize_t n = ::send(stream->socket().native_handle(), chunk.data(), chunk.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n <= 0) break;
    filler.append(chunk, 0, static_cast<std::size_t>(n));
  }
  ASSERT_FALSE(filler.empty());
  std::string payload(300 * 1024, 'p');
  for (std::size_t i = 0; i < payload.size(); i += 997) payload[i] = static_cast<char>('a' + i % 26);
  Written w;
  write(*stream, {asio::buffer(payload)}, w);
  for (int i = 0; i < 20; ++i) io.run_one_for(std::chrono::milliseconds(5));
  EXPECT_FALSE(w.done) << "the socket had no room: the write waits for it";
  EXPECT_EQ(batch->sends(), 1u);

  std::string got;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (got.size() < filler.size() + payload.size() && std::chrono::steady_clock::now() < deadline) {
    got += drain(*peer, std::chrono::milliseconds(20));
  }
  run_until([&] { return w.done; });
  EXPECT_FALSE(w.ec) << w.ec.message();
  EXPECT_EQ(w.bytes, payload.size());
  ASSERT_EQ(got.size(), filler.size() + payload.size());
  EXPECT_TRUE(got == filler + payload) << "bytes lost, doubled or out of order";
}

TEST_F(SendBatchTest, AStreamClosedBeforeItsBatchGoesSendsNothing) {
  auto [stream, peer] = connected();
  const int fd = stream->socket().native_handle();
  Written w;
  const std::string request = "GET /closed HTTP/1.1\r\n\r\n";
  write(*stream, {asio::buffer(request)}, w);
  stream->close();
  // The descriptor number comes free and a new connection may take it before the batch goes:
  // the bytes must not reach that one.
  auto [next, next_peer] = connected();
  run_until([&] { return w.done; });
  EXPECT_EQ(w.ec, asio::error::operation_aborted);
  EXPECT_EQ(w.bytes, 0u);
  EXPECT_EQ(batch->sends(), 0u);
  EXPECT_EQ(drain(*next_peer), "") << "the new connection" << (next->socket().native_handle() == fd ? ", on the same descriptor," : "")
                                   << " got the closed one's bytes";
}

TEST_F(SendBatchTest, AStreamDestroyedBeforeItsBatchGoesIsToldAborted) {
  auto [stream, peer] = connected();
  Written w;
  const std::string request = "GET /gone HTTP/1.1\r\n\r\n";
  write(*stream, {asio::buffer(request)}, w);
  stream.reset();
  run_until([&] { return w.done; });
  EXPECT_EQ(w.ec, asio::error::operation_aborted);
  EXPECT_EQ(drain(*peer), "");
}

TEST_F(SendBatchTest, APeerThatResetIsTheSocketsError) {
  auto [stream, peer] = connected();
  peer->set_option(asio::socket_base::linger(true, 0));
  peer->close();  // a reset, not a FIN
  for (int i = 0; i < 10; ++i) io.run_one_for(std::chrono::milliseconds(2));
  Written w;
  const std::string request = "GET / HTTP/1.1\r\n\r\n";
  write(*stream, {asio::buffer(request)}, w);
  run_until([&] { return w.done; });
  EXPECT_TRUE(w.ec == asio::error::connection_reset || w.ec == asio::error::broken_pipe) << w.ec.message();
}

// Gathered writes (a WebSocket's frames): the bytes are asked for when the batch goes, so
// what the caller adds after queueing, in the same turn, leaves in the same send.
TEST_F(SendBatchTest, AGatheredWriteTakesWhatWasAddedLaterInTheTurn) {
  auto [a, peer_a] = connected();
  auto [b, peer_b] = connected();
  std::string frames_a = "first";
  std::string frames_b = "other";
  int asked = 0;
  Written wa, wb;
  auto gather_from = [&asked](std::string& frames) {
    return [&asked, &frames](std::array<iovec, SendBatch::kMaxBuffers>& buffers) -> std::size_t {
      ++asked;
      buffers[0] = iovec{frames.data(), frames.size()};
      return 1;
    };
  };
  a->async_write_gathered(*batch, gather_from(frames_a),
                          [&wa](const error_code& ec, std::size_t n, Nanos at) { wa = Written{true, ec, n, at}; });
  b->async_write_gathered(*batch, gather_from(frames_b),
                          [&wb](const error_code& ec, std::size_t n, Nanos at) { wb = Written{true, ec, n, at}; });
  EXPECT_EQ(asked, 0) << "asked only when the batch goes";
  frames_a += ", second";  // later in the same turn
  run_until([&] { return wa.done && wb.done; });
  EXPECT_EQ(asked, 2);
  EXPECT_EQ(batch->submissions(), 1u);
  EXPECT_EQ(batch->sends(), 2u);
  EXPECT_FALSE(wa.ec) << wa.ec.message();
  EXPECT_EQ(wa.bytes, frames_a.size());
  EXPECT_EQ(drain(*peer_a), "first, second");
  EXPECT_EQ(drain(*peer_b), "other");
}

TEST_F(SendBatchTest, AGatheredWriteOnAStreamClosedMeanwhileIsNeitherAskedNorSent) {
  auto [stream, peer] = connected();
  bool asked = false;
  const std::string frames = "never";
  Written w;
  stream->async_write_gathered(
      *batch,
      [&](std::array<iovec, SendBatch::kMaxBuffers>& buffers) -> std::size_t {
        asked = true;
        buffers[0] = iovec{const_cast<char*>(frames.data()), frames.size()};
        return 1;
      },
      [&w](const error_code& ec, std::size_t n, Nanos at) { w = Written{true, ec, n, at}; });
  stream->close();
  auto [next, next_peer] = connected();  // may take the closed one's descriptor
  run_until([&] { return w.done; });
  EXPECT_FALSE(asked);
  EXPECT_EQ(w.ec, asio::error::operation_aborted);
  EXPECT_EQ(batch->sends(), 0u);
  EXPECT_EQ(drain(*next_peer), "");
}

TEST_F(SendBatchTest, AGatherWithNothingToSendIsToldAborted) {
  auto [stream, peer] = connected();
  Written w;
  stream->async_write_gathered(
      *batch, [](std::array<iovec, SendBatch::kMaxBuffers>&) -> std::size_t { return 0; },
      [&w](const error_code& ec, std::size_t n, Nanos at) { w = Written{true, ec, n, at}; });
  run_until([&] { return w.done; });
  EXPECT_EQ(w.ec, asio::error::operation_aborted);
  EXPECT_EQ(batch->sends(), 0u);
}

// A worker that fell behind sends thousands in one turn (a rank's heartbeats after a stall):
// the batch does not keep room for that many afterwards.
TEST_F(SendBatchTest, ABigBatchsRoomIsNotKept) {
  auto [stream, peer] = connected();
  constexpr int kSends = 1500;
  const std::string frame = "hb";
  int done = 0;
  for (int i = 0; i < kSends; ++i) {
    stream->async_write_gathered(
        *batch,
        [&frame](std::array<iovec, SendBatch::kMaxBuffers>& buffers) -> std::size_t {
          buffers[0] = iovec{const_cast<char*>(frame.data()), frame.size()};
          return 1;
        },
        [&done](const error_code& ec, std::size_t, Nanos) { done += ec ? 0 : 1; });
  }
  EXPECT_GE(batch->kept_capacity(), static_cast<std::size_t>(kSends));
  run_until([&] { return done == kSends; });
  EXPECT_EQ(batch->sends(), static_cast<std::size_t>(kSends));
  EXPECT_EQ(drain(*peer).size(), kSends * frame.size());
  EXPECT_LE(batch->kept_capacity(), 512u) << "room for a burst of " << kSends << " kept";
}

TEST(SendBatchSwitch, StampedeIoUringZeroTurnsItOff) {
  asio::io_context io;
  ManualClock clock;
  ::setenv("STAMPEDE_IO_URING", "0", 1);
  EXPECT_EQ(SendBatch::open(io, clock), nullptr);
  ::unsetenv("STAMPEDE_IO_URING");
}

}  // namespace
}  // namespace stampede::transport
