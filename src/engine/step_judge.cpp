#include "engine/step_judge.hpp"

#include <cmath>
#include <stdexcept>

namespace stampede::engine {

const char* step_status_name(StepStatus status) {
  switch (status) {
    case StepStatus::NotReached: return "not_reached";
    case StepStatus::Passed: return "pass";
    case StepStatus::Failed: return "fail";
    case StepStatus::Inconclusive: return "inconclusive";
  }
  return "not_reached";
}

StepJudge::StepJudge(std::vector<StepWindow> steps)
    : steps_(std::move(steps)), status_(steps_.size(), StepStatus::NotReached) {
  over_ = steps_.empty();
}

std::vector<std::size_t> StepJudge::on_second(std::int64_t second) {
  std::vector<std::size_t> complete;
  if (over_) return complete;
  while (next_ < steps_.size() && second >= steps_[next_].last_second) complete.push_back(next_++);
  return complete;
}

bool StepJudge::record(std::size_t step, const StepOutcome& outcome) {
  if (step >= steps_.size()) throw std::out_of_range("no such find-limit step");
  // A step handed out before the staircase ended (two holds completed by one late second)
  // is left unjudged: the load was already over.
  if (over_) return false;
  if (outcome.generator_bound) {
    status_[step] = StepStatus::Inconclusive;
  } else {
    status_[step] = outcome.thresholds_passed ? StepStatus::Passed : StepStatus::Failed;
  }
  if (status_[step] == StepStatus::Passed) {
    last_passed_ = step;
    if (step + 1 == steps_.size()) over_ = true;  // the most it was asked to try
    return !over_;
  }
  first_not_passed_ = step;
  over_ = true;
  return false;
}

Bisection::Bisection(double passed, double failed, double resolution, LimitBy by)
    : passed_(passed), failed_(failed), resolution_(resolution), by_(by) {}

std::optional<double> Bisection::next() const {
  if (failed_ - passed_ <= resolution_) return std::nullopt;
  double mid = (passed_ + failed_) / 2;
  if (by_ == LimitBy::Vus) mid = std::floor(mid);
  if (mid <= passed_ || mid >= failed_) return std::nullopt;
  return mid;
}

void Bisection::record(double level, bool passed) {
  if (passed) {
    passed_ = std::max(passed_, level);
  } else {
    failed_ = std::min(failed_, level);
  }
}

}  // namespace stampede::engine
