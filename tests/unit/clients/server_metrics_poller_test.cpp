// The sampler's logic on a simulated clock, with a scripted transport that answers when the
// test says (or never): when scrapes go out, when they time out, when each second is handed
// over, what a reply becomes. No sockets and no sleeps; the real-socket tests are in
// server_metrics_sampler_test.cpp.
#include "clients/server_metrics_poller.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "metrics/metric_sink.hpp"

namespace stampede::clients {
namespace {

using metrics::Kind;
using metrics::MetricData;
using metrics::Snapshot;

constexpr Nanos kT0 = 100 * kSecond;
constexpr Nanos ms(std::int64_t n) { return n * kMilli; }

class ScriptedTransport final : public ScrapeTransport {
 public:
  struct Request {
    std::size_t endpoint;
    Nanos at;
    Nanos timeout;
    Done done;
    bool cancelled = false;
    bool answered = false;
  };

  explicit ScriptedTransport(const ManualClock& clock) : clock_(clock) {}

  void start(std::size_t endpoint, Nanos timeout, Done done) override {
    requests.push_back({endpoint, clock_.now(), timeout, std::move(done)});
  }
  void cancel(std::size_t endpoint) override {
    for (Request& r : requests) {
      if (r.endpoint == endpoint && !r.answered) r.cancelled = true;
    }
  }

  // Answers the oldest open request of `endpoint`; false when there is none.
  bool answer(std::size_t endpoint, ScrapeReply reply) {
    for (Request& r : requests) {
      if (r.endpoint != endpoint || r.answered || r.cancelled) continue;
      r.answered = true;
      r.done(std::move(reply));
      return true;
    }
    return false;
  }
  std::size_t open() const {
    std::size_t n = 0;
    for (const Request& r : requests) n += !r.answered && !r.cancelled;
    return n;
  }

  std::vector<Request> requests;

 private:
  const ManualClock& clock_;
};

ScrapeReply ok(std::string body, std::string content_type = "text/plain; version=0.0.4; charset=utf-8") {
  ScrapeReply r;
  r.status = 200;
  r.content_type = std::move(content_type);
  r.body = std::move(body);
  return r;
}

ScrapeReply failed(std::string reason, std::string error = "it failed") {
  ScrapeReply r;
  r.error_reason = std::move(reason);
  r.error = std::move(error);
  return r;
}

std::string counter_body(double value) {
  return "# TYPE requests_total counter\nrequests_total " + std::to_string(value) + "\n";
}

class PollerTest : public ::testing::Test {
 protected:
  void make(ServerMetricsOptions options) {
    ASSERT_EQ(validate_server_metrics(options), "");
    poller = std::make_unique<ServerMetricsPoller>(options, registry, clock, transport, [this](Snapshot s) {
      delivered_at.push_back(clock.now());
      seconds.push_back(std::move(s));
    });
  }
  void make(std::size_t endpoints = 1, Nanos every = kSecond) {
    ServerMetricsOptions options;
    for (std::size_t i = 0; i < endpoints; ++i) options.urls.push_back("http://127.0.0.1:" + std::to_string(9000 + i) + "/metrics");
    options.every = every;
    make(options);
  }

  void start(Nanos at = kT0) {
    clock.set(at);
    wake = poller->start(kT0);
  }
  // Runs the loop until `until`, waking when the poller asked to (the test's replies come
  // between two calls, as a socket's would between two timers).
  void advance_to(Nanos until) {
    while (wake <= until) {
      clock.set(wake);
      wake = poller->on_wake();
    }
    clock.set(until);
  }

  const MetricData* metric(const Snapshot& s, std::string_view name) {
    metrics::MetricId id = 0;
    if (!registry.find(name, id) || id >= s.metrics.size() || !s.metrics[id].present) return nullptr;
    return &s.metrics[id];
  }
  std::uint64_t errors(const Snapshot& s, std::string_view reason) {
    const MetricData* e = metric(s, "server.scrape.errors");
    if (e == nullptr) return 0;
    const auto it = e->reasons.find(reason);
    return it == e->reasons.end() ? 0 : it->second;
  }

  metrics::Registry registry;
  ManualClock clock{kT0};
  ScriptedTransport transport{clock};
  std::unique_ptr<ServerMetricsPoller> poller;
  std::vector<Snapshot> seconds;
  std::vector<Nanos> delivered_at;
  Nanos wake = 0;
};

TEST_F(PollerTest, DeliversEverySecondOnTimeWhileTheEndpointStalls) {
  make();
  start();
  advance_to(kT0 + ms(5600));  // the endpoint never answers
  ASSERT_EQ(seconds.size(), 5u);
  for (std::size_t s = 0; s < seconds.size(); ++s) {
    EXPECT_EQ(seconds[s].second, static_cast<std::int64_t>(s));
    EXPECT_EQ(delivered_at[s], kT0 + static_cast<Nanos>(s + 1) * kSecond) << "second " << s << " on time";
  }
  // A first scrape at once, then rounds at t0 + 0.5 s, 1.5 s, ...: each abandoned at its
  // 500 ms deadline, which is the end of the round's second.
  ASSERT_EQ(transport.requests.size(), 7u);
  EXPECT_EQ(transport.requests[0].at, kT0);
  for (std::size_t k = 1; k < transport.requests.size(); ++k) {
    EXPECT_EQ(transport.requests[k].at, kT0 + ms(500) + static_cast<Nanos>(k - 1) * kSecond);
    EXPECT_EQ(transport.requests[k].timeout, ms(500));
  }
  EXPECT_EQ(transport.open(), 1u) << "one scrape in flight at a time, the others abandoned";
  EXPECT_EQ(errors(seconds[0], "timeout"), 2u);  // the first scrape (at 0.5 s) and round 0 (at 1 s)
  for (std::size_t s = 1; s < seconds.size(); ++s) EXPECT_EQ(errors(seconds[s], "timeout"), 1u) << s;
  const MetricData* took = metric(seconds[1], "server.scrape");
  ASSERT_NE(took, nullptr);
  EXPECT_EQ(took->histogram.max(), ms(500)) << "a timed-out scrape took its timeout";
}

TEST_F(PollerTest, CountersBecomeRatesOverTheMidpointsOfTheirScrapes) {
  make();
  start();
  // The first scrape answers at once (midpoint t0), round 0 (sent at 0.5 s) after 100 ms
  // (midpoint 0.55 s): 55 more requests in 0.55 s is 100 per second.
  ASSERT_TRUE(transport.answer(0, ok(counter_body(1000))));
  advance_to(kT0 + ms(600));
  ASSERT_TRUE(transport.answer(0, ok(counter_body(1055))));
  advance_to(kT0 + ms(1200));
  ASSERT_EQ(seconds.size(), 1u);
  const MetricData* rate = metric(seconds[0], "server.requests_total");
  ASSERT_NE(rate, nullptr);
  EXPECT_EQ(registry.kind(registry.intern("server.requests_total", Kind::Gauge)), Kind::Gauge);
  EXPECT_NEAR(rate->gauge_last, 100.0, 1e-9);
  EXPECT_EQ(errors(seconds[0], "timeout"), 0u);
  const MetricData* series = metric(seconds[0], "server.series");
  ASSERT_NE(series, nullptr);
  EXPECT_EQ(series->gauge_last, 1);
}

TEST_F(PollerTest, EveryFailureIsCountedWithItsReason) {
  make(6);
  start();
  transport.answer(0, [] {
    ScrapeReply r = ok("oops");
    r.status = 500;
    return r;
  }());
  transport.answer(1, ok("requests_total{a=\"b 12\n"));
  transport.answer(2, failed("refused", "GET http://127.0.0.1:9002/metrics failed: connection refused"));
  transport.answer(3, failed("closed", "the server closed the connection before the response was complete"));
  transport.answer(4, failed("protocol", "GET http://x/ failed: the server sent an invalid response: response body "
                                         "is larger than the limit of 33554432 bytes"));
  transport.answer(5, failed("protocol", "GET http://x/ failed: the server sent an invalid response: bad status line"));
  advance_to(kT0 + ms(999));
  poller->stop();
  ASSERT_EQ(seconds.size(), 1u);
  EXPECT_EQ(errors(seconds[0], "status 500"), 1u);
  EXPECT_EQ(errors(seconds[0], "parse: line 1: label value of \"a\" in \"requests_total\" not closed"), 1u)
      << ::testing::PrintToString(metric(seconds[0], "server.scrape.errors")->reasons);
  EXPECT_EQ(errors(seconds[0], "refused"), 1u);
  EXPECT_EQ(errors(seconds[0], "closed"), 1u);
  EXPECT_EQ(errors(seconds[0], "too large: the body is over the 32 MiB limit"), 1u);
  EXPECT_EQ(errors(seconds[0], "protocol: the server sent an invalid response: bad status line"), 1u);
  // Round 0 (at 0.5 s) never answered and was cut off by stop(): not an error.
  EXPECT_EQ(metric(seconds[0], "server.scrape.errors")->count, 6u);
  EXPECT_EQ(metric(seconds[0], "server.scrape")->histogram.count(), 6u);
}

TEST_F(PollerTest, AFailedScrapeLeavesAGapNotAStaleLevel) {
  make();
  start();
  transport.answer(0, ok("# TYPE queue gauge\nqueue 7\n"));
  advance_to(kT0 + ms(500));
  transport.answer(0, ok("# TYPE queue gauge\nqueue 9\n"));
  advance_to(kT0 + ms(1500));
  transport.answer(0, failed("refused"));
  advance_to(kT0 + ms(2500));
  transport.answer(0, ok("# TYPE queue gauge\nqueue 4\n"));
  advance_to(kT0 + ms(3100));
  ASSERT_EQ(seconds.size(), 3u);
  const MetricData* q0 = metric(seconds[0], "server.queue");
  ASSERT_NE(q0, nullptr);
  EXPECT_EQ(q0->gauge_max, 9);
  EXPECT_EQ(q0->gauge_last, 9);
  EXPECT_EQ(metric(seconds[1], "server.queue"), nullptr) << "the level carried from second 0 is not known any more";
  const MetricData* q2 = metric(seconds[2], "server.queue");
  ASSERT_NE(q2, nullptr);
  EXPECT_EQ(q2->gauge_last, 4);
  EXPECT_EQ(metric(seconds[1], "server.series")->gauge_last, 0);
}

TEST_F(PollerTest, ASeriesThatGoesAwayIsNotCarriedOn) {
  make();
  start();
  const std::string both = "# TYPE q gauge\nq{id=\"1\"} 1\nq{id=\"2\"} 2\n";
  transport.answer(0, ok(both));
  advance_to(kT0 + ms(500));
  transport.answer(0, ok(both));
  advance_to(kT0 + ms(1500));
  transport.answer(0, ok("# TYPE q gauge\nq{id=\"1\"} 1\n"));
  advance_to(kT0 + ms(2100));
  ASSERT_EQ(seconds.size(), 2u);
  EXPECT_NE(metric(seconds[0], "server.q{id=\"2\"}"), nullptr);
  EXPECT_EQ(metric(seconds[1], "server.q{id=\"2\"}"), nullptr);
  EXPECT_NE(metric(seconds[1], "server.q{id=\"1\"}"), nullptr);
}

TEST_F(PollerTest, ALateWakeDeliversEverySecondThatEndedAndSkipsMissedRounds) {
  make();
  start();
  transport.answer(0, ok(counter_body(1)));
  clock.set(kT0 + ms(3700));  // the machine stalled for 3.7 s
  wake = poller->on_wake();
  ASSERT_EQ(seconds.size(), 3u);
  for (int s = 0; s < 3; ++s) EXPECT_EQ(seconds[static_cast<std::size_t>(s)].second, s);
  ASSERT_EQ(transport.requests.size(), 2u) << "one round for the rounds missed";
  EXPECT_EQ(wake, kT0 + ms(4000)) << "then the end of second 3";
  transport.answer(0, ok(counter_body(1)));
  clock.set(wake);
  wake = poller->on_wake();
  EXPECT_EQ(wake, kT0 + ms(4500)) << "and the next round on the schedule";
}

TEST_F(PollerTest, StopDeliversTheSecondsDueAndThePartialOne) {
  make();
  start();
  advance_to(kT0 + ms(2300));
  poller->stop();
  ASSERT_EQ(seconds.size(), 3u);
  EXPECT_EQ(seconds[2].second, 2);
  EXPECT_EQ(delivered_at[2], kT0 + ms(2300));
  EXPECT_EQ(transport.open(), 0u);
  poller->stop();
  clock.set(kT0 + ms(9000));
  poller->on_wake();
  EXPECT_EQ(seconds.size(), 3u) << "nothing after stop()";
}

TEST_F(PollerTest, StopRightAwayStillDeliversSecondZero) {
  make();
  start();
  poller->stop();
  ASSERT_EQ(seconds.size(), 1u);
  EXPECT_EQ(seconds[0].second, 0);
}

TEST_F(PollerTest, NoFirstScrapeWhenRoundZeroIsTooClose) {
  ServerMetricsOptions options;
  options.urls = {"http://127.0.0.1:9000/metrics"};
  options.every = kSecond;
  options.timeout = ms(700);  // round 0 at t0 + 0.3 s: a first scrape could still be running
  make(options);
  start();
  EXPECT_TRUE(transport.requests.empty());
  EXPECT_EQ(wake, kT0 + ms(300));
}

TEST_F(PollerTest, AFirstScrapeStartedLateEndsBeforeRoundZero) {
  make();
  start(kT0 + ms(150));  // the thread started 150 ms after t0: 350 ms of room before round 0
  ASSERT_EQ(transport.requests.size(), 1u);
  EXPECT_EQ(wake, kT0 + ms(500)) << "its deadline is round 0, not 150 ms + 500 ms";
  advance_to(kT0 + ms(500));
  ASSERT_EQ(transport.requests.size(), 2u);
  EXPECT_TRUE(transport.requests[0].cancelled);
  EXPECT_EQ(transport.open(), 1u) << "never two in flight";
  advance_to(kT0 + ms(1000));
  EXPECT_EQ(errors(seconds[0], "timeout"), 2u);
  EXPECT_EQ(metric(seconds[0], "server.scrape")->histogram.min(), ms(350)) << "the first one took until round 0";
}

TEST_F(PollerTest, SlowerSchedulesKeepTheirPhaseAndDeliverEverySecond) {
  make(1, 5 * kSecond);  // timeout min(2.5 s, 800 ms) = 800 ms: rounds at 4.2 s, 9.2 s
  start();
  while (wake <= kT0 + ms(10000)) {
    clock.set(wake);
    transport.answer(0, ok(counter_body(5)));  // whatever is in flight answers at once
    wake = poller->on_wake();
  }
  EXPECT_EQ(seconds.size(), 10u);
  ASSERT_EQ(transport.requests.size(), 3u);
  EXPECT_EQ(transport.requests[1].at, kT0 + ms(4200));
  EXPECT_EQ(transport.requests[2].at, kT0 + ms(9200));
}

TEST_F(PollerTest, SeveralEndpointsAreToldApartByInstance) {
  make(2);
  start();
  transport.answer(0, ok("# TYPE up gauge\nup 1\n"));
  transport.answer(1, ok("# TYPE up gauge\nup 0\n"));
  advance_to(kT0 + ms(600));
  transport.answer(0, ok("# TYPE up gauge\nup 1\n"));
  transport.answer(1, ok("# TYPE up gauge\nup 0\n"));
  advance_to(kT0 + ms(1000));
  ASSERT_EQ(seconds.size(), 1u);
  ASSERT_NE(metric(seconds[0], "server.up{instance=\"127.0.0.1:9000\"}"), nullptr);
  EXPECT_EQ(metric(seconds[0], "server.up{instance=\"127.0.0.1:9000\"}")->gauge_last, 1);
  EXPECT_EQ(metric(seconds[0], "server.up{instance=\"127.0.0.1:9001\"}")->gauge_last, 0);
  EXPECT_EQ(metric(seconds[0], "server.series")->gauge_last, 2);
  const auto names = poller->exposed_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "server.up"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "server.up{instance=\"127.0.0.1:9001\"}"), names.end());
}

TEST_F(PollerTest, TheFormatComesFromTheContentType) {
  make();
  start();
  // OpenMetrics announced: a body without # EOF was cut short.
  transport.answer(0, ok("# TYPE up gauge\nup 1\n", "application/openmetrics-text; version=1.0.0; charset=utf-8"));
  advance_to(kT0 + ms(1000));
  EXPECT_EQ(errors(seconds[0], "parse: the body does not end with # EOF: cut short?"), 1u)
      << ::testing::PrintToString(metric(seconds[0], "server.scrape.errors")->reasons);
}

TEST(InstanceLabels, HostAndPortOrAlsoThePath) {
  EXPECT_EQ(instance_labels({"http://a:1/metrics"}), std::vector<std::string>{""});
  EXPECT_EQ(instance_labels({"http://a:1/metrics", "https://b/metrics", "http://[::1]:9568/m"}),
            (std::vector<std::string>{"a:1", "b:443", "[::1]:9568"}));
  EXPECT_EQ(instance_labels({"http://a:1/one", "http://a:1/two"}), (std::vector<std::string>{"a:1/one", "a:1/two"}));
}

}  // namespace
}  // namespace stampede::clients
