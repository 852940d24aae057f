#include "distributed/coordinator.hpp"

#include <fmt/format.h>

#include <chrono>
#include <stdexcept>
#include <thread>

#include "distributed/rank_wait.hpp"
#include "distributed/snapshot_wire.hpp"
#include "distributed/start_line.hpp"

namespace stampede::distributed {

Coordinator::Coordinator(World& world, Nanos rank_timeout) : world_(world), rank_timeout_(rank_timeout) {
  world_.bound_waits(rank_timeout_);
}

void Coordinator::give_up(const NoAnswer& e, const std::string& phase) {
  const std::string why = fmt::format("no answer within {:.1f} s {}", static_cast<double>(e.timeout) / kSecond, phase);
  for (int r : e.ranks) lost_.push_back({r, 0, why, true});
  throw std::runtime_error(fmt::format("{} {}; {} may have died (nothing ran{})", e.what(), phase,
                                       e.ranks.size() == 1 ? "it" : "they",
                                       sequence_ > 1 ? " from this file on" : ""));
}

void Coordinator::release(int exit_status) {
  RankPlan done;
  done.done = true;
  done.exit_status = exit_status;
  std::string bytes = encode_plan(done);
  world_.broadcast(bytes);
}

std::vector<int> Coordinator::share_plan(RankPlan plan, int threads_here) {
  plan.sequence = ++sequence_;
  file_ = plan.file;
  std::string bytes = encode_plan(plan);
  world_.broadcast(bytes);
  try {
    return world_.all_gather(threads_here);
  } catch (const NoAnswer& e) {
    give_up(e, fmt::format("when rank 0 sent the plan for {} (after its setup())", file_));
  }
}

Nanos Coordinator::agree_start(bool loaded_here) {
  std::vector<int> failed;
  std::optional<Nanos> start;
  try {
    start = distributed::agree_start(world_, loaded_here, &failed);
  } catch (const NoAnswer& e) {
    give_up(e, fmt::format("while every rank loaded {}", file_));
  }
  if (start) return *start;
  // The ranks that failed sent their reason before the collective: collect it (it is
  // already here, or on its way).
  std::string reasons;
  const Nanos give_up = SteadyClock::monotonic_now() + 5 * kSecond;
  std::size_t heard = 0;
  const std::size_t remote_failures = failed.size() - (loaded_here ? 0 : 1);
  while (heard < remote_failures && SteadyClock::monotonic_now() < give_up) {
    if (auto m = world_.poll()) {
      if (m->type == MessageType::Error) {
        reasons += fmt::format("\n  rank {}: {}", m->from, m->payload);
        ++heard;
      }
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  throw std::runtime_error(fmt::format("rank(s) {} could not load the scenario; nothing ran{}", join_ranks(failed),
                                       reasons));
}

void Coordinator::watch(boost::asio::io_context& io, metrics::Collector& merged, metrics::Registry& registry, Nanos t0,
                        std::function<void(const LostRank&)> on_lost) {
  merged_ = &merged;
  registry_ = &registry;
  t0_ = t0;
  on_lost_ = std::move(on_lost);
  state_.assign(static_cast<std::size_t>(world_.size()), State::Running);
  state_[0] = State::Done;  // rank 0's own workers are not watched from here
  // Nothing is due from a rank before its first second ends.
  silence_.emplace(world_.size(), t0 + kSecond, rank_timeout_);
  timer_ = std::make_unique<boost::asio::steady_timer>(io);
  arm();
}

void Coordinator::arm() {
  timer_->expires_after(std::chrono::nanoseconds(kRunPollEvery));
  timer_->async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;
    poll();
    if (!settled()) arm();
  });
}

void Coordinator::poll() {
  while (auto m = world_.poll()) {
    const auto r = static_cast<std::size_t>(m->from);
    if (r >= state_.size() || state_[r] != State::Running) continue;  // a lost rank's stragglers
    // Heard now, not when this drain began: it can last minutes on starved cores (RankSilence).
    silence_->heard(m->from, SteadyClock::monotonic_now());
    switch (m->type) {
      case MessageType::Second:
        try {
          merged_->push(r, decode_snapshot(m->payload, *registry_));
        } catch (const std::invalid_argument& e) {
          mark_lost(m->from, e.what());
        }
        break;
      case MessageType::Done:
        if (!m->payload.empty()) rank_errors_.push_back(fmt::format("rank {}: {}", m->from, m->payload));
        state_[r] = State::Done;
        silence_->forget(m->from);
        merged_->finish(r);
        break;
      case MessageType::Error:
        rank_errors_.push_back(fmt::format("rank {}: {}", m->from, m->payload));
        break;
      case MessageType::Stop:
        break;  // only rank 0 sends these
    }
  }
  const Nanos now = SteadyClock::monotonic_now();
  for (int r : silence_->check(now)) {
    mark_lost(r, fmt::format("sent nothing for {:.1f} s (died or stalled)",
                             static_cast<double>(silence_->silence(r, now)) / kSecond));
  }
}

void Coordinator::mark_lost(int rank, std::string why) {
  const auto r = static_cast<std::size_t>(rank);
  state_[r] = State::Lost;
  silence_->forget(rank);
  LostRank lost{rank, SteadyClock::monotonic_now() - t0_, std::move(why), false};
  lost_.push_back(lost);
  merged_->finish(r);  // the merge goes on without it
  if (on_lost_) on_lost_(lost);
}

void Coordinator::stop_ranks(bool graceful) {
  const std::string payload = fmt::format("{} {}", sequence_, graceful ? 1 : 0);
  for (std::size_t r = 1; r < state_.size(); ++r)
    if (state_[r] == State::Running) world_.send(static_cast<int>(r), MessageType::Stop, payload);
}

bool Coordinator::settled() const {
  for (State s : state_)
    if (s == State::Running) return false;
  return true;
}

void Coordinator::wait_for_ranks(boost::asio::io_context& io) {
  if (!timer_) return;
  io.restart();
  while (!settled() && io.run_one() > 0) {
  }
  timer_.reset();
  world_.progress_sends();
}

}  // namespace stampede::distributed
