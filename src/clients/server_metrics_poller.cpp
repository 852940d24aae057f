#include "clients/server_metrics_poller.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "clients/url_target.hpp"
#include "proto/prometheus_exposition.hpp"

namespace stampede::clients {

struct ServerMetricsPoller::Endpoint {
  explicit Endpoint(const std::vector<std::string>& select) : series(select) {}

  ServerSeries series;
  bool in_flight = false;
  std::uint64_t generation = 0;  // of the request in flight: a reply of an older one is ignored
  Nanos started = 0;
  Nanos deadline = 0;  // when it is abandoned as a timeout
  std::optional<Nanos> last_midpoint;  // of the latest successful scrape
};

std::vector<std::string> instance_labels(const std::vector<std::string>& urls) {
  if (urls.size() < 2) return std::vector<std::string>(urls.size());
  std::vector<std::string> out;
  std::vector<std::string> paths;
  for (const std::string& url : urls) {
    UrlTarget target;
    std::string why;
    if (!parse_url_target(url, UrlSchemes::http, target, why)) {
      out.push_back(url);  // not reached with validated options
      paths.emplace_back();
      continue;
    }
    const bool ipv6 = target.host.find(':') != std::string::npos;
    out.push_back(ipv6 ? fmt::format("[{}]:{}", target.host, target.port) : fmt::format("{}:{}", target.host, target.port));
    paths.push_back(target.request_target);
  }
  // Two endpoints of one host and port (two apps behind one proxy, say) are told apart by path.
  const std::vector<std::string> host_ports = out;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (std::count(host_ports.begin(), host_ports.end(), host_ports[i]) > 1) out[i] += paths[i];
  }
  return out;
}

namespace {

// "too large: the body is over the 32 MiB limit": a size in whole MiB or KiB where it is one,
// which also keeps the reason one group (metrics/error_group.hpp makes "33554432 bytes" <n>).
std::string too_large(std::size_t limit) {
  constexpr std::size_t kKiB = 1024;
  constexpr std::size_t kMiB = kKiB * kKiB;
  if (limit % kMiB == 0) return fmt::format("too large: the body is over the {} MiB limit", limit / kMiB);
  if (limit % kKiB == 0) return fmt::format("too large: the body is over the {} KiB limit", limit / kKiB);
  return fmt::format("too large: the body is over the {} byte limit", limit);
}

}  // namespace

std::string reply_error(const ScrapeReply& reply, std::size_t max_body_bytes) {
  if (!reply.error_reason.empty()) {
    if (reply.error_reason != "protocol") return reply.error_reason;
    if (reply.error.find("larger than the limit") != std::string::npos) return too_large(max_body_bytes);
    // "GET http://... failed: the server sent an invalid response: bad status line": the part
    // after the URL, which says what was wrong.
    const std::size_t failed = reply.error.find(" failed: ");
    return "protocol: " + (failed == std::string::npos ? reply.error : reply.error.substr(failed + 9));
  }
  if (reply.status != 200) return fmt::format("status {}", reply.status);
  return {};
}

ServerMetricsPoller::ServerMetricsPoller(const ServerMetricsOptions& options, metrics::Registry& registry,
                                         const Clock& clock, ScrapeTransport& transport, Deliver deliver)
    : every_(options.every),
      timeout_(options.scrape_timeout()),
      max_body_bytes_(options.max_body_bytes),
      clock_(clock),
      transport_(transport),
      deliver_(std::move(deliver)),
      sink_(registry) {
  for (std::size_t i = 0; i < options.urls.size(); ++i) endpoints_.push_back(std::make_unique<Endpoint>(options.select));
  recorder_ = std::make_unique<ServerMetricsRecorder>(sink_, instance_labels(options.urls));
}

ServerMetricsPoller::~ServerMetricsPoller() {
  for (std::size_t i = 0; i < endpoints_.size(); ++i) {
    if (endpoints_[i]->in_flight) transport_.cancel(i);
  }
}

Nanos ServerMetricsPoller::round_due(std::int64_t round) const { return t0_ + (round + 1) * every_ - timeout_; }

Nanos ServerMetricsPoller::start(Nanos t0) {
  t0_ = t0;
  started_ = true;
  const Nanos now = clock_.now();
  // A first round now, when there is room for it before round 0 (its deadline is round 0's
  // start at the latest: never two scrapes in flight).
  if (round_due(0) - now >= timeout_ / 2) {
    for (std::size_t i = 0; i < endpoints_.size(); ++i) start_scrape(i, now);
  }
  return on_wake();
}

// Its deadline: `timeout` from now, and never after the next round is due.
void ServerMetricsPoller::start_scrape(std::size_t i, Nanos now) {
  Endpoint& e = *endpoints_[i];
  e.in_flight = true;
  e.started = now;
  e.deadline = std::min(now + timeout_, round_due(next_round_));
  const std::uint64_t generation = ++e.generation;
  transport_.start(i, timeout_, [this, i, generation](ScrapeReply&& reply) { on_reply(i, generation, std::move(reply)); });
}

void ServerMetricsPoller::fail(std::size_t i, std::string_view reason) { recorder_->scrape_failed(i, reason); }

void ServerMetricsPoller::on_reply(std::size_t i, std::uint64_t generation, ScrapeReply&& reply) {
  Endpoint& e = *endpoints_[i];
  if (stopped_ || !e.in_flight || generation != e.generation) return;
  e.in_flight = false;
  const Nanos now = clock_.now();
  const Nanos took = now - e.started;
  recorder_->scrape_took(took);
  if (std::string why = reply_error(reply, max_body_bytes_); !why.empty()) return fail(i, why);
  const proto::ExpositionParse parsed =
      proto::parse_exposition(reply.body, proto::exposition_format_of(reply.content_type));
  if (!parsed.ok()) return fail(i, "parse: " + parsed.error->message());
  const Nanos midpoint = e.started + took / 2;
  const double elapsed = e.last_midpoint ? static_cast<double>(midpoint - *e.last_midpoint) / kSecond : 0.0;
  e.last_midpoint = midpoint;
  recorder_->record_scrape(i, e.series.next(parsed.exposition, elapsed));
}

void ServerMetricsPoller::deliver_due(Nanos now) {
  while (t0_ + (next_second_ + 1) * kSecond <= now) {
    deliver_(sink_.take(next_second_));
    ++next_second_;
  }
}

Nanos ServerMetricsPoller::on_wake() {
  if (!started_ || stopped_) return clock_.now() + kSecond;
  const Nanos now = clock_.now();
  // Deadlines first: a scrape that timed out at the end of a second counts in that second.
  for (std::size_t i = 0; i < endpoints_.size(); ++i) {
    Endpoint& e = *endpoints_[i];
    if (!e.in_flight || e.deadline > now) continue;
    e.in_flight = false;
    transport_.cancel(i);
    recorder_->scrape_took(e.deadline - e.started);
    fail(i, "timeout");
  }
  deliver_due(now);
  if (round_due(next_round_) <= now) {
    // No scrape of the previous round is still in flight: its deadline (start + timeout) came
    // before this round (timeout < every) and was handled above. At most one per endpoint.
    // The next round after now: rounds missed while the loop was late are skipped.
    next_round_ = std::max(next_round_ + 1, (now - round_due(0)) / every_ + 1);
    for (std::size_t i = 0; i < endpoints_.size(); ++i) start_scrape(i, now);
  }
  return next_wake();
}

Nanos ServerMetricsPoller::next_wake() const {
  Nanos at = std::min(t0_ + (next_second_ + 1) * kSecond, round_due(next_round_));
  for (const auto& e : endpoints_) {
    if (e->in_flight) at = std::min(at, e->deadline);
  }
  return at;
}

void ServerMetricsPoller::stop() {
  if (stopped_) return;
  const Nanos now = clock_.now();
  for (std::size_t i = 0; i < endpoints_.size(); ++i) {
    if (!endpoints_[i]->in_flight) continue;
    endpoints_[i]->in_flight = false;
    transport_.cancel(i);
  }
  if (started_) {
    deliver_due(now);
    // The second under way, cut short by the end of the run (second 0 at the least).
    if (next_second_ == 0 || now > t0_ + next_second_ * kSecond) {
      deliver_(sink_.take(next_second_));
      ++next_second_;
    }
  }
  stopped_ = true;
}

std::vector<std::string> ServerMetricsPoller::exposed_names() const {
  std::set<std::string> names;
  for (const auto& e : endpoints_) {
    for (const std::string& family : e->series.families_seen()) names.insert("server." + family);
  }
  for (std::string& name : recorder_->names()) names.insert(std::move(name));
  return {names.begin(), names.end()};
}

}  // namespace stampede::clients
