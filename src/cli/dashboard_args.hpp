#pragma once
// `stampede run --dashboard [--dashboard-listen ADDRESS] [--dashboard-linger DURATION]`
#include <optional>
#include <string>

#include "common/clock.hpp"

namespace stampede::cli {

struct DashboardArgs {
  bool enabled = false;
  // Loopback unless told otherwise: the dashboard has no authentication.
  std::string listen = "127.0.0.1:4040";
  // How long to keep serving the final results once the run is over; nullopt: until
  // Ctrl-C.
  std::optional<Nanos> linger;
};

}  // namespace stampede::cli
