#pragma once
// Decides, second by second, when a find-limit step can be judged and whether the
// staircase goes on. Pure: it sees the indices of the merged seconds (from the Collector)
// and the outcome of each judgement, never a clock or a socket, so tests drive it with a
// simulated run.
//
// A step is judged when the last whole second of its hold has been merged (or a later one:
// a second nobody recorded anything in has no entry). The first step that fails a threshold,
// or whose hold the generator itself could not keep up with, ends the staircase.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/find_limit_plan.hpp"

namespace stampede::engine {

enum class StepStatus {
  NotReached,    // the run ended before its hold was over
  Passed,        // every threshold held over the hold
  Failed,        // a threshold broke
  Inconclusive,  // the generator was the bottleneck: the figures measure Stampede, not the server
};
const char* step_status_name(StepStatus status);

struct StepOutcome {
  bool thresholds_passed = false;
  bool generator_bound = false;
};

class StepJudge {
 public:
  explicit StepJudge(std::vector<StepWindow> steps);

  // A merged second: the steps (indices, in order) whose holds it completes. None once the
  // staircase is over.
  std::vector<std::size_t> on_second(std::int64_t second);
  // The judgement of a step returned by on_second, in order. Returns false when the
  // staircase ends here (the caller stops the load).
  bool record(std::size_t step, const StepOutcome& outcome);

  bool over() const { return over_; }
  const std::vector<StepWindow>& steps() const { return steps_; }
  StepStatus status(std::size_t step) const { return status_[step]; }
  // The highest level that passed, and the first that did not pass (failed or inconclusive).
  std::optional<std::size_t> last_passed() const { return last_passed_; }
  std::optional<std::size_t> first_not_passed() const { return first_not_passed_; }

 private:
  std::vector<StepWindow> steps_;
  std::vector<StepStatus> status_;
  std::size_t next_ = 0;  // the next step to hand out
  bool over_ = false;
  std::optional<std::size_t> last_passed_;
  std::optional<std::size_t> first_not_passed_;
};

// --refine: bisects between the highest level that passed and the lowest that failed until
// they are at most `resolution` apart. VU levels are whole numbers.
class Bisection {
 public:
  Bisection(double passed, double failed, double resolution, LimitBy by);
  // The next level to try, or nullopt when the bracket is narrow enough.
  std::optional<double> next() const;
  void record(double level, bool passed);
  double passed() const { return passed_; }
  double failed() const { return failed_; }

 private:
  double passed_;
  double failed_;
  double resolution_;
  LimitBy by_;
};

}  // namespace stampede::engine
