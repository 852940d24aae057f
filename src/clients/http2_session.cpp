#include "clients/http2_session.hpp"

#include <algorithm>

#include "clients/http2_exchange.hpp"
#include "transport/resolve.hpp"

namespace stampede::clients {

Http2Session::Http2Session(ClientContext& context, HttpSession& http1, proto::CookieJar& jar, bool discard)
    : ctx(context),
      cookies(jar),
      request_metric(context.sink.id("http.request", metrics::Kind::Timing)),
      error_metric(context.sink.id("http.request.errors", metrics::Kind::Counter)),
      discard_on_destroy(discard),
      http1_(http1) {}

Http2Session::~Http2Session() { close_all(); }

void Http2Session::request(HttpRequest req, std::optional<metrics::MetricId> named_metric, Done done) {
  auto exchange = std::make_shared<Http2Exchange>(*this, std::move(req), named_metric, std::move(done));
  in_flight_.push_back(exchange);
  exchange->start();
}

void Http2Session::close_all() {
  // The requests first (each resets its stream and is not counted), then the connections.
  std::vector<std::shared_ptr<Http2Exchange>> pending = std::move(in_flight_);
  in_flight_.clear();
  for (auto& exchange : pending) exchange->cut_off();
  for (auto& weak : all_connections_) {
    if (auto connection = weak.lock()) connection->close("the session was closed");
  }
  all_connections_.clear();
  origins_.clear();
}

std::size_t Http2Session::connections() const {
  return static_cast<std::size_t>(std::count_if(all_connections_.begin(), all_connections_.end(), [](const auto& weak) {
    const auto connection = weak.lock();
    return connection && connection->state() != Http2Connection::State::closed &&
           connection->state() != Http2Connection::State::declined;
  }));
}

bool Http2Session::http1_only(const std::string& origin, bool insecure) const {
  return std::find(http1_only_.begin(), http1_only_.end(), std::make_pair(origin, insecure)) != http1_only_.end();
}

void Http2Session::remember_http1_only(const std::string& origin, bool insecure) {
  if (!http1_only(origin, insecure)) http1_only_.emplace_back(origin, insecure);
}

std::shared_ptr<Http2Connection> Http2Session::connection_for(const UrlTarget& target, bool insecure) {
  auto it = std::find_if(origins_.begin(), origins_.end(),
                         [&](const Origin& o) { return o.origin == target.origin && o.insecure == insecure; });
  if (it != origins_.end() && it->connection->accepts_requests()) return it->connection;
  // Closed ones are forgotten; a draining one is kept alive by its own pending reads.
  std::erase_if(all_connections_, [](const auto& weak) {
    const auto connection = weak.lock();
    return !connection || connection->state() == Http2Connection::State::closed ||
           connection->state() == Http2Connection::State::declined;
  });
  auto connection = std::make_shared<Http2Connection>(ctx, target, insecure);
  all_connections_.push_back(connection);
  if (it != origins_.end()) {
    it->connection = connection;
  } else {
    origins_.push_back(Origin{target.origin, insecure, connection});
  }
  connection->start(transport::Resolver::of(ctx.io));
  return connection;
}

void Http2Session::send_over_http1(HttpRequest req, Done done) { http1_.request(std::move(req), std::move(done)); }

void Http2Session::forget(const Http2Exchange* exchange) {
  auto it = std::find_if(in_flight_.begin(), in_flight_.end(),
                         [exchange](const std::shared_ptr<Http2Exchange>& e) { return e.get() == exchange; });
  if (it == in_flight_.end()) return;
  std::swap(*it, in_flight_.back());
  in_flight_.pop_back();
}

}  // namespace stampede::clients
