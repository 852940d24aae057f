#include "distributed/run_peers.hpp"

#include <fmt/format.h>

#include <sstream>

#include "distributed/snapshot_wire.hpp"
#include "distributed/start_line.hpp"

namespace stampede::distributed {

std::optional<Nanos> CoordinatorPeers::agree_start(bool loaded_here, const std::string&) {
  // Rank 0 reports its own load error itself; the others learn that nothing runs.
  return coord_.agree_start(loaded_here);
}

void CoordinatorPeers::watch(boost::asio::io_context& io, metrics::Collector* merged, Nanos t0,
                             std::function<void(const std::string&)> lost, std::function<void(bool)>) {
  coord_.watch(io, *merged, registry_, t0, [lost = std::move(lost)](const LostRank& rank) {
    lost(fmt::format("rank {} lost {:.1f} s into the run: {}; stopping every rank, keeping what was measured",
                     rank.rank, static_cast<double>(rank.at) / kSecond, rank.why));
  });
}

void RankPeers::attach(metrics::Collector& own) {
  own.subscribe([this](const metrics::Snapshot& second) {
    std::string bytes = encode_snapshot(second, registry_);
    std::lock_guard lock(outbox_mutex_);
    outbox_.push_back(std::move(bytes));
  });
}

std::optional<Nanos> RankPeers::agree_start(bool loaded_here, const std::string& why_not) {
  if (!loaded_here) world_.send(0, MessageType::Error, why_not);
  const std::optional<Nanos> t0 = distributed::agree_start(world_, loaded_here);
  if (!t0) world_.wait_sends();  // nobody runs; rank 0 says why
  return t0;
}

std::deque<std::string> RankPeers::take_outbox() {
  std::lock_guard lock(outbox_mutex_);
  return std::exchange(outbox_, {});
}

void RankPeers::watch(boost::asio::io_context& io, metrics::Collector*, Nanos, std::function<void(const std::string&)> lost,
                      std::function<void(bool)> stop_here) {
  lost_ = std::move(lost);
  stop_here_ = std::move(stop_here);
  timer_ = std::make_unique<boost::asio::steady_timer>(io);
  arm();
}

void RankPeers::arm() {
  timer_->expires_after(std::chrono::nanoseconds(kRunPollEvery));
  timer_->async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;
    pump();
    arm();
  });
}

void RankPeers::pump() {
  for (std::string& bytes : take_outbox()) world_.send(0, MessageType::Second, bytes);
  world_.progress_sends();
  while (auto m = world_.poll()) {
    if (m->type != MessageType::Stop) continue;
    std::uint64_t sequence = 0;
    int graceful = 0;
    std::istringstream(m->payload) >> sequence >> graceful;
    if (sequence == sequence_) stop_here_(graceful != 0);  // an old stop is for an earlier scenario
  }
  // Rank 0 presumed dead (killed: its beats stopped): nobody is left to merge what this rank
  // measures, so its load stops at once, and the job ends when the run returns.
  if (!rank0_lost_ && (rank0_lost_ = world_.rank0_lost("ran its share of the load"))) lost_(*rank0_lost_);
}

void RankPeers::wait(boost::asio::io_context&) {
  if (timer_) timer_->cancel();
  if (rank0_lost_) return;  // a send to a dead rank 0 might never complete
  for (std::string& bytes : take_outbox()) world_.send(0, MessageType::Second, bytes);
  world_.send(0, MessageType::Done, "");
  world_.wait_sends();
}

}  // namespace stampede::distributed
