#include "cli/server_metrics_args.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <string_view>

#include "proto/duration.hpp"
#include "scenario/scenario_error.hpp"

namespace stampede::cli {

namespace {

// CLI11 puts "--server-metrics: " before the message itself.
std::string check_url(const std::string& url) {
  clients::ServerMetricsOptions one;
  one.urls = {url};
  std::string why = clients::validate_server_metrics(one, "--server-metrics");
  const std::string_view named = "--server-metrics ";
  if (why.starts_with(named)) why.erase(0, named.size());
  return why;
}

std::string check_every(const std::string& text) {
  std::string error;
  const std::optional<Nanos> every = proto::parse_duration(text, &error);
  if (!every) return error;
  if (*every < clients::ServerMetricsOptions::kMinEvery)
    return fmt::format("must be at least {}, got {}: every scrape costs the server some work too",
                       proto::format_duration(clients::ServerMetricsOptions::kMinEvery), proto::format_duration(*every));
  return {};
}

}  // namespace

void add_server_metrics_options(CLI::App& run, ServerMetricsArgs& args) {
  run.add_option("--server-metrics", args.urls,
                 "Scrape this Prometheus endpoint while the run goes (repeatable: one per node) and show its series "
                 "as server.* metrics next to the load's, e.g. http://127.0.0.1:9568/metrics (PromEx, "
                 "Stampede.Probe, any exporter; replaces options.server_metrics' URLs)")
      ->check(check_url)
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  run.add_option("--server-metrics-every", args.every,
                 "How often --server-metrics (or options.server_metrics) is scraped, e.g. 500ms (default 1s; at least "
                 "100ms)")
      ->check(check_every);
}

std::optional<clients::ServerMetricsOptions> server_metrics_for(
    const ServerMetricsArgs& args, const std::optional<clients::ServerMetricsOptions>& scenario, const std::string& path) {
  if (args.urls.empty() && !scenario) {
    if (!args.every.empty())
      throw scenario::ScenarioError(fmt::format(
          "{}: --server-metrics-every needs an endpoint to scrape: add --server-metrics URL (or options.server_metrics)",
          path));
    return std::nullopt;
  }
  clients::ServerMetricsOptions options = scenario.value_or(clients::ServerMetricsOptions{});
  if (!args.urls.empty()) options.urls = args.urls;
  if (!args.every.empty()) options.every = proto::parse_duration(args.every).value_or(options.every);
  const bool from_flags = !args.urls.empty() && !scenario;
  if (std::string why = clients::validate_server_metrics(options, from_flags ? "--server-metrics" : "server_metrics");
      !why.empty())
    throw scenario::ScenarioError(fmt::format("{}: {}", path, why));
  return options;
}

}  // namespace stampede::cli
