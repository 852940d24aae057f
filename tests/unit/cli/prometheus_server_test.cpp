// --prometheus over a real loopback socket: /metrics serves what was published last.
#include "cli/prometheus_server.hpp"

#include <gtest/gtest.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <stdexcept>
#include <string>

#include "report/prometheus_text.hpp"

namespace stampede::cli {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;

std::string request(std::uint16_t port, const std::string& method, const std::string& path) {
  asio::io_context io;
  tcp::socket socket(io);
  socket.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
  asio::write(socket, asio::buffer(method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
  std::string out;
  boost::system::error_code ec;
  asio::read(socket, asio::dynamic_buffer(out), ec);
  return out;
}

TEST(PrometheusServer, ServesTheLatestTextAtMetrics) {
  PrometheusServer server("127.0.0.1:0");
  server.publish("a 1\n");
  server.publish("a 2\n");
  const std::string response = request(server.port(), "GET", "/metrics?x=1");
  EXPECT_EQ(response.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << response;
  EXPECT_NE(response.find("Content-Type: " + std::string(report::kPrometheusContentType) + "\r\n"), std::string::npos);
  EXPECT_NE(response.find("Cache-Control: no-store\r\n"), std::string::npos);
  EXPECT_EQ(response.substr(response.size() - 8), "\r\n\r\na 2\n");

  const std::string head = request(server.port(), "HEAD", "/metrics");
  EXPECT_NE(head.find("Content-Length: 4\r\n"), std::string::npos) << head;
  EXPECT_EQ(head.substr(head.size() - 4), "\r\n\r\n");
}

TEST(PrometheusServer, OtherPathsAndMethods) {
  PrometheusServer server("127.0.0.1:0");
  EXPECT_EQ(request(server.port(), "GET", "/").rfind("HTTP/1.1 404", 0), 0u);
  EXPECT_EQ(request(server.port(), "POST", "/metrics").rfind("HTTP/1.1 405", 0), 0u);
}

TEST(PrometheusServer, SaysWhatIsWrongWithTheAddress) {
  PrometheusServer first("127.0.0.1:0");
  const std::string taken = "127.0.0.1:" + std::to_string(first.port());
  try {
    PrometheusServer second(taken);
    FAIL() << "two servers on one port";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("--prometheus: cannot listen on " + taken), std::string::npos) << e.what();
  }
  EXPECT_THROW(PrometheusServer("not an address"), std::runtime_error);
}

}  // namespace
}  // namespace stampede::cli
