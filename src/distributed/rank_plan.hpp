#pragma once
// What rank 0 tells every other rank before a scenario starts: the load (after CLI
// overrides, so every rank splits the same numbers), setup()'s result, and the scenario
// itself. Sent as JSON: once per scenario, small, and readable when debugging a launch.
#include <cstdint>
#include <string>
#include <vector>

#include "common/load_shape.hpp"

namespace stampede::distributed {

struct RankPlan {
  bool done = false;           // no more scenarios: the other ranks leave
  // With done: the job's exit status. Not 0: rank 0 will end the job with MPI_Abort(status),
  // so the others must not finalize (World::end_with).
  int exit_status = 0;
  std::uint64_t sequence = 0;  // which scenario of the command this is (1, 2, ...)
  std::string file;            // the scenario file as rank 0 was given it
  std::string source;          // its contents, for ranks on machines without the file
  LoadShape shape;
  std::string setup_data;       // what setup() returned, as JSON text ("" without setup)
  bool insecure = false;
  std::vector<std::string> local_addresses;  // source addresses, one each (none: the kernel picks)
};

std::string encode_plan(const RankPlan& plan);
RankPlan decode_plan(std::string_view text);  // throws std::invalid_argument

}  // namespace stampede::distributed
