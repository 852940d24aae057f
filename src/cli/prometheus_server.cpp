#include "cli/prometheus_server.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <fmt/format.h>

#include <array>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "proto/http_request_parser.hpp"
#include "report/prometheus_text.hpp"
#include "target/listen_address.hpp"

namespace stampede::cli {

namespace asio = boost::asio;
using asio::ip::tcp;

namespace {

constexpr auto kConnectionDeadline = std::chrono::seconds(10);

// The latest text, shared between the run (writer) and the server thread (reader).
class Published {
 public:
  void set(std::string text) {
    std::lock_guard lock(mutex_);
    text_ = std::move(text);
  }
  std::string get() const {
    std::lock_guard lock(mutex_);
    return text_;
  }

 private:
  mutable std::mutex mutex_;
  std::string text_;
};

std::string response(int status, std::string_view reason, std::string_view content_type, std::string_view body,
                     bool head_only) {
  std::string out = fmt::format(
      "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
      status, reason, content_type, body.size());
  if (!head_only) out += body;
  return out;
}

// One scrape: read a request, answer it, close.
class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(tcp::socket socket, const Published& published)
      : socket_(std::move(socket)), deadline_(socket_.get_executor()), published_(published),
        parser_(proto::HttpRequestLimits{8 * 1024, 50, 0, 0}) {}

  void start() {
    deadline_.expires_after(kConnectionDeadline);
    deadline_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
      if (!ec) self->close();
    });
    read();
  }

 private:
  void read() {
    socket_.async_read_some(asio::buffer(buffer_), [self = shared_from_this()](const boost::system::error_code& ec,
                                                                                std::size_t n) {
      if (ec) return self->close();
      self->parser_.feed(std::string_view(self->buffer_.data(), n));
      if (self->parser_.failed()) {
        return self->answer(response(self->parser_.error_status(), "Rejected", "text/plain",
                                     self->parser_.error() + "\n", false));
      }
      if (!self->parser_.done()) return self->read();
      self->answer(self->answer_for(self->parser_.request()));
    });
  }

  std::string answer_for(const proto::HttpRequest& request) const {
    const bool head = request.method == "HEAD";
    if (request.method != "GET" && !head) {
      return response(405, "Method Not Allowed", "text/plain", "only GET and HEAD\n", false);
    }
    const std::string_view path = std::string_view(request.target).substr(0, request.target.find('?'));
    if (path != "/metrics") return response(404, "Not Found", "text/plain", "metrics are at /metrics\n", head);
    return response(200, "OK", report::kPrometheusContentType, published_.get(), head);
  }

  void answer(std::string bytes) {
    out_ = std::move(bytes);
    asio::async_write(socket_, asio::buffer(out_), [self = shared_from_this()](const boost::system::error_code&,
                                                                                std::size_t) { self->close(); });
  }

  void close() {
    boost::system::error_code ignored;
    deadline_.cancel();
    socket_.shutdown(tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
  }

  tcp::socket socket_;
  asio::steady_timer deadline_;
  const Published& published_;
  proto::HttpRequestParser parser_;
  std::array<char, 4096> buffer_{};
  std::string out_;
};

}  // namespace

struct PrometheusServer::Impl {
  asio::io_context io{1};
  tcp::acceptor acceptor{io};
  Published published;
  std::thread thread;

  void accept() {
    acceptor.async_accept([this](const boost::system::error_code& ec, tcp::socket socket) {
      if (ec == asio::error::operation_aborted) return;
      if (!ec) std::make_shared<Connection>(std::move(socket), published)->start();
      accept();  // a failed accept (e.g. out of descriptors) must not end the endpoint
    });
  }
};

PrometheusServer::PrometheusServer(const std::string& listen) : impl_(std::make_unique<Impl>()) {
  std::string error;
  const auto address = target::parse_listen_address(listen, &error);
  if (!address) throw std::runtime_error(fmt::format("--prometheus: {}", error));
  boost::system::error_code ec;
  const tcp::endpoint endpoint(asio::ip::make_address(address->host, ec), address->port);
  if (ec) throw std::runtime_error(fmt::format("--prometheus: \"{}\" is not an IP address", address->host));
  tcp::acceptor& a = impl_->acceptor;
  a.open(endpoint.protocol(), ec);
  if (!ec) a.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) a.bind(endpoint, ec);
  if (!ec) a.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) throw std::runtime_error(fmt::format("--prometheus: cannot listen on {}: {}", listen, ec.message()));
  impl_->accept();
  impl_->thread = std::thread([impl = impl_.get()] { impl->io.run(); });
}

PrometheusServer::~PrometheusServer() {
  impl_->io.stop();
  impl_->thread.join();
}

std::uint16_t PrometheusServer::port() const { return impl_->acceptor.local_endpoint().port(); }

void PrometheusServer::publish(std::string exposition) { impl_->published.set(std::move(exposition)); }

}  // namespace stampede::cli
