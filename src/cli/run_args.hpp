#pragma once
// `stampede run` as the user typed it.
#include <optional>
#include <string>
#include <vector>

#include "cli/cluster_args.hpp"
#include "cli/dashboard_args.hpp"
#include "cli/find_limit_args.hpp"
#include "cli/result_outputs.hpp"
#include "engine/cpu_policy.hpp"
#include "engine/load_plan.hpp"

namespace stampede::cli {

struct RunArgs {
  std::vector<std::string> files;
  engine::LoadOverrides overrides;
  int threads = 0;  // 0: chosen for this machine (engine/generator_setup.hpp)
  // --cpu-policy as asked; none: chosen with the thread count for this machine
  // (engine/generator_setup.hpp), or normal under mpirun.
  std::optional<engine::CpuPolicy> cpu_policy;
  std::string local_addresses;
  bool quiet = false;     // no progress line
  bool summary_all = false;  // --summary all: every metric in the summary, those with nothing recorded too
  bool insecure = false;  // skip TLS verification everywhere
  ResultOutputs outputs;  // result files and live exports
  DashboardArgs dashboard;
  FindLimitArgs find_limit;  // --find-limit and its steps (cli/find_limit_args.hpp)
  bool parallel = false;     // --parallel: every file at once rather than one after the other
  ClusterArgs cluster;       // --nodes, --procs-per-node, --rank-timeout (cli/cluster_args.hpp)
};

// Runs each scenario file in turn, then writes the result files. Returns the exit status:
// 0 ok, 1 a threshold failed, 2 usage or scenario error, or a result file not written.
int run_command(const RunArgs& args);

}  // namespace stampede::cli
