#include "engine/arrival_pacer.hpp"

#include <algorithm>

namespace stampede::engine {

ArrivalPacer::ArrivalPacer(const ArrivalSchedule& schedule, long long first, long long stride, Nanos quantum,
                           int batch, Nanos early_wake)
    : schedule_(schedule), next_(first), stride_(stride), quantum_(quantum), batch_(batch), early_wake_(early_wake) {}

void ArrivalPacer::begin_turn(Nanos now, Nanos planned) {
  started_this_turn_ = 0;
  turn_began_ = std::min(now, planned);
}

ArrivalPacer::Step ArrivalPacer::next(Nanos now) const {
  const auto due = schedule_.due(next_);
  if (!due) return {Step::Kind::done};
  if (*due > now) {
    // The next wake-up: when the arrival is due, but not within a quantum of this turn's
    // start. Measured from the turn's start, not from now: a turn that took longer than a
    // quantum (a burst of replies) sleeps only until the arrival is due.
    const Nanos at = std::max(*due, turn_began_ + quantum_);
    if (at != *due) return {Step::Kind::sleep, at, at};  // coalesced: late by design, no need to be early
    const Nanos early = std::min(early_wake_, (at - turn_began_) / kSpinShare);
    return {Step::Kind::sleep, at, std::max(now, at - early)};
  }
  if (started_this_turn_ >= batch_) return {Step::Kind::yield, *due};
  return {Step::Kind::start, *due};
}

Nanos ArrivalPacer::spacing() const {
  const auto due = schedule_.due(next_);
  const auto after = schedule_.due(next_ + stride_);
  return due && after ? *after - *due : kNoSpacing;
}

void ArrivalPacer::started() {
  ++started_this_turn_;
  next_ += stride_;
}

}  // namespace stampede::engine
