#include "cli/cluster_options.hpp"

#include "proto/duration.hpp"

namespace stampede::cli {

void add_cluster_options(CLI::App& run, ClusterArgs& args) {
  run.add_option("--nodes", args.nodes,
                 "Spread the run over these hosts with MPI, e.g. host1,host2 (runs `mpirun -H host1:N,host2:N "
                 "stampede run ...`; needs OpenMPI and this binary at the same path on every host)");
  run.add_option("--procs-per-node", args.procs_per_node, "With --nodes: processes (MPI ranks) per host")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  run.add_option_function<std::string>(
         "--rank-timeout",
         [&args](const std::string& text) { args.rank_timeout = *proto::parse_duration(text); },
         "In a distributed run: a rank that sends nothing for this long is lost (its results so far are kept), "
         "default 10s")
      ->check([](const std::string& text) {
        std::string error;
        const auto d = proto::parse_duration(text, &error);
        if (!d) return error;
        return *d >= 500 * kMilli ? std::string() : std::string("--rank-timeout must be at least 500ms");
      });
  // For tests: every rank writes its own summary (histograms exactly) to DIR/rank-N.json,
  // and rank 0 the merged one to DIR/merged.json.
  run.add_option("--rank-dump", args.rank_dump)->group("");
}

}  // namespace stampede::cli
