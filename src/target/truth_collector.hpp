#pragma once
// Answers "what did the workers hold?" without a lock on the hot path: each worker's held
// times are copied by a job posted to that worker's own loop, and merged and sorted on a
// control thread of their own, so a /__truth over millions of requests does not stall a
// worker for the length of a sort.
#include <boost/asio/executor_work_guard.hpp>
#include <functional>
#include <thread>
#include <vector>

#include "target/asio_types.hpp"
#include "target/truth.hpp"

namespace stampede::target {

class Worker;

class TruthCollector {
 public:
  explicit TruthCollector(std::vector<Worker*> workers);
  ~TruthCollector();
  TruthCollector(const TruthCollector&) = delete;
  TruthCollector& operator=(const TruthCollector&) = delete;

  // Gathers every worker's held times and calls `done` on `reply_to`'s thread.
  void collect(asio::io_context& reply_to, std::function<void(const Truth&)> done);
  // Clears every worker's record, then calls `done` on `reply_to`'s thread.
  void reset(asio::io_context& reply_to, std::function<void()> done);

  // Blocking forms for threads outside the workers (never call them from a worker's loop).
  Truth collect_now();
  void reset_now();

  // Ends the control thread; collect()/reset() in progress are dropped.
  void stop();

 private:
  // Runs `job` on every worker's loop; `job`'s result reaches `merge` on the control
  // thread, and `finish` runs there after the last one.
  template <typename Job, typename Merge, typename Finish>
  void broadcast(Job job, Merge merge, Finish finish);

  std::vector<Worker*> workers_;
  asio::io_context control_;
  asio::executor_work_guard<Executor> keep_running_;
  std::thread thread_;
};

}  // namespace stampede::target
