#include "dashboard/dashboard_server.hpp"

#include <gtest/gtest.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/write.hpp>
#include <string>

namespace stampede::dashboard {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;

class Client {
 public:
  explicit Client(std::uint16_t port) : socket_(io_) {
    socket_.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
  }
  void send(const std::string& path, const std::string& host, const std::string& method = "GET") {
    asio::write(socket_, asio::buffer(method + " " + path + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n"));
  }
  // Everything until the server closes.
  std::string read_all() {
    std::string out;
    boost::system::error_code ec;
    asio::read(socket_, asio::dynamic_buffer(out), ec);
    return out;
  }
  // Up to and including `marker`.
  std::string read_until(const std::string& marker) {
    asio::read_until(socket_, asio::dynamic_buffer(buffer_), marker);
    const auto end = buffer_.find(marker) + marker.size();
    std::string out = buffer_.substr(0, end);
    buffer_.erase(0, end);
    return out;
  }

 private:
  asio::io_context io_;
  tcp::socket socket_;
  std::string buffer_;
};

std::string get(std::uint16_t port, const std::string& path, std::string host = "") {
  Client client(port);
  client.send(path, host.empty() ? "127.0.0.1:" + std::to_string(port) : host);
  return client.read_all();
}

class DashboardServerTest : public ::testing::Test {
 protected:
  DashboardServer server{"127.0.0.1", 0, "<!doctype html><title>page</title>"};
  void SetUp() override { server.start(); }
};

TEST_F(DashboardServerTest, ServesThePage) {
  ASSERT_NE(server.port(), 0);
  const std::string response = get(server.port(), "/");
  EXPECT_EQ(response.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << response;
  EXPECT_NE(response.find("Content-Type: text/html; charset=utf-8\r\n"), std::string::npos);
  EXPECT_NE(response.find("Cache-Control: no-store\r\n"), std::string::npos);
  EXPECT_NE(response.find("\r\n\r\n<!doctype html><title>page</title>"), std::string::npos);
}

TEST_F(DashboardServerTest, ResultsOnceFinishedOnly) {
  EXPECT_EQ(get(server.port(), "/results.json").rfind("HTTP/1.1 503", 0), 0u);
  server.finish(R"({"version":1})");
  // The finish is handed to the server's thread; a later request sees it.
  std::string response;
  for (int i = 0; i < 200 && response.find("200 OK") == std::string::npos; ++i) response = get(server.port(), "/results.json");
  EXPECT_NE(response.find("Content-Type: application/json\r\n"), std::string::npos) << response;
  EXPECT_NE(response.find("\r\n\r\n{\"version\":1}"), std::string::npos);
}

TEST_F(DashboardServerTest, UnknownPathsAndMethods) {
  EXPECT_EQ(get(server.port(), "/nope").rfind("HTTP/1.1 404", 0), 0u);
  Client client(server.port());
  client.send("/", "127.0.0.1:" + std::to_string(server.port()), "POST");
  EXPECT_EQ(client.read_all().rfind("HTTP/1.1 405", 0), 0u);
}

// A page elsewhere can point a name of its own at 127.0.0.1 (DNS rebinding); the browser
// then sends that name as Host, and the dashboard refuses.
TEST_F(DashboardServerTest, RefusesHostsOtherThanLoopback) {
  EXPECT_EQ(get(server.port(), "/results.json", "attacker.example:" + std::to_string(server.port())).rfind("HTTP/1.1 403", 0), 0u);
  EXPECT_EQ(get(server.port(), "/", "localhost:" + std::to_string(server.port())).rfind("HTTP/1.1 200", 0), 0u);
}

TEST_F(DashboardServerTest, EventsReplayTheScenarioThenFollowIt) {
  server.begin(R"({"results":[{"scenario":"a"}]})");
  server.add_second(R"({"second":0})");
  Client client(server.port());
  client.send("/events", "127.0.0.1:" + std::to_string(server.port()));
  const std::string head = client.read_until("\r\n\r\n");
  EXPECT_EQ(head.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << head;
  EXPECT_NE(head.find("Content-Type: text/event-stream"), std::string::npos);
  EXPECT_EQ(client.read_until("\n\n"), "retry: 1000\n\n");
  EXPECT_EQ(client.read_until("\n\n"), "event: start\ndata: {\"results\":[{\"scenario\":\"a\"}]}\n\n");
  EXPECT_EQ(client.read_until("\n\n"), "data: {\"second\":0}\n\n");
  server.add_second(R"({"second":1})");
  EXPECT_EQ(client.read_until("\n\n"), "data: {\"second\":1}\n\n");
  server.finish(R"({"done":true})");
  EXPECT_EQ(client.read_until("\n\n"), "event: done\ndata: {\"done\":true}\n\n");

  // A scenario that starts later replaces the replay.
  server.begin(R"({"results":[{"scenario":"b"}]})");
  EXPECT_EQ(client.read_until("\n\n"), "event: start\ndata: {\"results\":[{\"scenario\":\"b\"}]}\n\n");
  Client late(server.port());
  late.send("/events", "127.0.0.1:" + std::to_string(server.port()));
  late.read_until("retry: 1000\n\n");
  EXPECT_EQ(late.read_until("\n\n"), "event: start\ndata: {\"results\":[{\"scenario\":\"b\"}]}\n\n");
}

TEST(DashboardServer, SaysWhyItCannotListen) {
  DashboardServer first("127.0.0.1", 0, "");
  first.start();
  DashboardServer second("127.0.0.1", first.port(), "");
  try {
    second.start();
    FAIL() << "two servers on one port";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot listen on 127.0.0.1:" + std::to_string(first.port())), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace stampede::dashboard
