#pragma once
// What `stampede run` runs its load on when the command line does not say: how many worker
// threads and which CPU policy, from this machine's cores and where the scenario's targets
// are. The reason is one clause, for the summary's generator line (docs/design/047).
//
// Measured on 2 cores with the target on the same machine (bench/max-rate, RESULTS sessions
// 23 and 30): two sleeping workers and the target fight over the two cores and the open
// model's lateness explodes, where one worker, the other core left to the target, stays on
// time further. An adaptive worker rather than a polling one: a polling worker holds its
// core at any rate with an event every millisecond, which a local BEAM needs; an adaptive
// one polls only while its own work takes most of its core (docs/design/054). With the
// target in a network namespace of the same machine it is the same two cores: the same
// choice. Above two cores nothing was measured here: one worker per core, as before, and
// half of them when the target is on this machine (it needs cores too). One core: sleeping.
#include <optional>
#include <string>
#include <vector>

#include "engine/cpu_policy.hpp"

namespace stampede::engine {

// Where the scenario's targets are, as far as its text tells.
enum class TargetPlace { this_machine, elsewhere, unknown };

struct MachineView {
  unsigned cores = 1;
  TargetPlace target = TargetPlace::unknown;
  std::string target_name;  // "127.0.0.1:4000", for the reason (empty: unknown)
};

struct GeneratorSetup {
  int threads = 1;
  CpuPolicy policy = CpuPolicy::normal;
  std::string why;  // "2 cores, the target 127.0.0.1:4000 on this machine: the other core is left to it"
};

// `threads_asked` 0 and no `policy_asked`: chosen for `machine`; otherwise as asked (a
// policy without --threads takes that policy's default count, as it always did).
GeneratorSetup choose_generator_setup(int threads_asked, std::optional<CpuPolicy> policy_asked,
                                      const MachineView& machine);

// The hosts (with their ports) of the http(s):// and ws(s):// URLs in `text` (a scenario's
// source, and the values of the environment variables it reads with os.getenv), in order,
// each once: "127.0.0.1:4000", "localhost", "[::1]:4443".
std::vector<std::string> url_hosts(const std::string& text);
// The environment variables `text` reads with os.getenv("NAME").
std::vector<std::string> getenv_names(const std::string& text);

}  // namespace stampede::engine
