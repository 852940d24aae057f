#include "target/target_metrics.hpp"

#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <boost/asio/post.hpp>
#include <array>
#include <cstdio>
#include <iterator>

#include "target/server_stats.hpp"
#include "target/worker.hpp"

namespace stampede::target {

namespace {

// The resident set size, from /proc/self/statm (its second field, in pages); 0 if unreadable.
std::uint64_t resident_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  unsigned long long size = 0;
  unsigned long long resident = 0;
  const int read = std::fscanf(f, "%llu %llu", &size, &resident);
  std::fclose(f);
  if (read != 2) return 0;
  return resident * static_cast<unsigned long long>(::sysconf(_SC_PAGESIZE));
}

double cpu_seconds() {
  rusage usage{};
  if (::getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  const auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// A difference of two counters read one after the other while the loops run: the later
// read may be ahead, so never below 0.
std::uint64_t open_count(std::uint64_t opened, std::uint64_t closed) { return opened > closed ? opened - closed : 0; }

void family(std::string& out, std::string_view name, std::string_view type, std::string_view help) {
  fmt::format_to(std::back_inserter(out), "# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
}

}  // namespace

TargetMetrics::TargetMetrics(std::vector<Worker*> workers) : workers_(std::move(workers)) {}

void TargetMetrics::start_lag_probes() {
  if (probing_.exchange(true, std::memory_order_relaxed)) return;
  for (Worker* w : workers_) boost::asio::post(w->io(), [w] { w->start_lag_probe(); });
}

std::string TargetMetrics::render() const {
  std::uint64_t accepted = 0, ended = 0, requests = 0, in_flight = 0;
  std::uint64_t joins = 0, ws_opened = 0, ws_closed = 0, channels_opened = 0, channels_closed = 0;
  std::uint64_t liveview_opened = 0, liveview_closed = 0;
  Nanos lag_sum = 0;
  std::array<std::uint64_t, LoopLagHistogram::kBounds.size() + 1> lag{};
  for (Worker* w : workers_) {
    ServerStats& s = w->server_stats();
    accepted += s.connections_accepted.get();
    ended += s.connections_ended.get();
    requests += s.http_requests.get();
    in_flight += w->in_flight().in_flight();
    for (std::size_t i = 0; i < lag.size(); ++i) lag[i] += s.loop_lag.bucket(i);
    lag_sum += s.loop_lag.sum();
    if (const ChannelStats* c = w->channel_stats()) {
      joins += c->joins.get();
      ws_opened += c->sockets_opened.get();
      ws_closed += c->sockets_closed.get();
      channels_opened += c->channel_sockets_opened.get();
      channels_closed += c->channel_sockets_closed.get();
      liveview_opened += c->liveview_sockets_opened.get();
      liveview_closed += c->liveview_sockets_closed.get();
    }
  }
  const std::uint64_t ws_open = open_count(ws_opened, ws_closed);
  const std::uint64_t channels_open = open_count(channels_opened, channels_closed);
  const std::uint64_t liveview_open = open_count(liveview_opened, liveview_closed);

  std::string out;
  out.reserve(4096);
  const auto line = [&out](std::string_view sample, auto value) { fmt::format_to(std::back_inserter(out), "{} {}\n", sample, value); };
  family(out, "stampede_target_connections", "gauge", "TCP connections open: HTTP, and WebSocket after an upgrade.");
  line("stampede_target_connections", open_count(accepted, ended) + ws_open);
  family(out, "stampede_target_http_requests_total", "counter",
         "HTTP requests received (but GET /metrics and the /__ control endpoints).");
  line("stampede_target_http_requests_total", requests);
  family(out, "stampede_target_http_requests_in_flight", "gauge",
         "HTTP requests received and not answered yet: held for their delay.");
  line("stampede_target_http_requests_in_flight", in_flight);
  family(out, "stampede_target_channel_joins_total", "counter", "Phoenix channel joins accepted.");
  line("stampede_target_channel_joins_total", joins);
  family(out, "stampede_target_websocket_sessions", "gauge",
         "WebSocket sessions open: Phoenix channels, LiveView, and plain echo.");
  line("stampede_target_websocket_sessions{kind=\"channels\"}", channels_open);
  line("stampede_target_websocket_sessions{kind=\"liveview\"}", liveview_open);
  line("stampede_target_websocket_sessions{kind=\"echo\"}", open_count(ws_open, channels_open + liveview_open));
  family(out, "stampede_target_event_loop_lag_seconds", "histogram",
         "How late each event loop ran a timer due every 100 ms: the time other work held it (probed from the "
         "first scrape on).");
  std::uint64_t cumulative = 0;
  for (std::size_t i = 0; i < LoopLagHistogram::kBounds.size(); ++i) {
    cumulative += lag[i];
    fmt::format_to(std::back_inserter(out), "stampede_target_event_loop_lag_seconds_bucket{{le=\"{}\"}} {}\n",
                   LoopLagHistogram::kBounds[i], cumulative);
  }
  cumulative += lag.back();
  fmt::format_to(std::back_inserter(out), "stampede_target_event_loop_lag_seconds_bucket{{le=\"+Inf\"}} {}\n",
                 cumulative);
  line("stampede_target_event_loop_lag_seconds_sum", static_cast<double>(lag_sum) / kSecond);
  // The buckets were read one by one while the loops ran; the count is their total, so the
  // +Inf bucket and the count always agree, as the format requires.
  line("stampede_target_event_loop_lag_seconds_count", cumulative);
  family(out, "stampede_target_event_loops", "gauge", "Event loops (threads) of this process.");
  line("stampede_target_event_loops", workers_.size());
  family(out, "process_resident_memory_bytes", "gauge", "Resident memory size in bytes.");
  line("process_resident_memory_bytes", resident_bytes());
  family(out, "process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.");
  line("process_cpu_seconds_total", cpu_seconds());
  return out;
}

}  // namespace stampede::target
