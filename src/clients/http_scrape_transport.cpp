#include "clients/http_scrape_transport.hpp"

#include "proto/prometheus_exposition.hpp"

namespace stampede::clients {

HttpScrapeTransport::HttpScrapeTransport(ClientContext& ctx, std::vector<std::string> urls, std::size_t max_body_bytes)
    : max_body_bytes_(max_body_bytes) {
  for (std::string& url : urls) {
    // discard: a reply that arrives after the transport is gone has nobody to go to.
    endpoints_.push_back({std::move(url), std::make_unique<HttpSession>(ctx, HttpSession::OnDestroy::discard), nullptr});
  }
}

HttpScrapeTransport::~HttpScrapeTransport() {
  for (Endpoint& e : endpoints_) {
    if (e.current) *e.current = false;
  }
}

void HttpScrapeTransport::start(std::size_t endpoint, Nanos timeout, Done done) {
  Endpoint& e = endpoints_.at(endpoint);
  if (e.current) *e.current = false;
  e.current = std::make_shared<bool>(true);
  HttpRequest req;
  req.url = e.url;
  req.headers = {{"accept", std::string(proto::kExpositionAccept)}};
  req.timeout = timeout + kBackstop;
  req.max_redirects = 3;
  req.max_body_bytes = max_body_bytes_;
  e.session->request(std::move(req), [wanted = e.current, done = std::move(done)](HttpResponse&& response) {
    if (!*wanted) return;
    *wanted = false;
    ScrapeReply reply;
    reply.status = response.status;
    if (const std::string* type = proto::find_header(response.headers, "content-type")) reply.content_type = *type;
    reply.body = std::move(response.body);
    reply.error_reason = std::move(response.error_reason);
    reply.error = std::move(response.error);
    done(std::move(reply));
  });
}

void HttpScrapeTransport::cancel(std::size_t endpoint) {
  Endpoint& e = endpoints_.at(endpoint);
  if (!e.current || !*e.current) return;
  *e.current = false;
  // Closes the endpoint's connection with the request on it: a stalled server gets no more
  // of our time, and the next scrape starts on a fresh connection.
  e.session->close_all();
}

}  // namespace stampede::clients
