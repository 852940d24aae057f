#include "clients/phoenix_reconnect.hpp"

#include <array>

namespace stampede::clients {

Nanos phoenix_reconnect_after(unsigned tries) {
  // [10, 50, 100, 150, 200, 250, 500, 1000, 2000][tries - 1] || 5000
  static constexpr std::array<Nanos, 9> kSteps{10, 50, 100, 150, 200, 250, 500, 1000, 2000};
  if (tries == 0 || tries > kSteps.size()) return 5000 * kMilli;
  return kSteps[tries - 1] * kMilli;
}

Nanos phoenix_rejoin_after(unsigned tries) {
  // [1000, 2000, 5000][tries - 1] || 10000
  static constexpr std::array<Nanos, 3> kSteps{1000, 2000, 5000};
  if (tries == 0 || tries > kSteps.size()) return 10'000 * kMilli;
  return kSteps[tries - 1] * kMilli;
}

}  // namespace stampede::clients
