// The shared local server (dashboard, Prometheus exporter) over a real loopback socket: what a
// handler is told, and what the server answers by itself to requests it cannot hand over.
#include "dashboard/local_http_server.hpp"

#include <gtest/gtest.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <stdexcept>
#include <string>

namespace stampede::dashboard {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;

// Sends `bytes` on a fresh connection and reads until the server closes.
std::string exchange(std::uint16_t port, const std::string& bytes) {
  asio::io_context io;
  tcp::socket socket(io);
  socket.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
  asio::write(socket, asio::buffer(bytes));
  std::string out;
  boost::system::error_code ec;
  asio::read(socket, asio::dynamic_buffer(out), ec);
  return out;
}

class LocalHttpServerTest : public ::testing::Test {
 protected:
  LocalRequest seen;
  int requests = 0;
  LocalHttpServer server{"test", [this](const std::shared_ptr<HttpConnection>& c, const LocalRequest& r) {
                           seen = r;
                           ++requests;
                           c->respond(200, "text/plain", "hello");
                         },
                         ConnectionLimits{.max_head_bytes = 1024}};
  void SetUp() override { server.start("127.0.0.1", 0); }
};

TEST_F(LocalHttpServerTest, HandsTheHandlerMethodPathAndHost) {
  const std::string response =
      exchange(server.port(), "GET /events?x=1 HTTP/1.1\r\nhOsT:  LocalHost:4040 \r\nAccept: */*\r\n\r\n");
  EXPECT_EQ(response.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << response;
  EXPECT_NE(response.find("Content-Type: text/plain\r\n"), std::string::npos);
  EXPECT_NE(response.find("Content-Length: 5\r\n"), std::string::npos);
  EXPECT_NE(response.find("Cache-Control: no-store\r\n"), std::string::npos);
  EXPECT_NE(response.find("Connection: close\r\n"), std::string::npos);
  EXPECT_EQ(response.substr(response.size() - 9), "\r\n\r\nhello");
  server.stop();  // the handler ran on the server's thread: read what it saw after the join
  EXPECT_EQ(seen.method, "GET");
  EXPECT_EQ(seen.path, "/events");
  EXPECT_EQ(seen.host, "localhost:4040");
}

TEST_F(LocalHttpServerTest, AHeadRequestGetsTheHeadAlone) {
  const std::string response = exchange(server.port(), "HEAD / HTTP/1.1\r\nHost: h\r\n\r\n");
  EXPECT_EQ(response.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << response;
  EXPECT_NE(response.find("Content-Length: 5\r\n"), std::string::npos);
  EXPECT_EQ(response.substr(response.size() - 4), "\r\n\r\n");
}

TEST_F(LocalHttpServerTest, AnswersWhatItCannotHandOverItself) {
  EXPECT_EQ(exchange(server.port(), "GET / SPDY/3\r\n\r\n").rfind("HTTP/1.1 400 Bad Request\r\n", 0), 0u);
  EXPECT_EQ(exchange(server.port(), "GET http://example.com/ HTTP/1.1\r\n\r\n").rfind("HTTP/1.1 400", 0), 0u);
  EXPECT_EQ(exchange(server.port(), "G(T / HTTP/1.1\r\n\r\n").rfind("HTTP/1.1 400", 0), 0u);
  EXPECT_EQ(exchange(server.port(), "GET / HTTP/1.1\r\nno colon\r\n\r\n").rfind("HTTP/1.1 400", 0), 0u);
  const std::string big = "GET / HTTP/1.1\r\nX-Big: " + std::string(2048, 'a') + "\r\n\r\n";
  EXPECT_EQ(exchange(server.port(), big).rfind("HTTP/1.1 431 Request Header Fields Too Large\r\n", 0), 0u);
  // A peer that leaves mid-head gets nothing, and the server goes on.
  EXPECT_EQ(exchange(server.port(), "GET / HT"), "");
  EXPECT_EQ(exchange(server.port(), "GET / HTTP/1.1\r\n\r\n").rfind("HTTP/1.1 200", 0), 0u);
  server.stop();
  EXPECT_EQ(requests, 1);
}

TEST_F(LocalHttpServerTest, OneRequestPerConnection) {
  const std::string response = exchange(server.port(), "GET /a HTTP/1.1\r\n\r\nGET /b HTTP/1.1\r\n\r\n");
  EXPECT_EQ(response.find("HTTP/1.1", 1), std::string::npos) << response;
  server.stop();
  EXPECT_EQ(requests, 1);
  EXPECT_EQ(seen.path, "/a");
}

TEST(LocalHttpServer, SaysWhyItCannotListen) {
  LocalHttpServer first("first", [](const auto&, const auto&) {});
  first.start("127.0.0.1", 0);
  LocalHttpServer second("--prometheus", [](const auto&, const auto&) {});
  try {
    second.start("127.0.0.1", first.port());
    FAIL() << "two servers on one port";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("--prometheus: cannot listen on 127.0.0.1:" + std::to_string(first.port())),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(second.start("localhost", 0), std::runtime_error);  // an IP address, not a name
  EXPECT_TRUE(first.loopback());
}

TEST(LocalHttpServer, StopClosesAnOpenStream) {
  LocalHttpServer server("test", [](const std::shared_ptr<HttpConnection>& c, const LocalRequest&) {
    c->open_stream("text/event-stream");
    c->send(std::make_shared<const std::string>("data: 1\n\n"));
  });
  server.start("127.0.0.1", 0);
  asio::io_context io;
  tcp::socket socket(io);
  socket.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), server.port()));
  asio::write(socket, asio::buffer(std::string("GET /events HTTP/1.1\r\n\r\n")));
  std::string got;
  while (got.find("data: 1\n\n") == std::string::npos) {
    char buffer[256];
    got.append(buffer, socket.read_some(asio::buffer(buffer)));
  }
  EXPECT_EQ(got.find("Content-Length"), std::string::npos) << got;
  server.stop();
  std::string rest;
  boost::system::error_code ec;
  asio::read(socket, asio::dynamic_buffer(rest), ec);
  EXPECT_EQ(ec, asio::error::eof);
}

}  // namespace
}  // namespace stampede::dashboard
