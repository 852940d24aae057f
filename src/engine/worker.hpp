#pragma once
// One worker thread: an event loop, a Lua state with the scenario loaded, a pool of VUs and
// a MetricSink. The executor (closed or open model) decides when VUs run iterations; the
// worker owns everything they share: the clock, the per-second hand-off of metrics, and
// stopping.
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "clients/client_context.hpp"
#include "engine/asio_scheduler.hpp"
#include "engine/cpu_policy.hpp"
#include "engine/poll_gate.hpp"
#include "engine/executor.hpp"
#include "engine/idle_poll.hpp"
#include "engine/loop_probe.hpp"
#include "common/clock.hpp"
#include "common/load_shape.hpp"
#include "metrics/metric_sink.hpp"
#include "scenario/scenario_runtime.hpp"

namespace stampede::engine {

struct WorkerConfig {
  int index = 0;  // this worker's place among all workers of the run (threads x ranks)
  int count = 1;
  int first_vu_id = 1;  // VU ids are index + 1 + k * count: unique across workers
  LoadShape shape;
  scenario::RuntimeEnv env;
  std::vector<boost::asio::ip::address> local_addresses;
  // Applied to the worker's thread when the load starts; under poll, run_loop polls.
  CpuPolicy cpu_policy = CpuPolicy::normal;
  metrics::Registry* registry = nullptr;
  int local_index = 0;  // this worker's place among this process's workers
  // Receives each finished second; `last` is true for the final (partial) one. Called on
  // the worker thread.
  std::function<void(int local_index, metrics::Snapshot, bool last)> publish;
};

class Worker final : public ExecutorHost {
 public:
  explicit Worker(WorkerConfig config);
  ~Worker() override;

  // Creates the Lua state and loads the scenario (on the calling thread, which must be the
  // thread that calls run()). Throws scenario::ScenarioError.
  void load();
  // Runs the load from `start` (absolute monotonic ns, the same for every worker) until the
  // shape ends and the graceful stop is over, or stop() says so. Blocks.
  void run(Nanos start);
  // Thread-safe. graceful: stop starting iterations and let running ones finish within
  // graceful_stop; otherwise cut everything off now.
  void stop(bool graceful);

  const WorkerConfig& config() const { return config_; }
  boost::asio::io_context& io() { return io_; }
  // Under --cpu-policy poll or adaptive, the loop's polling (its time in empty polls counts
  // as idle, not busy: ThreadIdleProbe); null otherwise.
  const IdlePoll* idle_poll() const { return may_poll(config_.cpu_policy) ? &idle_poll_ : nullptr; }

  // --- ExecutorHost, for the executor (worker thread only) ---
  Scheduler& scheduler() override { return scheduler_; }
  const ExecutorSettings& settings() const override { return settings_; }
  Nanos start() const override { return start_; }
  scenario::Vu& new_vu() override;
  int vus_created() const override { return vus_created_; }
  void start_iteration(scenario::Vu& vu, IterationDone done) override;
  void interrupt(scenario::Vu& vu) override;
  void set_live_vus(long long n) override;
  // Timing from `timed_from`, errors grouped by message.
  void record_iteration(const scenario::IterationOutcome& outcome, Nanos timed_from, Nanos end) override;
  void record_dropped() override;
  void record_lag(Nanos lag) override;
  void executor_finished() override;
  std::unique_ptr<IdleProbe> make_idle_probe() override;

  // --- for the generator monitor (any thread) ---
  // The worker's time in empty polls so far (ns; 0 unless it polls), to take out of its CPU
  // time: polling with nothing to do is not work (engine/generator_monitor.hpp).
  Nanos idle_polled() const { return idle_polled_.load(std::memory_order_relaxed); }
  // The worker thread's id (after load(), which runs on it): where the kernel says how long
  // it waited for a CPU.
  pid_t tid() const { return tid_.load(std::memory_order_relaxed); }
  // Under --cpu-policy adaptive, how long the loop polled (PollGate); 0 otherwise.
  Nanos polled_for() const { return polled_for_.load(std::memory_order_relaxed); }

 private:
  void run_loop();  // io_.run() (or poll_loop()), surviving handlers that throw
  void poll_loop();  // --cpu-policy poll: io_.poll() until IdlePoll says sleep, then io_.run_one()
  void gated_loop();  // --cpu-policy adaptive: run_one() while PollGate says sleep, poll_once() otherwise
  void poll_once();  // one io_.poll(), and io_.run_one() when IdlePoll says sleep
  void arm_second_timer();
  void publish_second(bool last);
  void begin_stop(bool graceful);

  WorkerConfig config_;
  ExecutorSettings settings_;
  // One thread runs the loop and makes every I/O call on its sockets; other threads only
  // post to it (stop()). So the reactor's per-socket mutex, locked around every read, write
  // and readiness event, guards nothing here: UNSAFE_IO drops it and keeps the scheduler's
  // and the registration locks (Asio's concurrency hints).
  boost::asio::io_context io_{BOOST_ASIO_CONCURRENCY_HINT_UNSAFE_IO};
  SteadyClock clock_;
  AsioScheduler scheduler_{io_, clock_};
  metrics::MetricSink sink_;
  clients::ClientContext ctx_;
  std::unique_ptr<scenario::ScenarioRuntime> runtime_;
  std::unique_ptr<Executor> executor_;
  boost::asio::steady_timer second_timer_{io_};
  LoopProbe loop_probe_{io_, clock_, sink_};  // generator.loop_delay
  boost::asio::steady_timer end_timer_{io_};
  Nanos start_ = 0;
  std::int64_t second_ = 0;
  int vus_created_ = 0;
  bool stopping_ = false;
  bool finished_ = false;
  IdlePoll idle_poll_;
  std::atomic<Nanos> idle_polled_{0};  // idle_poll_.idle_polled(), for the monitor's thread
  PollGate poll_gate_;
  std::atomic<Nanos> polled_for_{0};  // poll_gate_.polled_for(), for the summary
  std::atomic<pid_t> tid_{0};

  metrics::MetricId m_iteration_ = 0, m_iterations_ = 0, m_errors_ = 0, m_dropped_ = 0, m_crashes_ = 0, m_vus_ = 0, m_lag_ = 0;
};

}  // namespace stampede::engine
