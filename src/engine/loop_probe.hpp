#pragma once
// Measures how late a worker's event loop runs: a timer due every 20 ms records how long
// after its due time it actually ran, as generator.loop_delay. A loop busy with Lua, parsing
// or a flood of completions runs every timer late, and so every arrival and every reply
// read: that lateness ends up in the server's figures unless someone measures it.
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include "common/clock.hpp"
#include "metrics/metric_sink.hpp"

namespace stampede::engine {

class LoopProbe {
 public:
  static constexpr Nanos kPeriod = 20 * kMilli;

  LoopProbe(boost::asio::io_context& io, const Clock& clock, metrics::MetricSink& sink);
  void start(Nanos first_due);  // absolute monotonic ns
  void stop();

 private:
  void arm();
  boost::asio::steady_timer timer_;
  const Clock& clock_;
  metrics::MetricSink& sink_;
  metrics::MetricId id_;
  Nanos due_ = 0;
  bool stopped_ = false;
};

}  // namespace stampede::engine
