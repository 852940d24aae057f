#pragma once
// `stampede run` as the user typed it.
#include <optional>
#include <string>
#include <vector>

#include "cli/dashboard_args.hpp"
#include "cli/result_outputs.hpp"
#include "engine/load_plan.hpp"

namespace stampede::cli {

struct RunArgs {
  std::vector<std::string> files;
  engine::LoadOverrides overrides;
  int threads = 0;  // 0: one per core
  std::string local_addresses;
  bool quiet = false;     // no progress line
  bool insecure = false;  // skip TLS verification everywhere
  ResultOutputs outputs;  // result files and live exports
  DashboardArgs dashboard;
};

// Runs each scenario file in turn, then writes the result files. Returns the exit status:
// 0 ok, 1 a threshold failed, 2 usage or scenario error, or a result file not written.
int run_command(const RunArgs& args);

}  // namespace stampede::cli
