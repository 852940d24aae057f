#pragma once
// `stampede run`'s options for runs spread over several processes (MPI ranks).
#include <string>
#include <vector>

#include "common/clock.hpp"

namespace stampede::cli {

struct ClusterArgs {
  std::string nodes;       // --nodes host1,host2: re-run under mpirun on these hosts
  int procs_per_node = 1;  // --procs-per-node
  Nanos rank_timeout = 10 * kSecond;  // --rank-timeout: a rank silent this long is lost
  std::string rank_dump;   // --rank-dump DIR (hidden, for tests): every rank writes its own figures
  std::vector<std::string> argv;  // the command line as typed, to re-run under mpirun
};

}  // namespace stampede::cli
