#pragma once
// A scenario's `options` table, read into plain data before the run starts so that every
// mistake is reported (exit 2) before any load is sent.
#include <optional>
#include <string>
#include <vector>

#include "clients/server_metrics_options.hpp"
#include "common/load_shape.hpp"
#include "scenario/find_limit_option.hpp"

struct lua_State;

namespace stampede::scenario {

struct ThresholdOption {
  std::string metric;
  std::string aggregation;  // p95, max, count, failed_rate, ...
  double limit = 0;
};

struct ScenarioOptions {
  std::optional<long long> vus;
  std::optional<Nanos> duration;
  std::vector<Stage> stages;
  std::optional<double> rate;
  std::optional<double> start_rate;
  std::vector<Stage> rate_stages;
  std::optional<long long> max_vus;
  std::optional<long long> iterations;  // with vus: how many iterations, all VUs together
  Nanos graceful_stop = 0;
  std::vector<ThresholdOption> thresholds;
  std::vector<std::string> local_addresses;
  bool insecure = false;
  bool http2 = false;  // stampede.http requests use HTTP/2 unless they say http2 = false
  std::optional<FindLimitOption> find_limit;  // how --find-limit steps the load
  // The Prometheus endpoint(s) scraped while the run goes (scenario/server_metrics_option.hpp).
  std::optional<clients::ServerMetricsOptions> server_metrics;
};

// Reads the table at `index`. `where` prefixes every error ("loadtest/api.lua: options").
// Throws ScenarioError.
ScenarioOptions read_options(lua_State* L, int index, const std::string& where);

// The option keys a scenario may set, for error messages and the reference docs.
const std::vector<std::string>& option_keys();

}  // namespace stampede::scenario
