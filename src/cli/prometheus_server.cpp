#include "cli/prometheus_server.hpp"

#include <fmt/format.h>

#include <mutex>
#include <stdexcept>

#include "dashboard/local_http_server.hpp"
#include "report/prometheus_text.hpp"
#include "target/listen_address.hpp"

namespace stampede::cli {

namespace {

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

}  // namespace

struct PrometheusServer::Impl {
  Published published;
  // A scrape's head is small: what a scraper sends fits in 8 KiB.
  dashboard::LocalHttpServer server{
      "--prometheus",
      [this](const std::shared_ptr<dashboard::HttpConnection>& c, const dashboard::LocalRequest& r) { answer(*c, r); },
      dashboard::ConnectionLimits{.max_head_bytes = 8 * 1024}};

  void answer(dashboard::HttpConnection& connection, const dashboard::LocalRequest& request) const {
    if (request.method != "GET" && request.method != "HEAD") {
      connection.respond(405, "text/plain", "only GET and HEAD\n");
    } else if (request.path != "/metrics") {
      connection.respond(404, "text/plain", "metrics are at /metrics\n");
    } else {
      connection.respond(200, report::kPrometheusContentType, published.get());
    }
  }
};

PrometheusServer::PrometheusServer(const std::string& listen) : impl_(std::make_unique<Impl>()) {
  std::string error;
  const auto address = target::parse_listen_address(listen, &error);
  if (!address) throw std::runtime_error(fmt::format("--prometheus: {}", error));
  impl_->server.start(address->host, address->port);
  // Where to scrape, with the port the kernel picked for port 0 (as the dashboard says its URL).
  const bool v6 = address->host.find(':') != std::string::npos;
  fmt::print(stderr, "prometheus: http://{}:{}/metrics\n", v6 ? "[" + address->host + "]" : address->host, port());
}

PrometheusServer::~PrometheusServer() = default;  // the server stops with it

std::uint16_t PrometheusServer::port() const { return impl_->server.port(); }

void PrometheusServer::publish(std::string exposition) { impl_->published.set(std::move(exposition)); }

}  // namespace stampede::cli
