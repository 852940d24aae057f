#include "clients/server_metrics_options.hpp"

#include <gtest/gtest.h>

namespace stampede::clients {
namespace {

ServerMetricsOptions with_url(std::string url) {
  ServerMetricsOptions o;
  o.urls = {std::move(url)};
  return o;
}

TEST(ServerMetricsOptions, DefaultTimeoutIsHalfOfEveryUpTo800ms) {
  ServerMetricsOptions o = with_url("http://127.0.0.1:9568/metrics");
  EXPECT_EQ(o.scrape_timeout(), 500 * kMilli);
  o.every = 5 * kSecond;
  EXPECT_EQ(o.scrape_timeout(), 800 * kMilli);
  o.every = 200 * kMilli;
  EXPECT_EQ(o.scrape_timeout(), 100 * kMilli);
  o.timeout = 150 * kMilli;
  EXPECT_EQ(o.scrape_timeout(), 150 * kMilli);
}

TEST(ServerMetricsOptions, ValidOnes) {
  EXPECT_EQ(validate_server_metrics(with_url("http://127.0.0.1:9568/metrics")), "");
  ServerMetricsOptions o;
  o.urls = {"https://node1.example:9568/metrics", "http://[::1]:4000/metrics"};
  o.every = 100 * kMilli;
  o.select = {"beam_*", "server.phoenix_*"};
  EXPECT_EQ(validate_server_metrics(o), "");
}

TEST(ServerMetricsOptions, EachMistakeIsNamed) {
  EXPECT_EQ(validate_server_metrics(ServerMetricsOptions{}),
            "server_metrics: give the URL of a Prometheus endpoint to scrape, such as http://127.0.0.1:9568/metrics");
  EXPECT_EQ(validate_server_metrics(with_url("127.0.0.1:9568/metrics"), "--server-metrics"),
            "--server-metrics \"127.0.0.1:9568/metrics\" is not a URL to scrape: missing scheme: did you mean "
            "http://127.0.0.1:9568/metrics?");
  ServerMetricsOptions two;
  two.urls = {"http://a:1/metrics", "ws://b:2/metrics"};
  EXPECT_EQ(validate_server_metrics(two).substr(0, 52), "server_metrics.urls[2] \"ws://b:2/metrics\" is not a U");
  two.urls = {"http://a:1/metrics", "http://a:1/metrics"};
  EXPECT_EQ(validate_server_metrics(two),
            "server_metrics.urls[2] \"http://a:1/metrics\" is given twice: each URL is scraped once per interval "
            "already");

  ServerMetricsOptions fast = with_url("http://a:1/metrics");
  fast.every = 50 * kMilli;
  EXPECT_EQ(validate_server_metrics(fast),
            "server_metrics.every must be at least 100ms, got 50ms: every scrape costs the server some work too");
  ServerMetricsOptions slow_timeout = with_url("http://a:1/metrics");
  slow_timeout.timeout = kSecond;
  EXPECT_EQ(validate_server_metrics(slow_timeout),
            "server_metrics.timeout (1s) must be shorter than every (1s): a scrape has to end before the next is due");
  slow_timeout.timeout = 0;
  EXPECT_EQ(validate_server_metrics(slow_timeout), "server_metrics.timeout must be more than 0, got 0s");

  ServerMetricsOptions empty = with_url("http://a:1/metrics");
  empty.select = {"beam_*", ""};
  EXPECT_EQ(validate_server_metrics(empty),
            "server_metrics.select[2] is empty: give a pattern of family names, such as \"beam_*\"");
  empty.select = {"server."};
  EXPECT_EQ(validate_server_metrics(empty),
            "server_metrics.select[1] is empty: give a pattern of family names, such as \"beam_*\"");
}

}  // namespace
}  // namespace stampede::clients
