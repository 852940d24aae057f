#pragma once
// Measures how late a worker's event loop runs: a timer due every 100 ms records how long
// after its due time it actually ran, as generator.loop_delay. A loop busy with Lua, parsing
// or a flood of completions runs every timer late, and so every arrival and every reply
// read: that lateness ends up in the server's figures unless someone measures it.
//
// Why 100 ms, on the worker's grid (multiples of 100 ms past its phase, clients::grid_phase):
// a worker holding idle users wakes for little else, and each wake-up costs tens of µs on the
// VMs we run on. At 20 ms the probe was most of an idle process's CPU (50 wake-ups a second:
// 0.3% of a core per process, ~16% of a core for the 53 processes a million users need;
// docs/design/048). On the grid it also falls on the same instants as the heartbeats' coarse
// timers (clients/worker_timers: coarse_deadline), so both are served by one wake-up. A stall
// is still measured whole (the next probe runs late by all of it); only hiccups shorter than
// the period can fall between two probes, as they could between 20 ms ones.
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include "clients/worker_timers.hpp"
#include "common/clock.hpp"
#include "metrics/metric_sink.hpp"

namespace stampede::engine {

class LoopProbe {
 public:
  static constexpr Nanos kPeriod = clients::kGridStep;
  // The first probe's due time: the worker's first grid point at or after `not_before`.
  static Nanos first_due(Nanos not_before, Nanos phase = 0) { return clients::grid_point_at_or_after(not_before, phase); }

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
