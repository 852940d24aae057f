// The sampler over real sockets, on its own thread and the steady clock: against a small
// Asio exposition server (exposition_server.hpp) that behaves, stalls, sends garbage, 500s,
// closes early, sends too much or trickles; and against Debian's prometheus-node-exporter.
// What must hold: deliveries come once per second in order whatever the endpoint does,
// and every failure is counted with its reason. When exactly a second is delivered is the
// poller's (server_metrics_poller_test.cpp, on a simulated clock); nothing here asserts a
// duration.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "clients/exposition_server.hpp"
#include "clients/server_metrics_sampler.hpp"
#include "proto/prometheus_exposition.hpp"
#include "wait_until.hpp"

extern char** environ;

namespace stampede::clients {
namespace {

using metrics::MetricData;
using metrics::Snapshot;

// Collects deliveries; wait_for(n) blocks until n have arrived (a hang guard of a minute,
// not a timing check).
class Deliveries {
 public:
  void operator()(Snapshot s) {
    std::lock_guard lock(mutex_);
    seconds_.push_back(std::move(s));
    arrived_.notify_all();
  }
  bool wait_for(std::size_t n) {
    std::unique_lock lock(mutex_);
    return arrived_.wait_for(lock, std::chrono::minutes(1), [&] { return seconds_.size() >= n; });
  }
  std::vector<Snapshot> seconds() const {
    std::lock_guard lock(mutex_);
    return seconds_;
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable arrived_;
  std::vector<Snapshot> seconds_;
};

class SamplerTest : public ::testing::Test {
 protected:
  // Runs a sampler until `seconds` seconds were delivered, then stops it.
  std::vector<Snapshot> sample(ServerMetricsOptions options, std::size_t seconds,
                               const std::function<void()>& while_running = {}) {
    Deliveries deliveries;
    ServerMetricsSampler sampler(std::move(options), registry, std::ref(deliveries));
    sampler.start(SteadyClock::monotonic_now());
    EXPECT_TRUE(deliveries.wait_for(seconds)) << "no second delivered for a minute";
    if (while_running) while_running();
    sampler.stop();
    exposed = sampler.exposed_names();
    const auto all = deliveries.seconds();
    for (std::size_t i = 0; i < all.size(); ++i) EXPECT_EQ(all[i].second, static_cast<std::int64_t>(i)) << "in order";
    return all;
  }

  const MetricData* metric(const Snapshot& s, std::string_view name) {
    metrics::MetricId id = 0;
    if (!registry.find(name, id) || id >= s.metrics.size() || !s.metrics[id].present) return nullptr;
    return &s.metrics[id];
  }
  std::uint64_t errors(const std::vector<Snapshot>& seconds, std::string_view reason) {
    std::uint64_t n = 0;
    for (const Snapshot& s : seconds) {
      if (const MetricData* e = metric(s, "server.scrape.errors")) {
        if (auto it = e->reasons.find(reason); it != e->reasons.end()) n += it->second;
      }
    }
    return n;
  }
  std::string all_reasons(const std::vector<Snapshot>& seconds) {
    std::string out;
    for (const Snapshot& s : seconds) {
      if (const MetricData* e = metric(s, "server.scrape.errors")) {
        for (const auto& [reason, n] : e->reasons) out += reason + " x" + std::to_string(n) + "; ";
      }
    }
    return out;
  }

  metrics::Registry registry;
  std::vector<std::string> exposed;
};

TEST_F(SamplerTest, ScrapesAnExpositionServerIntoServerSeries) {
  testing::ExpositionServer server;
  ServerMetricsOptions options;
  options.urls = {server.url("/metrics")};
  const auto seconds = sample(options, 3);
  ASSERT_GE(seconds.size(), 3u);
  EXPECT_EQ(server.last_accept(), proto::kExpositionAccept);
  EXPECT_EQ(server.connections(), 1) << "one keep-alive connection for every scrape";
  EXPECT_EQ(errors(seconds, "timeout") + errors(seconds, "refused"), 0u) << all_reasons(seconds);
  for (std::size_t s = 0; s < 3; ++s) {
    SCOPED_TRACE("second " + std::to_string(s));
    const MetricData* queue = metric(seconds[s], "server.queue_length");
    ASSERT_NE(queue, nullptr);
    EXPECT_EQ(queue->gauge_last, 7);
    // 10 requests per scrape, one scrape a second: about 10 per second (the interval is
    // between the scrapes' midpoints, which the loop's wake-ups move by a little).
    const MetricData* rate = metric(seconds[s], "server.requests_total");
    ASSERT_NE(rate, nullptr);
    EXPECT_GT(rate->gauge_last, 0);
    // 20 observations per scrape, spread over the buckets like histogram_quantile.
    const MetricData* duration = metric(seconds[s], "server.app_request_duration_seconds");
    ASSERT_NE(duration, nullptr);
    EXPECT_EQ(duration->histogram.count() % 20, 0u);
    EXPECT_GE(duration->histogram.count(), 20u);
    EXPECT_NEAR(duration->histogram.percentile(25), 10'000'000, 10'000) << "5 of 20 at or below 10 ms";
    EXPECT_EQ(duration->histogram.percentile(100), 1'000'000'000) << "the +Inf bucket at 1 s";
    EXPECT_EQ(metric(seconds[s], "server.series")->gauge_last, 3);
  }
  // Per scrape the counter moves 10 over about a second; how near 10 the rate is depends on
  // when the scrapes ran, which the steady clock does not promise: the rate's arithmetic is
  // server_metrics_poller_test.cpp's, on a simulated clock.
  EXPECT_NE(std::find(exposed.begin(), exposed.end(), "server.app_request_duration_seconds"), exposed.end());
}

TEST_F(SamplerTest, OpenMetricsIsReadAsOpenMetrics) {
  testing::ExpositionServer server;
  ServerMetricsOptions options;
  options.urls = {server.url("/openmetrics")};
  const auto seconds = sample(options, 2);
  EXPECT_EQ(all_reasons(seconds), "");
  ASSERT_NE(metric(seconds[1], "server.requests_total"), nullptr);
}

TEST_F(SamplerTest, MisbehavingEndpointsCostErrorsWithTheirReasonsAndDeliveriesGoOn) {
  testing::ExpositionServer server;
  ServerMetricsOptions options;
  for (const char* path : {"/metrics", "/stall", "/garbage", "/500", "/close", "/huge", "/trickle", "/ssh"})
    options.urls.push_back(server.url(path));
  options.every = 500 * kMilli;  // 250 ms timeout: two rounds a second
  options.max_body_bytes = 1 << 20;
  const auto seconds = sample(options, 3);
  ASSERT_GE(seconds.size(), 3u);
  // Each round gave up on the stalled request and sent a new one (one at a time).
  EXPECT_GE(server.requests("/stall"), 3);
  const std::string reasons = all_reasons(seconds);
  // At least one round per second for three seconds, each endpoint failing its own way.
  EXPECT_GE(errors(seconds, "timeout"), 6u) << reasons;  // /stall and /trickle
  EXPECT_GE(errors(seconds, "parse: line 1: expected a metric name or '#', got '<'"), 3u)
      << reasons;
  EXPECT_GE(errors(seconds, "status 500"), 3u) << reasons;
  EXPECT_GE(errors(seconds, "closed"), 3u) << reasons;
  EXPECT_GE(errors(seconds, "too large: the body is over the 1 MiB limit"), 3u) << reasons;
  EXPECT_GE(errors(seconds,
                   "protocol: the server sent an invalid response: response does not start with an HTTP/1.x status "
                   "line: it starts with \"S\""), 3u) << reasons;
  // The endpoint that behaves is recorded all along, with the instance label.
  const std::string good = "server.queue_length{instance=\"127.0.0.1:" + std::to_string(server.port()) + "/metrics\"}";
  for (std::size_t s = 0; s < 3; ++s) EXPECT_NE(metric(seconds[s], good), nullptr) << "second " << s << ": " << good;
  EXPECT_EQ(metric(seconds[1], "server.series")->gauge_last, 3) << "the other endpoints give none";
}

TEST_F(SamplerTest, ADeadEndpointIsRefusedEverySecond) {
  // A port nobody listens on: bound, then closed.
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  ServerMetricsOptions options;
  options.urls = {"http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port)) + "/metrics"};
  const auto seconds = sample(options, 2);
  EXPECT_GE(errors(seconds, "refused"), 2u) << all_reasons(seconds);
  EXPECT_EQ(metric(seconds[1], "server.series")->gauge_last, 0);
}

// --- Debian's prometheus-node-exporter, a real exporter (client_golang) --------------------

std::uint16_t free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

class NodeExporter {
 public:
  static constexpr const char* kBinary = "/usr/bin/prometheus-node-exporter";

  NodeExporter() : port_(free_port()) {
    const std::string listen = "--web.listen-address=127.0.0.1:" + std::to_string(port_);
    // Without the collectors that need systemd, udev or D-Bus, which a container lacks (they
    // log an error on every scrape).
    std::vector<std::string> args = {kBinary, listen, "--log.level=error", "--no-collector.systemd",
                                     "--no-collector.diskstats"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    if (::posix_spawn(&pid_, kBinary, nullptr, nullptr, argv.data(), environ) != 0) pid_ = -1;
  }
  ~NodeExporter() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
  bool started() const { return pid_ > 0; }
  // Waits until it accepts connections.
  bool ready() const {
    return testing::wait_until(
        "node_exporter listens on " + url(),
        [this] {
          const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
          sockaddr_in addr{};
          addr.sin_family = AF_INET;
          addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
          addr.sin_port = htons(port_);
          const bool up = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
          ::close(fd);
          return up;
        },
        testing::kHangGuard, std::chrono::milliseconds(100));
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/metrics"; }

 private:
  std::uint16_t port_;
  pid_t pid_ = -1;
};

double mem_total_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  double kib = 0;
  while (meminfo >> key >> kib) {
    if (key == "MemTotal:") return kib * 1024;
    meminfo.ignore(256, '\n');
  }
  return 0;
}

TEST_F(SamplerTest, ScrapesDebiansNodeExporter) {
  if (::access(NodeExporter::kBinary, X_OK) != 0) {
    FAIL() << NodeExporter::kBinary << " is missing: scripts/setup-test-deps.sh installs prometheus-node-exporter";
  }
  NodeExporter exporter;
  ASSERT_TRUE(exporter.started());
  ASSERT_TRUE(exporter.ready()) << "node_exporter did not listen on " << exporter.url();
  ServerMetricsOptions options;
  options.urls = {exporter.url()};
  options.every = 2 * kSecond;  // an 800 ms timeout: its default collectors take tens of ms
  options.select = {"node_memory_MemTotal_bytes", "node_cpu_seconds_total", "go_gc_duration_seconds",
                    "promhttp_metric_handler_requests_total"};
  const auto seconds = sample(options, 4);
  EXPECT_EQ(all_reasons(seconds), "");
  const Snapshot& last = seconds[3];
  const MetricData* mem = metric(last, "server.node_memory_MemTotal_bytes");
  ASSERT_NE(mem, nullptr);
  EXPECT_EQ(mem->gauge_last, mem_total_bytes());
  // CPU seconds per second of one CPU's idle time: between 0 and 1 (a little over with jitter).
  const MetricData* idle = metric(last, "server.node_cpu_seconds_total{cpu=\"0\",mode=\"idle\"}");
  ASSERT_NE(idle, nullptr);
  EXPECT_GE(idle->gauge_last, 0);
  EXPECT_LE(idle->gauge_last, 1.5);
  // Its own scrapes, counted by code: ours, about one per 2 s (fewer when the scrapes come
  // late, so only "some"; never more than one per 0.5 s).
  const MetricData* handled = metric(last, "server.promhttp_metric_handler_requests_total{code=\"200\"}");
  ASSERT_NE(handled, nullptr);
  EXPECT_GT(handled->gauge_last, 0);
  EXPECT_LT(handled->gauge_last, 2);
  // A summary's quantiles are gauges with their quantile label.
  bool quantile = false;
  for (const Snapshot& s : seconds) quantile = quantile || metric(s, "server.go_gc_duration_seconds{quantile=\"0.5\"}");
  EXPECT_TRUE(quantile);
  // Families it exposed but were not selected still count as exposed, for threshold messages.
  EXPECT_NE(std::find(exposed.begin(), exposed.end(), "server.node_load1"), exposed.end());
}

}  // namespace
}  // namespace stampede::clients
