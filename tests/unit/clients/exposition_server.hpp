#pragma once
// A tiny /metrics server for the server-metrics sampler's tests, on Asio, in a
// thread of its own on 127.0.0.1, port 0. Each path behaves in its own way:
//
//   /metrics   a Prometheus 0.0.4 body that moves: a counter that grows by 10 per scrape, a
//              gauge, and a histogram of request durations (seconds) that gains 20
//              observations per scrape: 5 in (0, 0.01], 10 in (0.01, 0.1], 4 in (0.1, 1],
//              1 above 1. Keep-alive.
//   /openmetrics  the same in OpenMetrics text (with # EOF).
//   /stall     reads the request and never answers (until the client closes).
//   /garbage   200 text/plain, a body that is not the exposition format.
//   /500       a 500.
//   /close     a head announcing 100 bytes of body, 3 of them, then closes.
//   /huge      200 with a body of 2 MiB (the tests set a 1 MiB limit).
//   /trickle   a head, then one byte of body every 50 ms.
//   /ssh       not HTTP at all: an SSH banner, then closes.
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace stampede::testing {

class ExpositionServer {
 public:
  ExpositionServer();
  ~ExpositionServer();  // stops the loop and joins
  ExpositionServer(const ExpositionServer&) = delete;
  ExpositionServer& operator=(const ExpositionServer&) = delete;

  std::uint16_t port() const { return port_; }
  std::string url(const std::string& path) const;

  // Requests seen per path, and the Accept header of the latest.
  int requests(const std::string& path) const;
  std::string last_accept() const;
  // Connections accepted, and how many are open now.
  int connections() const { return accepted_.load(); }
  int open_connections() const { return open_.load(); }

 private:
  struct Impl;
  friend struct Impl;
  std::unique_ptr<Impl> impl_;
  std::uint16_t port_ = 0;
  std::atomic<int> accepted_{0};
  std::atomic<int> open_{0};
  mutable std::mutex mutex_;
  std::map<std::string, int> requests_;
  std::string last_accept_;
  std::thread thread_;
};

}  // namespace stampede::testing
