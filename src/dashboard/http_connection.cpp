#include "dashboard/http_connection.hpp"

#include <fmt/format.h>

#include <array>
#include <boost/asio/buffer.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/write.hpp>
#include <chrono>

namespace stampede::dashboard {

namespace asio = boost::asio;

namespace {

constexpr std::size_t kMaxHeadBytes = 16 * 1024;
constexpr auto kHeadTimeout = std::chrono::seconds(10);
constexpr auto kDrainTimeout = std::chrono::seconds(2);
// A browser tab that stops reading (a laptop lid closed) must not make the process hold
// every later event for it; past this it is dropped, and EventSource reconnects and
// replays the run from the start when it wakes.
constexpr std::size_t kMaxQueuedBytes = 64 * 1024 * 1024;

const char* reason_phrase(int status) {
  switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 503: return "Service Unavailable";
    default: return "Status";
  }
}

// Nothing the dashboard serves may be cached (a page reloaded after the run must show
// the final results) or guessed at by the browser as another content type.
constexpr std::string_view kCommonHeaders =
    "Cache-Control: no-store\r\n"
    "X-Content-Type-Options: nosniff\r\n"
    "Referrer-Policy: no-referrer\r\n";

}  // namespace

HttpConnection::HttpConnection(asio::ip::tcp::socket socket, Router router)
    : socket_(std::move(socket)), timer_(socket_.get_executor()), router_(std::move(router)) {}

void HttpConnection::start() {
  timer_.expires_after(kHeadTimeout);
  timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
    if (!ec) self->close();
  });
  read_head();
}

void HttpConnection::read_head() {
  asio::async_read_until(socket_, asio::dynamic_buffer(in_, kMaxHeadBytes), "\r\n\r\n",
                         [self = shared_from_this()](const boost::system::error_code& ec, std::size_t length) {
                           if (self->closed_) return;
                           self->timer_.cancel();
                           if (ec) {
                             self->close();
                             return;
                           }
                           auto head = parse_request_head(std::string_view(self->in_).substr(0, length));
                           if (!head) {
                             self->respond(400, "text/plain; charset=utf-8", "bad request\n");
                             return;
                           }
                           self->router_(self, *head);
                         });
}

void HttpConnection::respond(int status, std::string_view content_type, std::string body) {
  auto message = std::make_shared<std::string>(fmt::format(
      "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\n{}Connection: close\r\n\r\n", status,
      reason_phrase(status), content_type, body.size(), kCommonHeaders));
  *message += body;
  close_after_write_ = true;
  enqueue(std::move(message));
}

void HttpConnection::open_stream() {
  // No Content-Length: the stream's body ends when the connection does.
  enqueue(std::make_shared<const std::string>(fmt::format(
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\n{}Connection: close\r\n\r\n"
      // EventSource reconnects after this many ms when the stream breaks.
      "retry: 1000\n\n",
      kCommonHeaders)));
  watch_for_close();
}

void HttpConnection::watch_for_close() {
  auto scratch = std::make_shared<std::array<char, 512>>();
  socket_.async_read_some(asio::buffer(*scratch), [self = shared_from_this(), scratch](const boost::system::error_code& ec,
                                                                                         std::size_t) {
    if (ec)
      self->close();
    else if (!self->closed_)
      self->watch_for_close();
  });
}

void HttpConnection::send(std::shared_ptr<const std::string> event) { enqueue(std::move(event)); }

void HttpConnection::enqueue(std::shared_ptr<const std::string> bytes) {
  if (closed_) return;
  queued_bytes_ += bytes->size();
  if (queued_bytes_ > kMaxQueuedBytes) {
    close();
    return;
  }
  out_.push_back(std::move(bytes));
  if (!writing_) write_next();
}

void HttpConnection::write_next() {
  if (out_.empty()) {
    writing_ = false;
    if (close_after_write_) finish_gracefully();
    return;
  }
  writing_ = true;
  asio::async_write(socket_, asio::buffer(*out_.front()),
                    [self = shared_from_this()](const boost::system::error_code& ec, std::size_t) {
                      if (self->closed_) return;
                      if (ec) {
                        self->close();
                        return;
                      }
                      self->queued_bytes_ -= self->out_.front()->size();
                      self->out_.pop_front();
                      self->write_next();
                    });
}

// Closing a socket with unread input makes the kernel send a reset, which can destroy the
// response before the browser reads it: send FIN first, read until the browser closes
// too (or a moment has passed), then close.
void HttpConnection::finish_gracefully() {
  boost::system::error_code ignored;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_send, ignored);
  timer_.expires_after(kDrainTimeout);
  timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
    if (!ec) self->close();
  });
  watch_for_close();
}

void HttpConnection::close() {
  if (closed_) return;
  closed_ = true;
  boost::system::error_code ignored;
  timer_.cancel();
  socket_.close(ignored);
  out_.clear();
  queued_bytes_ = 0;
}

}  // namespace stampede::dashboard
