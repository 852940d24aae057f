#pragma once
// Runs one scenario on N worker threads (N = --threads). Every worker loads the scenario in
// its own Lua state first; only when all have loaded does the run start, at one instant
// shared by all of them.
#include <ctime>
#include <functional>
#include <future>
#include <memory>
#include <thread>
#include <vector>

#include "engine/generator_monitor.hpp"
#include "engine/worker.hpp"

namespace stampede::engine {

struct RunPlan {
  LoadShape shape;
  int threads = 1;
  int first_segment = 0;   // with several processes (MPI ranks): this process's first worker index
  int total_segments = 0;  // all workers of the run; 0 = threads
  scenario::RuntimeEnv env;
  std::vector<boost::asio::ip::address> local_addresses;
  CpuPolicy cpu_policy = CpuPolicy::normal;  // --cpu-policy, for the worker threads
};

class ScenarioRun {
 public:
  ScenarioRun(RunPlan plan, metrics::Registry& registry, std::function<void(int, metrics::Snapshot, bool)> publish);
  ~ScenarioRun();

  // Starts the threads and waits until each has loaded the scenario. Throws the first
  // worker's error (scenario::ScenarioError) after stopping the others.
  void load();
  // Starts the load at `start` (absolute monotonic ns). Does not block.
  void start(Nanos start);
  // Thread-safe.
  void stop(bool graceful);
  // Blocks until every worker has finished.
  void join();
  // True when every worker has finished; `on_finished` (if set before start) is called once
  // from the last worker's thread.
  bool finished() const { return running_ == 0; }
  // The CPU clock of each worker thread (pthread_getcpuclockid) and its time in empty polls,
  // after load(): how busy each one is, read from another thread (engine/generator_monitor.hpp).
  std::vector<WorkerCpu> worker_cpus();
  // Under --cpu-policy adaptive, the longest any worker polled (PollGate): for the summary.
  Nanos longest_polled() const;
  std::function<void()> on_finished;

 private:
  RunPlan plan_;
  metrics::Registry& registry_;
  std::function<void(int, metrics::Snapshot, bool)> publish_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<std::thread> threads_;
  std::promise<Nanos> start_promise_;
  std::shared_future<Nanos> start_time_;
  std::atomic<int> running_{0};
  bool start_set_ = false;
};

}  // namespace stampede::engine
