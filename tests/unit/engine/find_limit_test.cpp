// The find-limit staircase and its judge, driven on a simulated clock: the "server" below
// is a function from the load at an instant to a latency, and time advances by hand.
#include <gtest/gtest.h>

#include <stdexcept>

#include "engine/arrival_schedule.hpp"
#include "engine/find_limit_plan.hpp"
#include "engine/step_judge.hpp"
#include "engine/vu_schedule.hpp"

namespace stampede::engine {
namespace {

FindLimitSettings settings(double start, double step, double up_to, Nanos ramp, Nanos hold) {
  FindLimitSettings s;
  s.start = start;
  s.step = step;
  s.up_to = up_to;
  s.ramp = ramp;
  s.hold = hold;
  return s;
}

TEST(FindLimitPlan, StepsRunFromStartToUpToWithTheLastOneCapped) {
  const auto steps = plan_steps(settings(1000, 1000, 3500, 5 * kSecond, 20 * kSecond));
  ASSERT_EQ(steps.size(), 4u);
  EXPECT_EQ(steps[0].level, 1000);
  EXPECT_EQ(steps[2].level, 3000);
  EXPECT_EQ(steps[3].level, 3500);  // up_to is tried even when it is not a whole step away
  EXPECT_EQ(steps[0].hold_start, 5 * kSecond);
  EXPECT_EQ(steps[1].ramp_start, 25 * kSecond);
  EXPECT_EQ(steps[1].first_second, 30);
  EXPECT_EQ(steps[1].last_second, 49);
  EXPECT_EQ(steps[3].hold_end, 100 * kSecond);
}

TEST(FindLimitPlan, NoStartMeansTheFirstStepIsOneStep) {
  const auto steps = plan_steps(settings(0, 5, 15, kSecond, 2 * kSecond));
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[0].level, 5);
  EXPECT_EQ(steps[2].level, 15);
}

TEST(FindLimitPlan, JudgedSecondsAreOnlyWholeSecondsOfTheHold) {
  // A ramp of 1.5 s: the hold [1.5 s, 4.5 s) has whole seconds 2 and 3 only.
  const auto steps = plan_steps(settings(2, 2, 2, 1500 * kMilli, 3 * kSecond));
  EXPECT_EQ(steps[0].first_second, 2);
  EXPECT_EQ(steps[0].last_second, 3);
}

TEST(FindLimitPlan, BadSettingsAreSentences) {
  EXPECT_THROW(plan_steps(settings(0, 0, 10, kSecond, kSecond)), std::invalid_argument);
  EXPECT_THROW(plan_steps(settings(20, 5, 10, kSecond, kSecond)), std::invalid_argument);
  EXPECT_THROW(plan_steps(settings(1, 1, 10, 500 * kMilli, kSecond)), std::invalid_argument);  // no whole second
  EXPECT_THROW(plan_steps(settings(1, 0.5, 10, kSecond, kSecond)), std::invalid_argument);    // half a VU
  try {
    plan_steps(settings(0, 1, 10, kSecond, 0));
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--hold"), std::string::npos) << e.what();
  }
}

TEST(FindLimitPlan, VuStaircaseHoldsEachLevelThroughItsHold) {
  const auto s = settings(10, 10, 30, 2 * kSecond, 3 * kSecond);
  const auto steps = plan_steps(s);
  const LoadShape shape = staircase_shape(s, steps, LoadShape{});
  EXPECT_EQ(shape.model, LoadModel::Vus);
  EXPECT_EQ(shape.total_duration(), 15 * kSecond);
  VuSchedule schedule(shape);
  for (const StepWindow& w : steps) {
    for (Nanos t = w.hold_start; t < w.hold_end; t += 100 * kMilli)
      ASSERT_EQ(schedule.vus_at(t), static_cast<long long>(w.level)) << "at " << t;
  }
  // Half-way up the second ramp: between the levels.
  EXPECT_EQ(schedule.vus_at(6 * kSecond), 15);
}

TEST(FindLimitPlan, RateStaircaseArrivesAtEachLevelDuringItsHold) {
  auto s = settings(100, 100, 300, kSecond, 2 * kSecond);
  s.by = LimitBy::Rate;
  const auto steps = plan_steps(s);
  const LoadShape shape = staircase_shape(s, steps, LoadShape{});
  EXPECT_EQ(shape.model, LoadModel::Rate);
  EXPECT_EQ(shape.max_vus, 300);  // the default cap follows the peak rate
  ArrivalSchedule arrivals(shape);
  for (const StepWindow& w : steps) {
    const double in_hold = arrivals.arrivals_before(w.hold_end) - arrivals.arrivals_before(w.hold_start);
    EXPECT_NEAR(in_hold, w.level * 2, 1e-6);
  }
}

TEST(FindLimitPlan, SingleStepRampsFromZero) {
  const auto s = settings(10, 10, 100, 2 * kSecond, 3 * kSecond);
  const LoadShape shape = single_step_shape(s, 45, LoadShape{});
  VuSchedule schedule(shape);
  EXPECT_EQ(schedule.vus_at(0), 0);
  EXPECT_EQ(schedule.vus_at(2 * kSecond), 45);
  EXPECT_EQ(schedule.end(), 5 * kSecond);
  const StepWindow w = single_step(s, 45);
  EXPECT_EQ(w.first_second, 2);
  EXPECT_EQ(w.last_second, 4);
}

// A simulated run: each second of the staircase, the "server" answers in 5 ms below its
// capacity and 200 ms above; the judge is told about each merged second and judges each
// completed hold with the worst latency seen in it.
struct SimulatedRun {
  double capacity;
  double cpu_limit_level = 1e18;  // from this level on the generator is the bottleneck
  std::int64_t stopped_after = -1;

  StepJudge run(const FindLimitSettings& s) {
    const auto steps = plan_steps(s);
    VuSchedule schedule(staircase_shape(s, steps, LoadShape{}));
    StepJudge judge(steps);
    ManualClock clock;
    std::vector<double> worst_ms;
    std::vector<double> level_at;
    for (std::int64_t second = 0; clock.now() < schedule.end(); ++second) {
      // The second's figures: the level half-way through it stands for the second.
      const double level = static_cast<double>(schedule.vus_at(clock.now() + kSecond / 2));
      worst_ms.push_back(level > capacity ? 200 : 5);
      level_at.push_back(level);
      clock.advance(kSecond);
      for (std::size_t i : judge.on_second(second)) {
        double worst = 0;
        for (auto t = steps[i].first_second; t <= steps[i].last_second; ++t)
          worst = std::max(worst, worst_ms[static_cast<std::size_t>(t)]);
        const bool go_on = judge.record(i, {worst <= 50, steps[i].level >= cpu_limit_level});
        if (!go_on) stopped_after = second;
      }
      if (judge.over()) break;
    }
    return judge;
  }
};

TEST(StepJudge, TheFirstFailingStepEndsTheStaircase) {
  SimulatedRun sim{35};
  const auto judge = sim.run(settings(10, 10, 100, 2 * kSecond, 3 * kSecond));
  ASSERT_TRUE(judge.last_passed());
  EXPECT_EQ(judge.steps()[*judge.last_passed()].level, 30);
  ASSERT_TRUE(judge.first_not_passed());
  EXPECT_EQ(judge.steps()[*judge.first_not_passed()].level, 40);
  EXPECT_EQ(judge.status(3), StepStatus::Failed);
  EXPECT_EQ(judge.status(4), StepStatus::NotReached);
  // Step 4 (40 VUs) holds over seconds 17..19: the staircase ends right after second 19.
  EXPECT_EQ(sim.stopped_after, 19);
}

TEST(StepJudge, TheRampIntoAFailingLevelDoesNotCountAgainstThePreviousStep) {
  // 30 passes although the ramp towards 40 (seconds 15..16) already goes above 35.
  SimulatedRun sim{35};
  const auto judge = sim.run(settings(10, 10, 100, 2 * kSecond, 3 * kSecond));
  EXPECT_EQ(judge.status(2), StepStatus::Passed);
}

TEST(StepJudge, HoldingEveryLevelEndsAtUpTo) {
  SimulatedRun sim{1000};
  const auto judge = sim.run(settings(10, 10, 30, kSecond, 2 * kSecond));
  EXPECT_TRUE(judge.over());
  EXPECT_FALSE(judge.first_not_passed());
  EXPECT_EQ(*judge.last_passed(), 2u);
}

TEST(StepJudge, ABusyGeneratorStopsTheStaircaseAsInconclusive) {
  SimulatedRun sim{1000, 20};
  const auto judge = sim.run(settings(10, 10, 50, kSecond, 2 * kSecond));
  EXPECT_EQ(judge.status(1), StepStatus::Inconclusive);
  EXPECT_EQ(*judge.last_passed(), 0u);
  EXPECT_EQ(*judge.first_not_passed(), 1u);
}

TEST(StepJudge, ALateSecondCompletesEveryHoldItCovers) {
  StepJudge judge(plan_steps(settings(1, 1, 3, kSecond, kSecond)));  // holds: second 1, 3, 5
  EXPECT_TRUE(judge.on_second(0).empty());
  const auto complete = judge.on_second(3);  // seconds 1 and 2 were never merged
  ASSERT_EQ(complete.size(), 2u);
  EXPECT_TRUE(judge.record(complete[0], {true, false}));
  EXPECT_FALSE(judge.record(complete[1], {false, false}));
  EXPECT_TRUE(judge.on_second(5).empty());  // over
}

TEST(Bisection, NarrowsTheBracketToTheResolution) {
  // The real limit is 3,337 VUs: the staircase brackets it between 3,000 and 4,000.
  Bisection b(3000, 4000, 1000.0 / 8, LimitBy::Vus);
  int probes = 0;
  while (auto level = b.next()) {
    ++probes;
    b.record(*level, *level <= 3337);
    ASSERT_LT(probes, 20);
  }
  EXPECT_LE(b.failed() - b.passed(), 125);
  EXPECT_LE(b.passed(), 3337);
  EXPECT_GT(b.failed(), 3337);
  EXPECT_EQ(probes, 3);  // 3500 fail, 3250 pass, 3375 fail
}

TEST(Bisection, VusStayWholeAndStopAtOne) {
  Bisection b(4, 6, 0.5, LimitBy::Vus);
  ASSERT_EQ(*b.next(), 5);
  b.record(5, true);
  EXPECT_FALSE(b.next());
}

}  // namespace
}  // namespace stampede::engine
