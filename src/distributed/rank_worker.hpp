#pragma once
// The life of every rank but 0: wait for rank 0's plan, run this rank's share of the load
// on its own worker threads, send each merged second to rank 0, report the end, and do
// it again until rank 0 says there is nothing more. Prints nothing: rank 0 owns every
// output (an error is printed too, prefixed with the rank, because it may be all a user
// gets when the launch itself is broken).
#include <string>

#include "common/clock.hpp"
#include "distributed/mpi_world.hpp"
#include "engine/cpu_policy.hpp"

namespace stampede::distributed {

struct RankWorkerOptions {
  int threads = 0;        // --threads (0: one per core)
  std::string dump_dir;   // --rank-dump: write this rank's own results there
  engine::CpuPolicy cpu_policy = engine::CpuPolicy::normal;  // --cpu-policy
};

// Returns the exit status: 0, or 2 when this rank could not run (rank 0 reports why).
int serve_rank(World& world, const RankWorkerOptions& options);

}  // namespace stampede::distributed
