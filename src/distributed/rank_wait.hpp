#pragma once
// The waits before and between runs (the plan, thread counts, "loaded", the start), bounded
// so that a rank that died cannot hang the job (docs/design/026-bounded-waits-before-the-run.md).
//
// Rank 0 gives every other rank `--rank-timeout` to answer: the others only answer what
// rank 0 just sent, after work rank 0 has done too (loading the scenario), so a live rank
// answers well within it. The other ranks wait for rank 0 without a bound of their own,
// because rank 0 may legitimately be busy for longer (setup() runs on rank 0 alone): rank 0
// beats instead, a small message every beat_interval() from a thread of its own, and a rank
// gives up on rank 0 only when nothing at all came from it for rank 0's timeout (which the
// beats carry). Pure logic on the caller's clock; mpi_world.cpp does the polling.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/clock.hpp"

namespace stampede::distributed {

// The exit status of a job that lost a rank (the same as cli's kRankLost).
inline constexpr int kRankLostStatus = 3;

// Rank 0 waiting for one answer from each of `awaited`.
class AnswerWait {
 public:
  // `timeout` 0: no bound.
  AnswerWait(std::vector<int> awaited, Nanos start, Nanos timeout);
  void answered(int rank);
  bool complete() const { return awaited_.empty(); }
  const std::vector<int>& awaited() const { return awaited_; }
  // Once the time is up: the ranks that have not answered (empty before, or when all have).
  std::vector<int> overdue(Nanos now) const;

 private:
  std::vector<int> awaited_;
  Nanos deadline_;
};

// Another rank's view of rank 0 while it waits for it.
class Liveness {
 public:
  // A wait begins: silence is counted from here at the earliest (a beat drained late, after
  // a run, says nothing about when it was sent).
  void started(Nanos now);
  // A beat from rank 0, carrying its timeout.
  void beat(Nanos now, Nanos timeout);
  // No bound until the first beat: before it, rank 0 is still starting.
  bool presumed_dead(Nanos now) const { return timeout_ > 0 && silence(now) > timeout_; }
  Nanos silence(Nanos now) const { return now - last_; }
  Nanos timeout() const { return timeout_; }

 private:
  Nanos last_ = 0;
  Nanos timeout_ = 0;
};

// Rank 0's view of the other ranks during a run: each sends its seconds, and one that sends
// nothing for `timeout` is lost (died or stalled). Two rules keep rank 0's own lateness from
// being blamed on them (a million-user run lost every rank at once this way, bench/RESULTS.md
// session 39):
//   - a rank is heard when its message is received, on a clock read per message: rank 0,
//     short of CPU, once took 311 s to drain its backlog, and stamping every message with
//     the time the drain began made every rank look silent for those 311 s;
//   - silence is counted only while rank 0 watches: a check that comes more than a quarter
//     of the timeout after the one before (rank 0's loop itself stalled) restarts every
//     rank's count, since their messages may still be on their way.
// Pure logic on the caller's clock.
class RankSilence {
 public:
  // Ranks 1 to `ranks` - 1 are watched; nothing is due from them before `since`.
  RankSilence(int ranks, Nanos since, Nanos timeout);
  void heard(int rank, Nanos at);
  // Done or lost: no longer watched.
  void forget(int rank);
  // At `now`, the watched ranks silent for longer than the timeout, in rank order.
  std::vector<int> check(Nanos now);
  Nanos silence(int rank, Nanos now) const { return now - last_heard_.at(static_cast<std::size_t>(rank)); }

 private:
  std::vector<Nanos> last_heard_;
  std::vector<bool> watched_;
  Nanos timeout_;
  Nanos last_check_;
};

// How long a rank sleeps between two polls of a wait: 200 µs at first (the answer is usually
// on its way), twice as long after each poll that found nothing, at most 10 ms; back to
// 200 µs once something came. Ranks waiting for rank 0's setup() or for the slowest rank
// to load sleep instead of waking 5,000 times a second each: 50 ranks polling every 200 µs
// wake 250,000 times a second between them, on 2 cores, before the run even begins.
class PollBackoff {
 public:
  static constexpr Nanos kFirst = 200 * kMicro;
  static constexpr Nanos kLongest = 10 * kMilli;
  // The sleep before the next poll, given whether this one found anything.
  Nanos next(bool heard) {
    sleep_ = heard ? kFirst : std::min(sleep_ * 2, kLongest);
    return sleep_;
  }

 private:
  Nanos sleep_ = kFirst / 2;
};

// During a run, how often each rank's loop looks for the others' messages (the seconds
// rank 0 merges, a stop). A second is merged once every rank's has come, and a stop only needs
// to arrive well within a second, so 50 ms costs the run nothing visible; at 5 ms, 50 ranks
// on 2 cores woke 10,000 times a second between them.
inline constexpr Nanos kRunPollEvery = 50 * kMilli;

// How often rank 0 beats for this timeout: four beats a timeout, at least one a second.
Nanos beat_interval(Nanos timeout);

// "1", "1, 3"
std::string join_ranks(const std::vector<int>& ranks);

// Thrown on rank 0 when ranks did not answer within the timeout.
class NoAnswer : public std::runtime_error {
 public:
  NoAnswer(std::vector<int> ranks, Nanos timeout);
  std::vector<int> ranks;
  Nanos timeout;
};

}  // namespace stampede::distributed
