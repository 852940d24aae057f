#pragma once
#include <optional>
#include <string>

#include "common/clock.hpp"

namespace stampede::cli {

struct DemoArgs {
  Nanos duration = 20 * kSecond;
  std::string dashboard_listen = "127.0.0.1:4040";
  std::optional<Nanos> linger;  // nullopt: until Ctrl-C in a terminal, 0 otherwise
};

// `stampede demo`: starts the built-in target in this process and load tests it with a
// channels-and-LiveView scenario (templates/demo.lua), the live dashboard on.
int demo_command(const DemoArgs& args);

}  // namespace stampede::cli
