#include "distributed/start_line.hpp"

#include <chrono>

namespace stampede::distributed {

Nanos wall_now() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Nanos monotonic_from_wall(Nanos wall) {
  // Read both clocks back to back; what separates the two reads (well under a µs) is the error.
  const Nanos mono = SteadyClock::monotonic_now();
  return mono + (wall - wall_now());
}

std::optional<Nanos> agree_start(World& world, bool loaded_here, std::vector<int>* failed) {
  const std::vector<int> loaded = world.all_gather(loaded_here ? 1 : 0);
  bool all = true;
  for (std::size_t r = 0; r < loaded.size(); ++r) {
    if (loaded[r] != 0) continue;
    all = false;
    if (failed != nullptr) failed->push_back(static_cast<int>(r));
  }
  const Nanos start = world.broadcast(all && world.rank() == 0 ? wall_now() + kStartLead : 0);
  if (start == 0) return std::nullopt;
  return monotonic_from_wall(start);
}

}  // namespace stampede::distributed
