#pragma once
// Scrapes over the project's HTTP client (http_session.hpp): one HttpSession per endpoint,
// so each keeps its keep-alive connection between scrapes and cancel() can close just that
// endpoint's request. The request asks for OpenMetrics or 0.0.4 text
// (proto::kExpositionAccept), follows at most 3 redirects, and refuses a body over the
// options' max_body_bytes before reading it all.
//
// The HTTP client records its own metrics (http.request, its errors, the request tally)
// into the context's sink: give it a context whose sink is not the run's, or the scrapes
// would count as the load test's requests. The sampler does (server_metrics_sampler.cpp).
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "clients/client_context.hpp"
#include "clients/http_session.hpp"
#include "clients/scrape_transport.hpp"

namespace stampede::clients {

class HttpScrapeTransport final : public ScrapeTransport {
 public:
  // The poller's own timeout decides; this one, a little longer, is the HTTP client's
  // backstop in case the poller's loop is late.
  static constexpr Nanos kBackstop = 100 * kMilli;

  HttpScrapeTransport(ClientContext& ctx, std::vector<std::string> urls, std::size_t max_body_bytes);
  ~HttpScrapeTransport() override;

  void start(std::size_t endpoint, Nanos timeout, Done done) override;
  void cancel(std::size_t endpoint) override;

 private:
  struct Endpoint {
    std::string url;
    std::unique_ptr<HttpSession> session;
    std::shared_ptr<bool> current;  // true while the request in flight is wanted
  };

  std::vector<Endpoint> endpoints_;
  std::size_t max_body_bytes_;
};

}  // namespace stampede::clients
