#pragma once
// Executors decide when iterations run: one per load model (closed_model.cpp, open_model.cpp).
// What they need from the worker that runs them is ExecutorHost: time (a Scheduler), VUs and
// their iterations, and where the figures go. The Worker implements it over its Asio loop and
// Lua runtime; the tests implement it with a simulated clock and iterations that take a set
// time (tests/unit/engine/executor_fixture.hpp), so each model is tested to the nanosecond.
#include <functional>
#include <memory>

#include "common/clock.hpp"
#include "common/load_shape.hpp"
#include "engine/idle_probe.hpp"
#include "engine/scheduler.hpp"
#include "scenario/vu.hpp"

namespace stampede::engine {

struct ExecutorSettings {
  LoadShape shape;
  int index = 0;  // this worker's place among all workers of the run (threads x ranks)
  int count = 1;
  bool polling = false;  // the worker's loop polls (--cpu-policy poll) instead of sleeping
};

using IterationDone = std::function<void(scenario::Vu&, const scenario::IterationOutcome&)>;

class ExecutorHost {
 public:
  virtual ~ExecutorHost() = default;
  virtual Scheduler& scheduler() = 0;
  virtual const ExecutorSettings& settings() const = 0;
  virtual Nanos start() const = 0;  // the run's start, absolute ns on the scheduler's clock

  // A new VU with a run-wide unique id; how many this worker made.
  virtual scenario::Vu& new_vu() = 0;
  virtual int vus_created() const = 0;
  // Starts the VU's next iteration; `done` is called when it ends (not after interrupt()).
  virtual void start_iteration(scenario::Vu& vu, IterationDone done) = 0;
  virtual void interrupt(scenario::Vu& vu) = 0;

  virtual void set_live_vus(long long n) = 0;
  // The end of an iteration: timed from `timed_from` (its scheduled start, in the open model).
  virtual void record_iteration(const scenario::IterationOutcome& outcome, Nanos timed_from, Nanos end) = 0;
  virtual void record_dropped() = 0;
  virtual void record_lag(Nanos lag) = 0;
  // Nothing runs any more after the end.
  virtual void executor_finished() = 0;
  // A probe of this worker's thread, asked on it (each probe answers for the time since
  // its own last ask).
  virtual std::unique_ptr<IdleProbe> make_idle_probe() = 0;
};

class Executor {
 public:
  virtual ~Executor() = default;
  virtual void begin() = 0;  // at the run's start time
  // Stop starting iterations. graceful: running ones may finish within graceful_stop.
  virtual void end(bool graceful) = 0;
};

std::unique_ptr<Executor> make_closed_model(ExecutorHost& host);
std::unique_ptr<Executor> make_open_model(ExecutorHost& host);

}  // namespace stampede::engine
