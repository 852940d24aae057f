#pragma once
// One browser connection to the dashboard, on the dashboard's own thread: read the request
// head, let the router decide, then either one response and a graceful close, or an event
// stream that stays open and sends what the hub hands it until either side closes.
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "dashboard/request_head.hpp"

namespace stampede::dashboard {

class HttpConnection : public std::enable_shared_from_this<HttpConnection> {
 public:
  using Router = std::function<void(const std::shared_ptr<HttpConnection>&, const RequestHead&)>;

  HttpConnection(boost::asio::ip::tcp::socket socket, Router router);

  // Reads the request head and hands it to the router.
  void start();

  // Answers with `body` and closes (HTTP/1.0-style: one request per connection keeps this
  // server small; the page makes three requests in all).
  void respond(int status, std::string_view content_type, std::string body);

  // Answers with the head of a text/event-stream; send() then adds events to it.
  void open_stream();
  void send(std::shared_ptr<const std::string> event);

  bool is_open() const { return !closed_; }
  void close();

 private:
  void read_head();
  void watch_for_close();  // an event stream reads only to learn that the browser left
  void enqueue(std::shared_ptr<const std::string> bytes);
  void write_next();
  void finish_gracefully();  // after the last byte of a response

  boost::asio::ip::tcp::socket socket_;
  boost::asio::steady_timer timer_;
  Router router_;
  std::string in_;
  std::deque<std::shared_ptr<const std::string>> out_;
  std::size_t queued_bytes_ = 0;
  bool writing_ = false;
  bool close_after_write_ = false;
  bool closed_ = false;
};

}  // namespace stampede::dashboard
