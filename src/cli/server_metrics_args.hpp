#pragma once
// `stampede run --server-metrics URL [--server-metrics URL ...] [--server-metrics-every D]`
// as typed, and what a run scrapes once the scenario's own `server_metrics` option is
// taken into account (docs/guides/seeing-the-server.md).
#include <CLI/App.hpp>

#include <optional>
#include <string>
#include <vector>

#include "clients/server_metrics_options.hpp"

namespace stampede::cli {

struct ServerMetricsArgs {
  std::vector<std::string> urls;  // --server-metrics, repeatable
  std::string every;              // --server-metrics-every as typed ("" when not given)
};

void add_server_metrics_options(CLI::App& run, ServerMetricsArgs& args);

// What a run of the scenario at `path` scrapes: the command line's URLs replace the
// scenario's (its select and timeout are kept), --server-metrics-every replaces its every;
// nullopt when neither asks for any. Throws scenario::ScenarioError with
// validate_server_metrics()'s sentence when the result is not usable (a timeout no longer
// shorter than every), or when --server-metrics-every is given with no URL to scrape.
std::optional<clients::ServerMetricsOptions> server_metrics_for(
    const ServerMetricsArgs& args, const std::optional<clients::ServerMetricsOptions>& scenario, const std::string& path);

}  // namespace stampede::cli
