#pragma once
// `--prometheus 127.0.0.1:9464`: serves the latest exposition text at GET /metrics on a
// thread of its own, so a scrape never waits for (or slows) the load. The run publishes a
// new text once a merged second; a scrape reads whatever was published last.
//
// Served by the dashboard's LocalHttpServer (one request per connection, answered with
// Connection: close; a bounded request head; deadlines so a stalled scraper holds nothing).
#include <cstdint>
#include <memory>
#include <string>

namespace stampede::cli {

class PrometheusServer {
 public:
  // Binds at once and starts serving. Throws std::runtime_error with a sentence for the
  // user ("--prometheus: cannot listen on 127.0.0.1:9464: Address already in use").
  explicit PrometheusServer(const std::string& listen);
  ~PrometheusServer();  // stops serving and joins the thread
  PrometheusServer(const PrometheusServer&) = delete;
  PrometheusServer& operator=(const PrometheusServer&) = delete;

  std::uint16_t port() const;  // the bound port (the kernel's choice for port 0)
  // The body of the next scrapes. Thread-safe.
  void publish(std::string exposition);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace stampede::cli
