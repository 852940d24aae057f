#pragma once
// Rank 0's side of a distributed run: sends the plan, agrees on the start, then, while
// the run goes, receives every other rank's finished seconds and pushes them into the
// run's Collector (one collector slot per rank: slot 0 is rank 0's own workers, merged
// locally first), so progress line, summary, thresholds, dashboard and result files see
// one run. A rank that sends nothing for `rank_timeout` is lost: it is recorded (which
// rank, when), its slot is closed so the merge goes on without it, and `on_lost` is told
// (rank 0 then stops the run and keeps what was measured).
//
// Reception polls (MPI_Iprobe every kRunPollEvery on the run's main event loop) rather than
// blocking, so a dead or stalled rank can never hang rank 0. Before the run, the exchanges
// (plan, start) are bounded by the same `rank_timeout` (World::bound_waits, rank_wait.hpp):
// a rank that does not answer in time is recorded as lost (at 0 s) and the exchange throws.
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.hpp"
#include "distributed/mpi_world.hpp"
#include "distributed/rank_plan.hpp"
#include "distributed/rank_wait.hpp"
#include "metrics/collector.hpp"

namespace stampede::distributed {

struct LostRank {
  int rank = 0;
  Nanos at = 0;  // since the run's start
  std::string why;
  bool before_run = false;  // lost in the exchanges before the run (at is 0; the exception said why)
};

class Coordinator {
 public:
  Coordinator(World& world, Nanos rank_timeout);

  // Tells the other ranks there is nothing more to run (they leave), and the job's exit
  // status: when it is not 0 every rank then calls World::end_with. Not after a rank was
  // lost: a collective with a dead rank may never end, so the job is aborted instead.
  void release(int exit_status);

  int ranks() const { return world_.size(); }

  // Collective with every rank's RankWorker. Returns each rank's worker thread count.
  // Throws std::runtime_error naming the ranks that did not answer within the rank timeout
  // (they are in lost(); the job must then be aborted).
  std::vector<int> share_plan(RankPlan plan, int threads_here);
  // Collective. Returns the start on this machine's monotonic clock. Throws
  // std::runtime_error naming the ranks that could not load the scenario (nothing runs), or
  // that did not answer within the rank timeout (as share_plan).
  Nanos agree_start(bool loaded_here);

  // From the start `t0`: receive on `io` (the main thread's loop) until wait_for_ranks().
  void watch(boost::asio::io_context& io, metrics::Collector& merged, metrics::Registry& registry, Nanos t0,
             std::function<void(const LostRank&)> on_lost);
  // Asks every rank still running to stop (Ctrl-C, or a rank was lost).
  void stop_ranks(bool graceful);
  // Runs `io` until every other rank has finished or is lost.
  void wait_for_ranks(boost::asio::io_context& io);

  const std::vector<LostRank>& lost() const { return lost_; }
  // Failures the other ranks reported at the end (e.g. their scenario raised at load).
  const std::vector<std::string>& rank_errors() const { return rank_errors_; }

 private:
  enum class State { Running, Done, Lost };
  [[noreturn]] void give_up(const NoAnswer& e, const std::string& phase);
  void poll();
  void arm();
  void mark_lost(int rank, std::string why);
  bool settled() const;

  World& world_;
  Nanos rank_timeout_;
  std::uint64_t sequence_ = 0;
  std::string file_;  // the scenario being shared or started
  std::unique_ptr<boost::asio::steady_timer> timer_;
  metrics::Collector* merged_ = nullptr;
  metrics::Registry* registry_ = nullptr;
  Nanos t0_ = 0;
  std::function<void(const LostRank&)> on_lost_;
  std::vector<State> state_;
  std::optional<RankSilence> silence_;  // from watch()
  std::vector<LostRank> lost_;
  std::vector<std::string> rank_errors_;
};

}  // namespace stampede::distributed
