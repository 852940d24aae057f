#include "dashboard/http_connection.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>

#include <algorithm>
#include <array>
#include <sstream>

namespace stampede::dashboard {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

namespace {

std::string lowercase_trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// The head of every answer: nothing served locally may be cached (a page reloaded after the
// run must show the final results, a scrape must not read an old text) or taken by the
// browser for another content type, and every connection carries one request.
http::response_header<> answer_head(int status, std::string_view content_type) {
  http::response_header<> head;
  head.version(11);
  head.result(static_cast<unsigned>(status));
  head.set(http::field::content_type, content_type);
  head.set(http::field::cache_control, "no-store");
  head.set("X-Content-Type-Options", "nosniff");
  head.set("Referrer-Policy", "no-referrer");
  head.set(http::field::connection, "close");
  return head;
}

// Beast writes the status line with its standard reason phrase ("431 Request Header Fields
// Too Large") and the fields.
std::string text_of(const http::response_header<>& head) {
  std::ostringstream out;
  out << head;
  return out.str();
}

}  // namespace

HttpConnection::HttpConnection(asio::ip::tcp::socket socket, const ConnectionLimits& limits, Handler handler)
    : stream_(std::move(socket)), limits_(limits), handler_(std::move(handler)) {
  parser_.header_limit(static_cast<std::uint32_t>(limits_.max_head_bytes));
}

void HttpConnection::start() {
  stream_.expires_after(limits_.head_timeout);
  http::async_read_header(stream_, in_, parser_,
                          [self = shared_from_this()](const boost::system::error_code& ec, std::size_t) {
                            self->on_head(ec);
                          });
}

void HttpConnection::on_head(const boost::system::error_code& ec) {
  if (closed_) return;
  if (ec) {
    // Beast's parse errors share one category; the rest (a timeout, a reset) and the peer
    // closing mid-head leave nobody to answer.
    const bool peer_left = ec == http::error::end_of_stream || ec == http::error::partial_message;
    const bool malformed = ec.category() == http::make_error_code(http::error::bad_target).category() && !peer_left;
    if (ec == http::error::header_limit) {
      respond(431, "text/plain; charset=utf-8", "request head too large\n");
    } else if (malformed) {
      respond(400, "text/plain; charset=utf-8", "bad request\n");
    } else {
      close();
    }
    return;
  }
  const auto& request = parser_.get();
  const std::string_view target = request.target();
  // Origin-form only ("/events"): a local server is not a proxy.
  if (target.empty() || target.front() != '/') {
    respond(400, "text/plain; charset=utf-8", "bad request\n");
    return;
  }
  LocalRequest r;
  r.method = std::string(request.method_string());
  r.path = std::string(target.substr(0, target.find('?')));
  r.host = lowercase_trimmed(request[http::field::host]);
  head_request_ = request.method() == http::verb::head;
  handler_(shared_from_this(), r);
}

void HttpConnection::respond(int status, std::string_view content_type, std::string body) {
  auto head = answer_head(status, content_type);
  head.set(http::field::content_length, std::to_string(body.size()));
  auto message = std::make_shared<std::string>(text_of(head));
  if (!head_request_) *message += body;
  close_after_write_ = true;
  // A reader that stops reading the answer holds nothing for longer than a head may take.
  stream_.expires_after(limits_.head_timeout);
  enqueue(std::move(message));
}

void HttpConnection::open_stream(std::string_view content_type) {
  // No Content-Length: the stream's body ends when the connection does.
  stream_.expires_never();
  enqueue(std::make_shared<const std::string>(text_of(answer_head(200, content_type))));
  watch_for_close();
}

void HttpConnection::watch_for_close() {
  auto scratch = std::make_shared<std::array<char, 512>>();
  stream_.async_read_some(asio::buffer(*scratch), [self = shared_from_this(), scratch](
                                                      const boost::system::error_code& ec, std::size_t) {
    if (ec)
      self->close();
    else if (!self->closed_)
      self->watch_for_close();
  });
}

void HttpConnection::send(std::shared_ptr<const std::string> bytes) { enqueue(std::move(bytes)); }

void HttpConnection::enqueue(std::shared_ptr<const std::string> bytes) {
  if (closed_) return;
  queued_bytes_ += bytes->size();
  if (queued_bytes_ > limits_.max_queued_bytes) {
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
  asio::async_write(stream_, asio::buffer(*out_.front()),
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
// answer before the peer reads it: send FIN first, read until the peer closes too (or a
// moment has passed), then close.
void HttpConnection::finish_gracefully() {
  boost::system::error_code ignored;
  stream_.socket().shutdown(asio::ip::tcp::socket::shutdown_send, ignored);
  stream_.expires_after(limits_.drain_timeout);
  watch_for_close();
}

void HttpConnection::close() {
  if (closed_) return;
  closed_ = true;
  stream_.close();
  out_.clear();
  queued_bytes_ = 0;
}

}  // namespace stampede::dashboard
