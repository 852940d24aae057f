#include "dashboard/local_http_server.hpp"

#include <fmt/format.h>

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <stdexcept>
#include <thread>
#include <vector>

namespace stampede::dashboard {

namespace asio = boost::asio;
using asio::ip::tcp;

struct LocalHttpServer::Impl {
  std::string what;
  HttpConnection::Handler handler;
  ConnectionLimits limits;
  asio::io_context io{1};
  tcp::acceptor acceptor{io};
  std::thread thread;
  std::atomic<std::uint16_t> bound_port{0};
  bool loopback = true;
  std::vector<std::weak_ptr<HttpConnection>> connections;  // to close them at stop

  void accept() {
    acceptor.async_accept([this](const boost::system::error_code& ec, tcp::socket socket) {
      if (ec == asio::error::operation_aborted) return;
      if (!ec) {
        auto connection = std::make_shared<HttpConnection>(std::move(socket), limits, handler);
        std::erase_if(connections, [](const auto& weak) { return weak.expired(); });
        connections.push_back(connection);
        connection->start();
      }
      accept();  // a failed accept (out of descriptors) must not end the endpoint
    });
  }
};

LocalHttpServer::LocalHttpServer(std::string what, HttpConnection::Handler handler, ConnectionLimits limits)
    : impl_(std::make_unique<Impl>()) {
  impl_->what = std::move(what);
  impl_->handler = std::move(handler);
  impl_->limits = limits;
}

LocalHttpServer::~LocalHttpServer() { stop(); }

void LocalHttpServer::start(const std::string& host, std::uint16_t port) {
  Impl& s = *impl_;
  boost::system::error_code ec;
  const auto address = asio::ip::make_address(host, ec);
  if (ec) throw std::runtime_error(fmt::format("{}: \"{}\" is not an IP address", s.what, host));
  s.loopback = address.is_loopback();
  const tcp::endpoint endpoint(address, port);
  s.acceptor.open(endpoint.protocol(), ec);
  if (!ec) s.acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) s.acceptor.bind(endpoint, ec);
  if (!ec) s.acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    const std::string shown = address.is_v6() ? fmt::format("[{}]:{}", host, port) : fmt::format("{}:{}", host, port);
    throw std::runtime_error(fmt::format("{}: cannot listen on {}: {}", s.what, shown, ec.message()));
  }
  s.bound_port = s.acceptor.local_endpoint().port();
  s.accept();
  s.thread = std::thread([&s] { s.io.run(); });
}

std::uint16_t LocalHttpServer::port() const { return impl_->bound_port.load(); }

bool LocalHttpServer::loopback() const { return impl_->loopback; }

void LocalHttpServer::post(std::function<void()> fn) { asio::post(impl_->io, std::move(fn)); }

void LocalHttpServer::stop() {
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
