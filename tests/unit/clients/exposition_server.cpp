#include "clients/exposition_server.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/write.hpp>
#include <algorithm>
#include <cctype>
#include <chrono>
#include <memory>
#include <string_view>

namespace stampede::testing {

namespace asio = boost::asio;
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

// One connection: requests until the client closes, or a path that ends it. Callbacks, not
// coroutines: clang 14 cannot compile Asio's awaitables under the sanitizers with debug
// information ("Cannot represent a difference across sections").
class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(std::atomic<int>& open, std::mutex& mutex, std::map<std::string, int>& requests,
             std::string& last_accept, tcp::socket socket)
      : open_(open), mutex_(mutex), requests_(requests), last_accept_(last_accept), socket_(std::move(socket)),
        timer_(socket_.get_executor()) {
    ++open_;
  }
  ~Connection() { --open_; }

  void read_head() {
    asio::async_read_until(socket_, in_, "\r\n\r\n", [self = shared_from_this()](auto ec, std::size_t size) {
      if (!ec) self->answer(size);
    });
  }

 private:
  void answer(std::size_t head_size) {
    std::string head(asio::buffers_begin(in_.data()), asio::buffers_begin(in_.data()) + static_cast<long>(head_size));
    in_.consume(head_size);
    const std::size_t path_start = head.find(' ') + 1;
    const std::string path = head.substr(path_start, head.find(' ', path_start) - path_start);
    int n = 0;
    {
      std::lock_guard lock(mutex_);
      n = ++requests_[path];
      last_accept_ = header_value(head, "accept");
    }
    if (path == "/metrics" || path == "/openmetrics") {
      const bool om = path == "/openmetrics";
      write_then(response(200, om ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
                                  : "text/plain; version=0.0.4; charset=utf-8",
                          metrics_body(n, om)),
                 true);
    } else if (path == "/stall") {
      // Until the client goes.
      asio::async_read(socket_, asio::buffer(&byte_, 1), [self = shared_from_this()](auto, std::size_t) {});
    } else if (path == "/garbage") {
      write_then(response(200, "text/plain", "<html>this is not {the exposition format\n"), true);
    } else if (path == "/500") {
      write_then(response(500, "text/plain", "internal error\n"), true);
    } else if (path == "/close") {
      write_then("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\nabc", false);
    } else if (path == "/huge") {
      write_then(response(200, "text/plain", std::string(2 << 20, '#')), true);
    } else if (path == "/trickle") {
      out_ = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100000\r\n\r\n";
      asio::async_write(socket_, asio::buffer(out_), [self = shared_from_this()](auto ec, std::size_t) {
        if (!ec) self->trickle(100000);
      });
    } else if (path == "/ssh") {
      write_then("SSH-2.0-OpenSSH_9.2\r\n", false);
    } else {
      write_then(response(404, "text/plain", "not found\n"), true);
    }
  }

  // Writes `bytes`, then reads the next request (`keep_alive`) or lets the connection go.
  void write_then(std::string bytes, bool keep_alive) {
    out_ = std::move(bytes);
    asio::async_write(socket_, asio::buffer(out_), [self = shared_from_this(), keep_alive](auto ec, std::size_t) {
      if (!ec && keep_alive) self->read_head();
    });
  }

  // One byte of body every 50 ms, `left` more.
  void trickle(int left) {
    if (left == 0) return read_head();
    timer_.expires_after(std::chrono::milliseconds(50));
    timer_.async_wait([self = shared_from_this(), left](auto ec) {
      if (ec) return;
      asio::async_write(self->socket_, asio::buffer("#", 1), [self, left](auto write_ec, std::size_t) {
        if (!write_ec) self->trickle(left - 1);
      });
    });
  }

  std::atomic<int>& open_;
  std::mutex& mutex_;
  std::map<std::string, int>& requests_;
  std::string& last_accept_;
  tcp::socket socket_;
  asio::steady_timer timer_;
  asio::streambuf in_;
  std::string out_;
  char byte_ = 0;
};

}  // namespace

struct ExpositionServer::Impl {
  explicit Impl(ExpositionServer& s) : server(s), acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)) {}

  void accept() {
    acceptor.async_accept([this](auto ec, tcp::socket socket) {
      if (ec) return;
      ++server.accepted_;
      std::make_shared<Connection>(server.open_, server.mutex_, server.requests_, server.last_accept_,
                                   std::move(socket))
          ->read_head();
      accept();
    });
  }

  ExpositionServer& server;
  asio::io_context io;
  tcp::acceptor acceptor;
};

ExpositionServer::ExpositionServer() : impl_(std::make_unique<Impl>(*this)) {
  port_ = impl_->acceptor.local_endpoint().port();
  impl_->accept();
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
