#pragma once
// Adds the distributed-run options (--nodes, --procs-per-node, --rank-timeout and the
// hidden --rank-dump) to `stampede run`.
#include <CLI/CLI.hpp>

#include "cli/cluster_args.hpp"

namespace stampede::cli {

void add_cluster_options(CLI::App& run, ClusterArgs& args);

}  // namespace stampede::cli
