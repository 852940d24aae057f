#pragma once
// The small HTTP/1.1 server of the endpoints a run offers on the side: the dashboard (a page,
// an event stream, the results) and the Prometheus exporter (/metrics). One thread of its own
// (never a worker's, so a browser or a scraper never waits for the load or slows it), Boost.
// Beast's parser for the request heads (docs/design/043-one-of-each.md says why not the
// target's), one request per connection (HttpConnection). What to answer is the handler's.
//
//   LocalHttpServer server("dashboard", handler);
//   server.start("127.0.0.1", 4040);   // listening once it returns
//   server.post([&] { ... });          // runs on the server's thread
//   server.stop();                     // closes every connection, joins the thread
#include <cstdint>
#include <memory>
#include <string>

#include "dashboard/http_connection.hpp"

namespace stampede::dashboard {

class LocalHttpServer {
 public:
  // `what` starts the sentences of its errors ("dashboard", "--prometheus"). The handler runs
  // on the server's thread, once per request.
  LocalHttpServer(std::string what, HttpConnection::Handler handler, ConnectionLimits limits = {});
  ~LocalHttpServer();  // stops
  LocalHttpServer(const LocalHttpServer&) = delete;
  LocalHttpServer& operator=(const LocalHttpServer&) = delete;

  // Binds and starts the thread. Throws std::runtime_error with a sentence for the user:
  // "dashboard: cannot listen on 127.0.0.1:4040: Address already in use",
  // "--prometheus: \"localhost\" is not an IP address".
  void start(const std::string& host, std::uint16_t port);
  // The bound port (the kernel's choice for port 0); 0 before start().
  std::uint16_t port() const;
  // Whether it listens on a loopback address (what the dashboard's Host check needs).
  bool loopback() const;
  // Runs `fn` on the server's thread (from any thread).
  void post(std::function<void()> fn);
  // Closes every connection and joins the thread. Idempotent.
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace stampede::dashboard
