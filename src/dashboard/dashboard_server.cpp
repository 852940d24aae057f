#include "dashboard/dashboard_server.hpp"

#include <fmt/format.h>

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <stdexcept>
#include <thread>
#include <vector>

#include "dashboard/event_hub.hpp"
#include "dashboard/http_connection.hpp"

namespace stampede::dashboard {

namespace asio = boost::asio;
using asio::ip::tcp;

struct DashboardServer::Impl {
  std::string host;
  std::uint16_t requested_port;
  std::string page;
  asio::io_context io;
  tcp::acceptor acceptor{io};
  std::thread thread;
  std::atomic<std::uint16_t> bound_port{0};
  bool loopback = true;
  EventHub hub;  // the server thread's
  std::vector<std::weak_ptr<HttpConnection>> connections;  // to close them at stop

  void accept() {
    acceptor.async_accept([this](const boost::system::error_code& ec, tcp::socket socket) {
      if (ec == asio::error::operation_aborted) return;
      if (!ec) {
        auto connection = std::make_shared<HttpConnection>(
            std::move(socket), [this](const std::shared_ptr<HttpConnection>& c, const RequestHead& head) { route(c, head); });
        std::erase_if(connections, [](const auto& weak) { return weak.expired(); });
        connections.push_back(connection);
        connection->start();
      }
      accept();
    });
  }

  void route(const std::shared_ptr<HttpConnection>& connection, const RequestHead& head) {
    if (loopback && !is_loopback_host(head.host, bound_port.load())) {
      connection->respond(403, "text/plain; charset=utf-8",
                          "This dashboard answers requests to 127.0.0.1, localhost or [::1] only.\n");
      return;
    }
    if (head.method != "GET") {
      connection->respond(405, "text/plain; charset=utf-8", "only GET\n");
      return;
    }
    if (head.path == "/") {
      connection->respond(200, "text/html; charset=utf-8", page);
    } else if (head.path == "/events") {
      connection->open_stream();
      hub.subscribe(connection);
    } else if (head.path == "/results.json") {
      if (hub.results())
        connection->respond(200, "application/json", *hub.results());
      else
        connection->respond(503, "application/json", R"({"error":"the run has not finished yet"})");
    } else {
      connection->respond(404, "text/plain; charset=utf-8", "not found\n");
    }
  }
};

DashboardServer::DashboardServer(std::string host, std::uint16_t port, std::string page_html)
    : impl_(std::make_unique<Impl>()) {
  impl_->host = std::move(host);
  impl_->requested_port = port;
  impl_->page = std::move(page_html);
}

DashboardServer::~DashboardServer() { stop(); }

void DashboardServer::start() {
  Impl& s = *impl_;
  boost::system::error_code ec;
  const auto address = asio::ip::make_address(s.host, ec);
  if (ec) throw std::runtime_error(fmt::format("dashboard: \"{}\" is not an IP address", s.host));
  s.loopback = address.is_loopback();
  const tcp::endpoint endpoint(address, s.requested_port);
  const auto fail = [&](const boost::system::error_code& error) {
    throw std::runtime_error(
        fmt::format("dashboard: cannot listen on {}:{}: {}", s.host, s.requested_port, error.message()));
  };
  s.acceptor.open(endpoint.protocol(), ec);
  if (!ec) s.acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) s.acceptor.bind(endpoint, ec);
  if (!ec) s.acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) fail(ec);
  s.bound_port = s.acceptor.local_endpoint().port();
  s.accept();
  s.thread = std::thread([&s] { s.io.run(); });
}

std::uint16_t DashboardServer::port() const { return impl_->bound_port.load(); }

void DashboardServer::begin(std::string scenario_json) {
  asio::post(impl_->io, [this, json = std::move(scenario_json)]() mutable { impl_->hub.begin(std::move(json)); });
}

void DashboardServer::add_second(std::string second_json) {
  asio::post(impl_->io, [this, json = std::move(second_json)]() mutable { impl_->hub.add_second(std::move(json)); });
}

void DashboardServer::finish(std::string results_json) {
  asio::post(impl_->io, [this, json = std::move(results_json)]() mutable { impl_->hub.finish(std::move(json)); });
}

void DashboardServer::stop() {
  Impl& s = *impl_;
  if (!s.thread.joinable()) return;
  asio::post(s.io, [&s] {
    boost::system::error_code ignored;
    s.acceptor.close(ignored);
    for (const auto& weak : s.connections)
      if (auto connection = weak.lock()) connection->close();
    // Every pending operation now completes with operation_aborted and run() returns.
  });
  s.thread.join();
}

}  // namespace stampede::dashboard
