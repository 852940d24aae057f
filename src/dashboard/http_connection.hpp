#pragma once
// One connection to a LocalHttpServer (the dashboard, the Prometheus exporter), on the server's
// thread: Boost.Beast reads the request head (bounded in size and time), the server's handler
// decides, and the connection either answers once and closes gracefully, or becomes an event
// stream that stays open and sends what it is handed until either side closes.
// One request per connection (every answer says Connection: close): the dashboard's page makes
// three requests in all, a scraper one per scrape.
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>

#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace stampede::dashboard {

// What a handler is told of a request.
struct LocalRequest {
  std::string method;  // "GET", as sent
  std::string path;    // "/events": the target without its query
  std::string host;    // the Host header as sent, lowercased; "" when absent
};

struct ConnectionLimits {
  std::size_t max_head_bytes = 16 * 1024;
  std::chrono::steady_clock::duration head_timeout = std::chrono::seconds(10);
  // How long a closing connection waits for the peer to close too (see finish_gracefully).
  std::chrono::steady_clock::duration drain_timeout = std::chrono::seconds(2);
  // A stream whose reader stops reading (a laptop lid closed) must not make the process hold
  // every later event for it; past this it is dropped (EventSource reconnects and replays).
  std::size_t max_queued_bytes = 64 * 1024 * 1024;
};

class HttpConnection : public std::enable_shared_from_this<HttpConnection> {
 public:
  using Handler = std::function<void(const std::shared_ptr<HttpConnection>&, const LocalRequest&)>;

  HttpConnection(boost::asio::ip::tcp::socket socket, const ConnectionLimits& limits, Handler handler);

  // Reads the request head and hands it to the handler. A head that is too large is answered
  // 431, one that is not HTTP/1.x with an origin-form target 400; a peer that sends nothing
  // in time, or leaves, is closed without a word.
  void start();

  // Answers with `body` (only its length for a HEAD request) and closes.
  void respond(int status, std::string_view content_type, std::string body);

  // Answers with the head of a stream of `content_type`; send() then adds to its body, which
  // ends when the connection does.
  void open_stream(std::string_view content_type);
  void send(std::shared_ptr<const std::string> bytes);

  bool is_open() const { return !closed_; }
  void close();

 private:
  void on_head(const boost::system::error_code& ec);
  void watch_for_close();  // an event stream reads only to learn that the peer left
  void enqueue(std::shared_ptr<const std::string> bytes);
  void write_next();
  void finish_gracefully();  // after the last byte of an answer

  boost::beast::tcp_stream stream_;
  ConnectionLimits limits_;
  Handler handler_;
  boost::beast::flat_buffer in_;
  boost::beast::http::request_parser<boost::beast::http::empty_body> parser_;
  bool head_request_ = false;
  std::deque<std::shared_ptr<const std::string>> out_;
  std::size_t queued_bytes_ = 0;
  bool writing_ = false;
  bool close_after_write_ = false;
  bool closed_ = false;
};

}  // namespace stampede::dashboard
