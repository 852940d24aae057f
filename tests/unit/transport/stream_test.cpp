// The connection seam over real loopback sockets: connect (endpoint fallback, source
// binding), readiness-based reads, the idle liveness check, and closing mid-connect.
#include "transport/stream.hpp"

#include <gtest/gtest.h>

#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <optional>

#include "transport/run_until.hpp"
#include "wait_until.hpp"

namespace stampede::transport {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;
using stampede::testing::peer_has_closed;
using stampede::testing::unread_bytes;
using stampede::testing::wait_until;

class TransportStream : public ::testing::Test {
 protected:
  TransportStream() : acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)) {}

  Resolver::Endpoints endpoints(std::vector<tcp::endpoint> list) {
    return std::make_shared<const std::vector<tcp::endpoint>>(std::move(list));
  }
  tcp::endpoint listening() const { return acceptor.local_endpoint(); }
  // A loopback port that refuses: bound, never listening.
  tcp::endpoint refusing() {
    closed.open(tcp::v4());
    closed.bind(tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
    return closed.local_endpoint();
  }

  // Connects `stream`, accepting on the server side into `peer`; returns the failure, if any.
  std::optional<Failure> connect(Stream& stream, Resolver::Endpoints to, Stream::ConnectOptions options = {}) {
    bool done = false;
    std::optional<Failure> failure;
    acceptor.async_accept(peer, [](const boost::system::error_code&) {});
    stream.async_connect(std::move(to), std::move(options), [&](const Failure* f) {
      if (f != nullptr) failure = *f;
      done = true;
    });
    EXPECT_FALSE(done);  // never from inside async_connect
    run_until([&] { return done && (failure || peer.is_open()); });
    return failure;
  }

  void run_until(const std::function<bool()>& done) { testing::run_until(io, done); }

  asio::io_context io;
  tcp::acceptor acceptor;
  tcp::socket peer{io};
  tcp::socket closed{io};
};

TEST_F(TransportStream, ConnectsWritesAndReadsWhatIsThere) {
  Stream stream(io, nullptr);
  ASSERT_FALSE(connect(stream, endpoints({listening()})));
  EXPECT_FALSE(stream.is_tls());
  EXPECT_FALSE(stream.may_hold_input());

  char scratch[64];
  boost::system::error_code ec;
  EXPECT_EQ(stream.read_available(asio::buffer(scratch), ec), 0u);
  EXPECT_EQ(ec, asio::error::would_block);  // never blocks

  bool written = false;
  const std::string ping = "ping";
  stream.async_write(asio::buffer(ping), [&](const boost::system::error_code& e, std::size_t n) {
    EXPECT_FALSE(e);
    EXPECT_EQ(n, 4u);
    written = true;
  });
  run_until([&] { return written; });
  char got[4];
  asio::read(peer, asio::buffer(got));
  EXPECT_EQ(std::string(got, 4), "ping");

  asio::write(peer, asio::buffer(std::string("pong")));
  bool readable = false;
  stream.async_wait_readable([&](const boost::system::error_code& e) {
    EXPECT_FALSE(e);
    readable = true;
  });
  run_until([&] { return readable; });
  EXPECT_EQ(stream.read_available(asio::buffer(scratch), ec), 4u);
  EXPECT_EQ(std::string(scratch, 4), "pong");

  peer.close();
  stream.async_wait_readable([&](const boost::system::error_code&) { readable = false; });
  run_until([&] { return !readable; });
  EXPECT_EQ(stream.read_available(asio::buffer(scratch), ec), 0u);
  EXPECT_EQ(ec, asio::error::eof);
}

TEST_F(TransportStream, RefusedNamesTheEndpoint) {
  Stream stream(io, nullptr);
  const auto target = refusing();
  auto failure = connect(stream, endpoints({target}));
  ASSERT_TRUE(failure);
  EXPECT_EQ(failure->step, Step::connect);
  EXPECT_EQ(failure_reason(*failure), "refused");
  EXPECT_NE(describe_failure(*failure).find("127.0.0.1:" + std::to_string(target.port())), std::string::npos)
      << describe_failure(*failure);
}

TEST_F(TransportStream, FallsBackToTheNextEndpoint) {
  Stream stream(io, nullptr);
  EXPECT_FALSE(connect(stream, endpoints({refusing(), listening()})));
  EXPECT_TRUE(stream.is_open());
}

TEST_F(TransportStream, NoEndpointsIsADnsFailure) {
  Stream stream(io, nullptr);
  bool done = false;
  stream.async_connect(endpoints({}), {}, [&](const Failure* f) {
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(failure_reason(*f), "dns");
    done = true;
  });
  run_until([&] { return done; });
}

TEST_F(TransportStream, BindsToTheNextSourceAddress) {
  const std::vector<asio::ip::address> sources = {asio::ip::make_address("127.0.0.3")};
  std::size_t next = 0;
  Stream::ConnectOptions options;
  options.sources = SourceAddresses(sources, next);
  Stream stream(io, nullptr);
  ASSERT_FALSE(connect(stream, endpoints({listening()}), options));
  EXPECT_EQ(peer.remote_endpoint().address(), asio::ip::make_address("127.0.0.3"));
  EXPECT_EQ(stream.socket().local_endpoint().address(), asio::ip::make_address("127.0.0.3"));
}

TEST_F(TransportStream, IdleLivenessCheck) {
  char scratch[64];
  {
    Stream stream(io, nullptr);
    ASSERT_FALSE(connect(stream, endpoints({listening()})));
    EXPECT_TRUE(stream.usable_when_idle(asio::buffer(scratch)));
    peer.close();  // the server's idle timeout
    const int fd = stream.socket().native_handle();
    ASSERT_TRUE(wait_until("the FIN arrived", [&] { return peer_has_closed(fd); }));
    EXPECT_FALSE(stream.usable_when_idle(asio::buffer(scratch)));
  }
  {
    Stream stream(io, nullptr);
    peer = tcp::socket(io);
    ASSERT_FALSE(connect(stream, endpoints({listening()})));
    asio::write(peer, asio::buffer(std::string("HTTP/1.1 408 Request Timeout\r\n\r\n")));
    const int fd = stream.socket().native_handle();
    ASSERT_TRUE(wait_until("the 408 arrived", [&] { return unread_bytes(fd) > 0; }));
    EXPECT_FALSE(stream.usable_when_idle(asio::buffer(scratch)));  // unasked bytes: framing lost
  }
  Stream never_connected(io, nullptr);
  EXPECT_FALSE(never_connected.usable_when_idle(asio::buffer(scratch)));
}

TEST_F(TransportStream, ClosingWhileConnectingEndsTheAttemptOnce) {
  Stream stream(io, nullptr);
  int calls = 0;
  std::optional<Failure> failure;
  stream.async_connect(endpoints({listening()}), {}, [&](const Failure* f) {
    ++calls;
    if (f != nullptr) failure = *f;
  });
  io.poll_one();  // the attempt has started
  stream.close();
  run_until([&] { return calls > 0; });
  io.restart();
  io.poll();
  EXPECT_EQ(calls, 1);
  if (failure) {
    EXPECT_EQ(failure_reason(*failure), "closed");
  }  // (or it had connected already)
  EXPECT_FALSE(stream.is_open());
}

}  // namespace
}  // namespace stampede::transport
