#pragma once
// The outputs that follow a run while it goes, for every scenario of one `stampede run`:
// the per-second stream (--out-stream, one JSON line per merged second, flushed at once
// so `tail -f` sees it), the Prometheus endpoint (--prometheus), the dashboard's seconds
// (--dashboard; the dashboard itself is opened by run_command), and the results files
// (--out, --html) kept current in case the run never gets to write them at its end.
#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "cli/prometheus_server.hpp"
#include "cli/result_outputs.hpp"
#include "cli/results_checkpoint.hpp"
#include "dashboard/live_dashboard.hpp"
#include "report/run_result.hpp"

namespace stampede::cli {

class LiveExports {
 public:
  // Opens the stream file (truncating it) and binds the endpoint. Throws
  // std::runtime_error with a sentence when either cannot be had: better to say so
  // before the load starts than to find an empty file after it.
  explicit LiveExports(const ResultOutputs& outputs);
  ~LiveExports();
  LiveExports(const LiveExports&) = delete;
  LiveExports& operator=(const LiveExports&) = delete;

  bool streams() const { return stream_ != nullptr; }
  bool serves() const { return server_ != nullptr; }
  std::uint16_t prometheus_port() const;  // 0 when not serving

  // The dashboard (--dashboard), when there is one: it gets every second too.
  void set_dashboard(dashboard::LiveDashboard* dashboard) { dashboard_ = dashboard; }
  dashboard::LiveDashboard* dashboard() const { return dashboard_; }

  // --out and --html while the run goes (cli/results_checkpoint.hpp).
  ResultsCheckpoint& checkpoint() { return checkpoint_; }

  // Appends the second to the stream (and hands it to the dashboard). Returns a message
  // the first time writing fails (the stream then stops; the run goes on).
  std::optional<std::string> second(const std::string& scenario, const report::SecondResult& second);
  // The scenario's figures over the run so far, with its latest second as the last entry
  // of its timeline: the endpoint serves them from now on (a scenario of the same name
  // run before is replaced).
  void progress(report::ScenarioResult so_far);

 private:
  std::string stream_path_;
  std::FILE* stream_ = nullptr;
  std::unique_ptr<PrometheusServer> server_;
  dashboard::LiveDashboard* dashboard_ = nullptr;
  std::mutex mutex_;
  std::vector<report::ScenarioResult> scenarios_;  // in the order they started
  ResultsCheckpoint checkpoint_;
};

}  // namespace stampede::cli
