#pragma once
// What `--server-metrics URL` and the scenario option
//
//   server_metrics = { url = "http://127.0.0.1:9568/metrics", every = "1s", select = { "beam_*" } }
//   server_metrics = { urls = { "http://10.0.0.1:9568/metrics", "http://10.0.0.2:9568/metrics" } }
//
// tell the server-metrics sampler (server_metrics_sampler.hpp), checked before the run so
// that a typo is a usage error and not a run with a silent Server section.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.hpp"

namespace stampede::clients {

struct ServerMetricsOptions {
  // Prometheus endpoints (http:// or https://), one per node of a clustered app. Each is
  // scraped every `every`; with more than one, every series gets an instance="host:port"
  // label so that the nodes' series stay apart.
  std::vector<std::string> urls;
  Nanos every = kSecond;
  // Glob patterns ('*', '?') on family names ("beam_*", "phoenix_*"); a leading "server." is
  // allowed. Empty: every family the endpoint exposes.
  std::vector<std::string> select;
  // Each scrape's limit, connecting included; default (unset): min(every / 2, 800 ms).
  std::optional<Nanos> timeout;
  // A response body larger than this is an error ("too large"), not a parse.
  std::size_t max_body_bytes = kDefaultMaxBodyBytes;

  static constexpr Nanos kMinEvery = 100 * kMilli;
  static constexpr Nanos kDefaultTimeoutCap = 800 * kMilli;
  static constexpr std::size_t kDefaultMaxBodyBytes = 32 * 1024 * 1024;

  // `timeout` if set, else min(every / 2, 800 ms).
  Nanos scrape_timeout() const;
};

// Empty when `options` can be used; otherwise the first problem as a sentence that names
// the field, for a usage error: "server_metrics.url \"localhost:9568\" is not a URL to
// scrape: ...", "server_metrics.every must be at least 100ms, got 50ms", "server_metrics.
// select[2] is empty: give a pattern such as \"beam_*\"". `where` names the option in the
// messages ("server_metrics" for the scenario option, "--server-metrics" for the flag).
std::string validate_server_metrics(const ServerMetricsOptions& options, const std::string& where = "server_metrics");

}  // namespace stampede::clients
