#pragma once
// How the server-metrics poller gets a /metrics body: one GET per endpoint at a time. The
// seam between the poller's logic (tested on a simulated clock with a scripted transport)
// and the HTTP client (http_scrape_transport.hpp: keep-alive connections over real sockets).
#include <cstddef>
#include <functional>
#include <string>

#include "common/clock.hpp"

namespace stampede::clients {

struct ScrapeReply {
  int status = 0;            // 0: no response (see error)
  std::string content_type;  // the response's Content-Type, "" without one
  std::string body;
  // Empty when a response arrived, whatever its status. Otherwise the HTTP client's one-word
  // reason (refused, timeout, closed, reset, protocol, dns, tls, ...) and its sentence.
  std::string error_reason;
  std::string error;
};

class ScrapeTransport {
 public:
  using Done = std::function<void(ScrapeReply&&)>;

  virtual ~ScrapeTransport() = default;
  // GETs endpoint `endpoint`'s URL. `done` is called once, later (never from inside start()),
  // unless cancel(endpoint) comes first. `timeout` bounds the whole request.
  virtual void start(std::size_t endpoint, Nanos timeout, Done done) = 0;
  // Abandons the request in flight to `endpoint`, if any: its `done` is not called.
  virtual void cancel(std::size_t endpoint) = 0;
};

}  // namespace stampede::clients
