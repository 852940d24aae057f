#pragma once
// `stampede run` spread over several processes (MPI ranks): rank 0 coordinates and owns
// every output, the other ranks run their share and send their seconds to it
// (docs/design/013-distributed-runs-over-mpi.md).
#include <optional>

#include "cli/run_args.hpp"

namespace stampede::cli {

// The exit status when this run is distributed: started by an MPI launcher (mpirun sets
// OMPI_COMM_WORLD_SIZE), or asked to start one (--nodes). Nothing for a plain run.
std::optional<int> run_distributed_if_asked(const RunArgs& args);

}  // namespace stampede::cli
