#pragma once
// The engine's RunPeers over MPI, one per side of a distributed run:
//   - CoordinatorPeers, rank 0's view of the others: the Coordinator agrees the start,
//     merges their seconds into the run's collector, names a rank that stops reporting, and
//     stops and waits for them;
//   - RankPeers, every other rank's view of rank 0: its seconds go to rank 0 as they are
//     merged here, rank 0's stops stop this rank, and rank 0 going silent ends its load.
// The run itself (workers, collector, monitor) is the same engine::Run on every rank.
#include <boost/asio/steady_timer.hpp>

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "distributed/coordinator.hpp"
#include "distributed/mpi_world.hpp"
#include "engine/run.hpp"

namespace stampede::distributed {

class CoordinatorPeers final : public engine::RunPeers {
 public:
  CoordinatorPeers(Coordinator& coord, metrics::Registry& registry) : coord_(coord), registry_(registry) {}

  int ranks() const override { return coord_.ranks(); }
  bool merges() const override { return true; }
  std::optional<Nanos> agree_start(bool loaded_here, const std::string& why_not) override;
  void watch(boost::asio::io_context& io, metrics::Collector* merged, Nanos t0,
             std::function<void(const std::string&)> lost, std::function<void(bool)> stop_here) override;
  void stop(bool graceful) override { coord_.stop_ranks(graceful); }
  void wait(boost::asio::io_context& io) override { coord_.wait_for_ranks(io); }

 private:
  Coordinator& coord_;
  metrics::Registry& registry_;
};

class RankPeers final : public engine::RunPeers {
 public:
  // `sequence`: the plan's, so that a stop meant for an earlier scenario is ignored.
  RankPeers(World& world, metrics::Registry& registry, std::uint64_t sequence)
      : world_(world), registry_(registry), sequence_(sequence) {}

  int ranks() const override { return world_.size(); }
  bool merges() const override { return false; }
  void attach(metrics::Collector& own) override;
  std::optional<Nanos> agree_start(bool loaded_here, const std::string& why_not) override;
  void watch(boost::asio::io_context& io, metrics::Collector* merged, Nanos t0,
             std::function<void(const std::string&)> lost, std::function<void(bool)> stop_here) override;
  void stop(bool) override {}  // rank 0 stops the others
  void wait(boost::asio::io_context& io) override;

  // Why rank 0 was presumed dead while this rank ran (its load then stopped), if it was.
  const std::optional<std::string>& rank0_lost() const { return rank0_lost_; }

 private:
  void pump();  // every few ms on the run's loop: seconds out, stops in, rank 0 alive?
  void arm();
  std::deque<std::string> take_outbox();

  World& world_;
  metrics::Registry& registry_;
  std::uint64_t sequence_;
  // Seconds merged on worker threads wait here for the main thread, the only one that
  // talks MPI.
  std::mutex outbox_mutex_;
  std::deque<std::string> outbox_;
  std::unique_ptr<boost::asio::steady_timer> timer_;
  std::function<void(const std::string&)> lost_;
  std::function<void(bool)> stop_here_;
  std::optional<std::string> rank0_lost_;
};

}  // namespace stampede::distributed
