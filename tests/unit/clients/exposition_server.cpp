#include "clients/exposition_server.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <algorithm>
#include <cctype>
#include <chrono>
#include <exception>
#include <string_view>

namespace stampede::testing {

namespace asio = boost::asio;
using asio::awaitable;
using asio::use_awaitable;
using asio::ip::tcp;

namespace {

std::string response(int status, std::string_view content_type, std::string_view body) {
  std::string out = "HTTP/1.1 " + std::to_string(status) + (status == 200 ? " OK" : " Error") + "\r\n";
  out += "Content-Type: ";
  out += content_type;
  out += "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  out += body;
  return out;
}

// The n-th scrape's body (n from 1): everything grows by the same amount per scrape.
std::string metrics_body(int n, bool openmetrics) {
  const auto num = [](double v) { return std::to_string(v); };
  std::string b;
  b += "# HELP requests Requests served.\n# TYPE requests" + std::string(openmetrics ? "" : "_total") + " counter\n";
  b += "requests_total " + num(10.0 * n) + "\n";
  b += "# HELP queue_length Jobs waiting.\n# TYPE queue_length gauge\nqueue_length 7\n";
  b += "# HELP app_request_duration_seconds How long requests took.\n";
  b += "# TYPE app_request_duration_seconds histogram\n";
  b += "app_request_duration_seconds_bucket{le=\"0.01\"} " + num(5.0 * n) + "\n";
  b += "app_request_duration_seconds_bucket{le=\"0.1\"} " + num(15.0 * n) + "\n";
  b += "app_request_duration_seconds_bucket{le=\"1.0\"} " + num(19.0 * n) + "\n";
  b += "app_request_duration_seconds_bucket{le=\"+Inf\"} " + num(20.0 * n) + "\n";
  b += "app_request_duration_seconds_sum " + num(4.525 * n) + "\n";
  b += "app_request_duration_seconds_count " + num(20.0 * n) + "\n";
  if (openmetrics) b += "# EOF\n";
  return b;
}

std::string header_value(std::string_view head, std::string_view name) {
  std::string lower(head);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  const std::string key = "\r\n" + std::string(name) + ":";
  const std::size_t at = lower.find(key);
  if (at == std::string::npos) return {};
  std::size_t start = at + key.size();
  while (start < head.size() && head[start] == ' ') ++start;
  const std::size_t end = head.find("\r\n", start);
  return std::string(head.substr(start, end - start));
}

}  // namespace

struct ExpositionServer::Impl {
  explicit Impl(ExpositionServer& s) : server(s), acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)) {}

  awaitable<void> accept_loop() {
    for (;;) {
      tcp::socket socket = co_await acceptor.async_accept(use_awaitable);
      ++server.accepted_;
      asio::co_spawn(io, serve(std::move(socket)), [](std::exception_ptr) {});
    }
  }

  // One connection: requests until the client closes, or a path that ends it.
  awaitable<void> serve(tcp::socket socket) {
    struct Open {
      std::atomic<int>& n;
      explicit Open(std::atomic<int>& count) : n(count) { ++n; }
      ~Open() { --n; }
    } open(server.open_);
    asio::streambuf in;
    for (;;) {
      const std::size_t head_size = co_await asio::async_read_until(socket, in, "\r\n\r\n", use_awaitable);
      std::string head(asio::buffers_begin(in.data()), asio::buffers_begin(in.data()) + static_cast<long>(head_size));
      in.consume(head_size);
      const std::size_t path_start = head.find(' ') + 1;
      const std::string path = head.substr(path_start, head.find(' ', path_start) - path_start);
      int n = 0;
      {
        std::lock_guard lock(server.mutex_);
        n = ++server.requests_[path];
        server.last_accept_ = header_value(head, "accept");
      }
      if (path == "/metrics" || path == "/openmetrics") {
        const bool om = path == "/openmetrics";
        const std::string out = response(200, om ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
                                                 : "text/plain; version=0.0.4; charset=utf-8",
                                         metrics_body(n, om));
        co_await asio::async_write(socket, asio::buffer(out), use_awaitable);
      } else if (path == "/stall") {
        char byte;
        co_await asio::async_read(socket, asio::buffer(&byte, 1), use_awaitable);  // until the client goes
        co_return;
      } else if (path == "/garbage") {
        const std::string out = response(200, "text/plain", "<html>this is not {the exposition format\n");
        co_await asio::async_write(socket, asio::buffer(out), use_awaitable);
      } else if (path == "/500") {
        const std::string out = response(500, "text/plain", "internal error\n");
        co_await asio::async_write(socket, asio::buffer(out), use_awaitable);
      } else if (path == "/close") {
        const std::string out = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\nabc";
        co_await asio::async_write(socket, asio::buffer(out), use_awaitable);
        co_return;
      } else if (path == "/huge") {
        const std::string out = response(200, "text/plain", std::string(2 << 20, '#'));
        co_await asio::async_write(socket, asio::buffer(out), use_awaitable);
      } else if (path == "/trickle") {
        const std::string head_out = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100000\r\n\r\n";
        co_await asio::async_write(socket, asio::buffer(head_out), use_awaitable);
        asio::steady_timer timer(io);
        for (int i = 0; i < 100000; ++i) {
          timer.expires_after(std::chrono::milliseconds(50));
          co_await timer.async_wait(use_awaitable);
          co_await asio::async_write(socket, asio::buffer("#", 1), use_awaitable);
        }
      } else if (path == "/ssh") {
        co_await asio::async_write(socket, asio::buffer(std::string_view("SSH-2.0-OpenSSH_9.2\r\n")), use_awaitable);
        co_return;
      } else {
        const std::string out = response(404, "text/plain", "not found\n");
        co_await asio::async_write(socket, asio::buffer(out), use_awaitable);
      }
    }
  }

  ExpositionServer& server;
  asio::io_context io;
  tcp::acceptor acceptor;
};

ExpositionServer::ExpositionServer() : impl_(std::make_unique<Impl>(*this)) {
  port_ = impl_->acceptor.local_endpoint().port();
  asio::co_spawn(impl_->io, impl_->accept_loop(), [](std::exception_ptr) {});
  thread_ = std::thread([this] { impl_->io.run(); });
}

ExpositionServer::~ExpositionServer() {
  impl_->io.stop();
  thread_.join();
  impl_.reset();  // the connections' frames go while the counters they update are still here
}

std::string ExpositionServer::url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(port_) + path;
}

int ExpositionServer::requests(const std::string& path) const {
  std::lock_guard lock(mutex_);
  const auto it = requests_.find(path);
  return it == requests_.end() ? 0 : it->second;
}

std::string ExpositionServer::last_accept() const {
  std::lock_guard lock(mutex_);
  return last_accept_;
}

}  // namespace stampede::testing
