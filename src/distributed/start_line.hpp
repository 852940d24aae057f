#pragma once
// Every rank starts the load at the same instant. Monotonic clocks of two machines share
// no origin, so rank 0 picks the start on the wall clock (a moment ahead, so the message
// gets there first) and each rank turns it into its own monotonic time. On one machine
// this is exact; across machines it is as good as their clock sync (NTP: ~1 ms).
#include <optional>
#include <vector>

#include "common/clock.hpp"
#include "distributed/mpi_world.hpp"

namespace stampede::distributed {

// How far ahead of now rank 0 sets the start.
inline constexpr Nanos kStartLead = 250 * kMilli;

// Collective. `loaded_here`: this rank loaded the scenario. Returns the start on this
// rank's monotonic clock, or nothing when some rank did not load (no rank runs then);
// on rank 0, `failed` (optional) receives those ranks.
std::optional<Nanos> agree_start(World& world, bool loaded_here, std::vector<int>* failed = nullptr);

// The wall-clock instant `wall` (ns since the epoch) on this machine's monotonic clock.
Nanos monotonic_from_wall(Nanos wall);
Nanos wall_now();

}  // namespace stampede::distributed
