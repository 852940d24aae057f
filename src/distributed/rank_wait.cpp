#include "distributed/rank_wait.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace stampede::distributed {

AnswerWait::AnswerWait(std::vector<int> awaited, Nanos start, Nanos timeout)
    : awaited_(std::move(awaited)), deadline_(timeout > 0 ? start + timeout : 0) {}

void AnswerWait::answered(int rank) { std::erase(awaited_, rank); }

std::vector<int> AnswerWait::overdue(Nanos now) const {
  if (deadline_ == 0 || now <= deadline_) return {};
  return awaited_;
}

void Liveness::started(Nanos now) { last_ = std::max(last_, now); }

void Liveness::beat(Nanos now, Nanos timeout) {
  last_ = std::max(last_, now);
  timeout_ = timeout;
}

RankSilence::RankSilence(int ranks, Nanos since, Nanos timeout)
    : last_heard_(static_cast<std::size_t>(std::max(ranks, 1)), since),
      watched_(static_cast<std::size_t>(std::max(ranks, 1)), true),
      timeout_(timeout),
      last_check_(since) {
  watched_[0] = false;  // rank 0 is the watcher
}

void RankSilence::heard(int rank, Nanos at) {
  Nanos& last = last_heard_.at(static_cast<std::size_t>(rank));
  last = std::max(last, at);
}

void RankSilence::forget(int rank) { watched_.at(static_cast<std::size_t>(rank)) = false; }

std::vector<int> RankSilence::check(Nanos now) {
  if (now - last_check_ > timeout_ / 4) {
    for (Nanos& last : last_heard_) last = std::max(last, now);
  }
  last_check_ = std::max(last_check_, now);
  std::vector<int> silent;
  for (std::size_t r = 0; r < watched_.size(); ++r)
    if (watched_[r] && now - last_heard_[r] > timeout_) silent.push_back(static_cast<int>(r));
  return silent;
}

Nanos beat_interval(Nanos timeout) { return std::min(timeout / 4, kSecond); }

std::string join_ranks(const std::vector<int>& ranks) {
  std::string out;
  for (int r : ranks) out += (out.empty() ? "" : ", ") + std::to_string(r);
  return out;
}

NoAnswer::NoAnswer(std::vector<int> ranks_in, Nanos timeout_in)
    : std::runtime_error(fmt::format("rank{} {} did not answer within {:.1f} s", ranks_in.size() == 1 ? "" : "s",
                                     join_ranks(ranks_in), static_cast<double>(timeout_in) / kSecond)),
      ranks(std::move(ranks_in)),
      timeout(timeout_in) {}

}  // namespace stampede::distributed
