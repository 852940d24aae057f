#include "cli/cli.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "cli/compare_command.hpp"
#include "cli/convert_command.hpp"
#include "cli/record_command.hpp"
#include "cli/demo_command.hpp"
#include "cli/new_command.hpp"
#include "cli/number_checks.hpp"
#include "cli/reference_command.hpp"
#include "cli/report_command.hpp"
#include "cli/cluster_options.hpp"
#include "cli/run_args.hpp"
#include "cli/target_args.hpp"
#include "cli/version.hpp"
#include "proto/duration.hpp"
#include "target/listen_address.hpp"
#include "transport/fd_table.hpp"

namespace stampede::cli {

namespace {

// CLI11 validator for durations, so a bad one is reported with the option's name.
struct DurationValidator : CLI::Validator {
  DurationValidator() {
    name_ = "DURATION";
    func_ = [](std::string& text) -> std::string {
      std::string error;
      if (!proto::parse_duration(text, &error)) return error;
      return {};
    };
  }
};

Nanos duration_of(const std::string& text) { return *proto::parse_duration(text); }

// Under mpirun only rank 0 reads the scenario files and sends their text to the others
// (design 013): on another machine a rank's copy need not exist.
bool is_other_mpi_rank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"})
    if (const char* rank = std::getenv(name)) return std::atoi(rank) > 0;
  return false;
}

std::string check_scenario_file(const std::string& path) {
  if (is_other_mpi_rank()) return {};
  std::error_code ec;
  if (std::filesystem::is_regular_file(path, ec)) return {};
  if (std::filesystem::is_directory(path, ec)) return path + " is a directory, not a scenario file";
  // `--find-limit rate` reads "rate" as a file: the flag's value needs the `=`.
  if (path == "rate" || path == "vus" || path == "scenario")
    return "no scenario file \"" + path + "\" (to step the " + path + ", write --find-limit=" + path + ")";
  return "no such file: " + path;
}

}  // namespace

int main(int argc, char** argv) {
  transport::presize_fd_table();  // before any thread exists: see transport/fd_table.hpp
  CLI::App app{"Stampede: load tests for Phoenix applications (HTTP, WebSockets, Channels, LiveView)", "stampede"};
  app.require_subcommand(1);
  app.set_version_flag("--version", version_line());

  RunArgs run;
  std::string vus_text, rate_text, duration_text, max_vus_text;
  std::optional<long long> vus, max_vus, iterations;
  std::optional<double> rate;
  std::string duration;
  auto* run_cmd = app.add_subcommand("run", "Run one or more scenario files (one after the other)");
  run_cmd->add_option("scenarios", run.files, "Scenario files (Lua)")->required()->check(check_scenario_file);
  run_cmd->add_option("--vus", vus, "Run this many VUs (closed model), overriding the scenario's load")
      ->check(CLI::Range(0LL, 10'000'000LL));
  run_cmd->add_option("--rate", rate, "Start this many iterations per second (open model), overriding the scenario's load")
      ->check(check_positive_number);
  run_cmd->add_option("--duration", duration, "How long the load lasts, e.g. 30s, 5m, 1h30m")
      ->check(DurationValidator());
  run_cmd->add_option("--max-vus", max_vus, "With a rate: the most iterations in flight at once")
      ->check(CLI::Range(1LL, 10'000'000LL));
  run_cmd->add_option("--iterations", iterations,
                      "With VUs: end the run once this many iterations have ended, all VUs together (k6's shared "
                      "iterations); the duration, if any, is the most it may take (default 10m)")
      ->check(CLI::Range(1LL, std::numeric_limits<long long>::max()));
  run_cmd->add_option("--threads", run.threads,
                      "Worker threads (default: chosen for this machine and where the target is, and said on the "
                      "summary's generator line: on 2 cores one worker)")
      ->check(CLI::Range(1, 1024));
  std::string cpu_policy;
  run_cmd->add_option("--cpu-policy", cpu_policy,
                      "How the worker threads use their CPUs: normal (sleep when idle); batch (SCHED_BATCH: a waking "
                      "worker does not preempt a server on the same machine; more requests per CPU, up to a time slice "
                      "of lateness, which iteration.lag shows); poll (a busy worker polls its loop instead of "
                      "sleeping: it holds a core, and wakes neither late nor at a wake-up's cost; default --threads one "
                      "fewer than the cores); or adaptive (sleep when idle, poll only while a worker's own work takes "
                      "most of its core). Default: chosen with --threads for this machine (adaptive on 2 cores and more)")
      ->check(CLI::IsMember(std::vector<std::string>(engine::kCpuPolicyNames.begin(), engine::kCpuPolicyNames.end())));
  run_cmd->add_option("--local-addresses", run.local_addresses,
                      "Source addresses for outgoing connections, e.g. 127.0.0.2-127.0.0.50 (past 64k connections)");
  add_cluster_options(*run_cmd, run.cluster);
  run.cluster.argv.assign(argv, argv + argc);  // --nodes re-runs this command under mpirun
  run_cmd->add_flag("--quiet,-q", run.quiet, "No progress line");
  std::string summary = "compact";
  run_cmd->add_option("--summary", summary,
                      "compact: the summary leaves out metrics with nothing recorded (unless a threshold names them); "
                      "all: every metric. A timing's errors are its row's last column either way; --out has everything")
      ->capture_default_str()
      ->check(CLI::IsMember({"compact", "all"}));
  run_cmd->add_flag("--insecure", run.insecure, "Do not verify TLS certificates");
  run_cmd->add_option("--out", run.outputs.json, "Write everything the run measured to this JSON file (schema/results.schema.json)");
  run_cmd->add_option("--out-stream", run.outputs.stream, "Write one JSON line per second to this file while the run goes");
  run_cmd->add_option("--badge", run.outputs.badge, "Write an SVG badge with the verdict (passed/failed)");
  run_cmd->add_option("--junit", run.outputs.junit, "Write thresholds and checks as JUnit XML test cases");
  run_cmd->add_option("--prometheus", run.outputs.prometheus,
                      "Serve live metrics for Prometheus at http://ADDRESS/metrics, e.g. 127.0.0.1:9464");
  run_cmd->add_option("--html", run.outputs.html,
                      "Write the report as one HTML page that needs nothing else: charts over time, thresholds, checks, errors");
  add_find_limit_options(*run_cmd, run.find_limit);
  add_server_metrics_options(*run_cmd, run.server_metrics);
  run_cmd->add_flag("--parallel", run.parallel,
                    "Run every scenario file at the same time, each with its own load, thresholds and results "
                    "(exit 1 if any fails a threshold)");
  std::string dashboard_linger;
  run_cmd->add_flag("--dashboard", run.dashboard.enabled,
                    "Serve a live dashboard of the run (updated every second) at http://127.0.0.1:4040/");
  auto* dashboard_listen =
      run_cmd->add_option("--dashboard-listen", run.dashboard.listen,
                          "Where the dashboard listens (implies --dashboard): loopback unless told otherwise; port 0: any free port")
          ->capture_default_str()
          ->check([](const std::string& text) {
            std::string error;
            return target::parse_listen_address(text, &error) ? std::string() : error;
          });
  run_cmd->add_option("--dashboard-linger", dashboard_linger,
                      "How long the dashboard keeps serving the final results after the run, e.g. 5m "
                      "(implies --dashboard; default: until Ctrl-C)")
      ->check(DurationValidator());

  ReportArgs report;
  auto* report_cmd = app.add_subcommand("report", "Make the HTML report of a saved results file (stampede run --out)");
  report_cmd->add_option("results", report.results, "A results file written by `stampede run --out`")
      ->required()
      ->check(CLI::ExistingFile);
  report_cmd->add_option("--html", report.html, "Write the report to this HTML file (one page that needs nothing else)")
      ->required();

  CompareArgs compare;
  auto* compare_cmd = app.add_subcommand("compare", "Compare two results files (--out): what got slower, what changed");
  compare_cmd->add_option("base", compare.base, "Results of the reference run, e.g. main.json")->required()->check(CLI::ExistingFile);
  compare_cmd->add_option("current", compare.current, "Results of the run under test, e.g. branch.json")->required()->check(CLI::ExistingFile);
  compare_cmd->add_option("--max-regression", compare.max_regression,
                          "Exit 1 when a p50/p95/p99 or the throughput got more than this many percent worse, or an error rate "
                          "(iterations, or a *.errors counter per iteration) rose by more than this many points")
      ->capture_default_str()->check(check_non_negative_number);
  compare_cmd->add_option("--format", compare.format, "text or markdown (for a pull request comment)")
      ->capture_default_str()->check(CLI::IsMember({"text", "markdown"}));

  TargetArgs target;
  auto* target_cmd = app.add_subcommand("target", "Serve the built-in target: a calibrated HTTP server that knows the exact latency it served");
  add_target_options(*target_cmd, target);

  app.add_subcommand("version", "Print the version, commit and build options");

  std::string demo_duration = "20s", demo_linger;
  DemoArgs demo;
  auto* demo_cmd = app.add_subcommand(
      "demo", "Start the built-in target and load test it over channels and LiveView, with the live dashboard "
              "and the target's own /metrics scraped into its Server section: Stampede working, no app needed");
  demo_cmd->add_option("--duration", demo_duration, "How long the demo load lasts")->capture_default_str()->check(DurationValidator());
  demo_cmd->add_option("--dashboard-listen", demo.dashboard_listen,
                       "Where the dashboard listens (when 127.0.0.1:4040 is taken, any free port)")
      ->capture_default_str();
  demo_cmd->add_option("--dashboard-linger", demo_linger,
                       "How long the dashboard keeps serving the results after the run (default: until Ctrl-C "
                       "in a terminal, 0 otherwise)")
      ->check(DurationValidator());

  NewArgs new_args;
  auto* new_cmd = app.add_subcommand("new", "Write a scenario to start from: loadtest/NAME.lua (--list shows the kinds)");
  add_new_options(*new_cmd, new_args);

  ConvertArgs convert;
  auto* convert_cmd = app.add_subcommand("convert", "Turn a HAR file recorded in the browser into a Lua scenario");
  add_convert_options(*convert_cmd, convert);

  RecordArgs record;
  auto* record_cmd = app.add_subcommand(
      "record", "Record a browser session through a proxy (browse it instead of the app) and write it as a Lua scenario");
  add_record_options(*record_cmd, record);

  bool help_reference = false;
  auto* help_cmd = app.add_subcommand("help", "Show this help; --reference prints every command and flag as Markdown");
  help_cmd->add_flag("--reference", help_reference, "Print the command line reference (docs/reference/cli.md) as Markdown");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 prints help to stdout (exit 0) and errors to stderr; usage errors are exit 2.
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }

  if (*run_cmd) {
    run.overrides.vus = vus;
    run.overrides.rate = rate;
    run.overrides.max_vus = max_vus;
    run.overrides.iterations = iterations;
    if (!duration.empty()) run.overrides.duration = duration_of(duration);
    if (!cpu_policy.empty()) run.cpu_policy = engine::parse_cpu_policy(cpu_policy);
    run.summary_all = summary == "all";
    if (dashboard_listen->count() > 0 || !dashboard_linger.empty()) run.dashboard.enabled = true;
    if (!dashboard_linger.empty()) run.dashboard.linger = duration_of(dashboard_linger);
    return run_command(run);
  }
  if (*report_cmd) return report_command(report);
  if (*compare_cmd) return compare_command(compare);
  if (*target_cmd) return target_command(target);
  if (*demo_cmd) {
    demo.duration = duration_of(demo_duration);
    if (!demo_linger.empty()) demo.linger = duration_of(demo_linger);
    return demo_command(demo);
  }
  if (*new_cmd) return new_command(new_args);
  if (*convert_cmd) return convert_command(convert);
  if (*record_cmd) return record_command(record);
  if (*help_cmd) return help_command(app, help_reference);
  if (app.got_subcommand("version")) {
    std::puts(version_details().c_str());
    return 0;
  }
  return 2;
}

}  // namespace stampede::cli
