#pragma once
// How idle a worker's thread was since the last ask, in [0, 1]: ThreadIdleProbe on a real
// worker, a set share in the executors' tests.
#include "common/clock.hpp"

namespace stampede::engine {

class IdleProbe {
 public:
  virtual ~IdleProbe() = default;
  virtual double idle_share_since_last_ask(Nanos now) = 0;
};

}  // namespace stampede::engine
