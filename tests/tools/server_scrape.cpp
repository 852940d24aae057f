// stampede-server-scrape: the server-metrics sampler on its own, for the integration tests
// and bench/scrape-cost, until `stampede run --server-metrics` runs it next to a load. Not
// part of the product (not installed).
//
//   stampede-server-scrape URL... [--every 1s] [--timeout 500ms] [--select GLOB]...
//                          [--seconds N] [--threshold METRIC:AGGREGATION:LIMIT]...
//                          [--scenario NAME] [--out results.json] [--cpu]
//
// It scrapes for N seconds (default 3) with a Collector of one slot, as the run will, and
// writes a results file (report::results_json) whose one scenario has the server series in
// its timeline and summary. --cpu prints, as one JSON line, the process CPU time it used and
// how many scrapes it made. Exit 0, or 2 for bad arguments.
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "clients/server_metrics_sampler.hpp"
#include "metrics/collector.hpp"
#include "metrics/metric_table.hpp"
#include "metrics/threshold.hpp"
#include "proto/duration.hpp"
#include "report/json_results.hpp"
#include "report/run_result_builder.hpp"
#include "report/timestamp.hpp"

namespace {

using namespace stampede;

int usage(const std::string& why) {
  std::fprintf(stderr,
               "error: %s\nusage: stampede-server-scrape URL... [--every 1s] [--timeout D] [--select GLOB]... "
               "[--seconds N] [--threshold METRIC:AGGREGATION:LIMIT]... [--scenario NAME] [--out FILE] [--cpu]\n",
               why.c_str());
  return 2;
}

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

}  // namespace

int main(int argc, char** argv) {
  clients::ServerMetricsOptions options;
  double seconds = 3;
  std::string out;
  std::string scenario = "server metrics";
  bool cpu = false;
  std::vector<metrics::ThresholdSpec> thresholds;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (arg == "--every" || arg == "--timeout") {
      std::string error;
      const auto d = proto::parse_duration(value(), &error);
      if (!d) return usage(arg + ": " + error);
      (arg == "--every" ? options.every : options.timeout.emplace()) = *d;
    } else if (arg == "--select") {
      options.select.push_back(value());
    } else if (arg == "--seconds") {
      seconds = std::stod(value());
    } else if (arg == "--out") {
      out = value();
    } else if (arg == "--scenario") {
      scenario = value();
    } else if (arg == "--cpu") {
      cpu = true;
    } else if (arg == "--threshold") {
      // METRIC:AGGREGATION:LIMIT, split from the right (a metric name may hold ':' in a label).
      const std::string t = value();
      const auto last = t.rfind(':');
      const auto middle = last == std::string::npos ? std::string::npos : t.rfind(':', last - 1);
      if (middle == std::string::npos) return usage("--threshold wants METRIC:AGGREGATION:LIMIT, got " + t);
      thresholds.push_back({t.substr(0, middle), t.substr(middle + 1, last - middle - 1), std::stod(t.substr(last + 1)),
                            "--threshold"});
    } else if (arg.starts_with("--")) {
      return usage("unknown option " + arg);
    } else {
      options.urls.push_back(arg);
    }
  }
  if (const std::string why = clients::validate_server_metrics(options, "the URLs"); !why.empty()) return usage(why);

  metrics::Registry registry;
  metrics::Collector collector(1);
  const double cpu_before = cpu_seconds();
  const auto wall_start = std::chrono::system_clock::now();
  const Nanos t0 = SteadyClock::monotonic_now();
  std::vector<std::string> exposed;
  {
    clients::ServerMetricsSampler sampler(options, registry,
                                          [&](metrics::Snapshot s) { collector.push(0, std::move(s)); });
    sampler.start(t0);
    std::this_thread::sleep_until(std::chrono::steady_clock::time_point(
        std::chrono::nanoseconds(t0 + static_cast<Nanos>(seconds * kSecond))));
    sampler.stop();
    exposed = sampler.exposed_names();
  }
  const Nanos duration = SteadyClock::monotonic_now() - t0;
  collector.finish(0);
  collector.flush();

  const metrics::Summary summary = collector.summary();
  report::SummaryModel model = report::summary_model_of(summary, registry, scenario, duration, {});
  const double window = std::max(1e-9, static_cast<double>(duration) / kSecond);
  for (const auto& spec : thresholds) model.thresholds.push_back(metrics::judge(spec, model.metrics, window, exposed));

  if (cpu) {
    metrics::MetricId scrape = 0;
    std::uint64_t scrapes = 0;
    if (registry.find("server.scrape", scrape) && scrape < summary.metrics.size())
      scrapes = summary.metrics[scrape].histogram.count();
    std::printf("{\"cpu_seconds\": %.6f, \"scrapes\": %llu}\n", cpu_seconds() - cpu_before,
                static_cast<unsigned long long>(scrapes));
  }
  if (out.empty()) return 0;

  report::ScenarioResult result;
  report::fill_summary(result, model);
  result.file = "(server metrics only: stampede-server-scrape)";
  result.started_at = report::iso8601_utc(wall_start);
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  result.host = host;
  result.threads = 0;
  result.options.shape.stages = {{duration, 0}};
  result.options.thresholds = thresholds;
  for (const auto& entry : collector.timeline()) {
    result.timeline.push_back(
        report::second_result(*entry, registry, report::second_window(entry->second, duration)));
  }
  report::RunResult run;
  run.tool.version = "test tool";
  run.tool.commit = "unknown";
  run.results.push_back(std::move(result));
  std::ofstream file(out);
  file << report::results_json(run) << '\n';
  return file ? 0 : 2;
}
