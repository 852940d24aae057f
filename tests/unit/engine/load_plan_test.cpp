#include "engine/load_plan.hpp"

#include <gtest/gtest.h>

#include "scenario/scenario_error.hpp"

namespace stampede::engine {
namespace {

using scenario::ScenarioError;
using scenario::ScenarioOptions;

ScenarioOptions staged() {
  ScenarioOptions o;
  o.stages = {{10 * kSecond, 50}, {20 * kSecond, 50}, {10 * kSecond, 0}};
  return o;
}

// The message of the ScenarioError `fn` throws ("" if none), to assert on what it says.
template <typename Fn>
std::string error_of(Fn fn) {
  try {
    fn();
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

TEST(LoadPlan, VusAndDurationFromTheOptions) {
  ScenarioOptions o;
  o.vus = 10;
  o.duration = 30 * kSecond;
  const LoadShape shape = build_load_shape(o, {}, "api.lua");
  EXPECT_EQ(shape.model, LoadModel::Vus);
  EXPECT_EQ(shape.start, 10);
  ASSERT_EQ(shape.stages.size(), 1u);
  EXPECT_EQ(shape.stages[0].duration, 30 * kSecond);
}

TEST(LoadPlan, StagesRunAsWrittenAndStartFromVusLikeK6) {
  EXPECT_EQ(build_load_shape(staged(), {}, "api.lua").start, 0);
  ScenarioOptions o = staged();
  o.vus = 5;
  const LoadShape shape = build_load_shape(o, {}, "api.lua");
  EXPECT_EQ(shape.start, 5);
  EXPECT_EQ(shape.stages.size(), 3u);
}

TEST(LoadPlan, VusAndDurationTogetherReplaceTheStages) {
  const LoadShape shape = build_load_shape(staged(), {.vus = 3, .duration = 2 * kSecond}, "api.lua");
  EXPECT_EQ(shape.start, 3);
  ASSERT_EQ(shape.stages.size(), 1u);
  EXPECT_EQ(shape.stages[0].duration, 2 * kSecond);
}

TEST(LoadPlan, OneOfVusOrDurationAloneOnStagesIsAnError) {
  // --duration alone used to run 1 VU for that long, and --vus alone said "no load given".
  const std::string duration_alone =
      error_of([] { build_load_shape(staged(), {.duration = 60 * kSecond}, "lobby.lua"); });
  EXPECT_NE(duration_alone.find("lobby.lua: --duration replaces options.stages"), std::string::npos) << duration_alone;
  EXPECT_NE(duration_alone.find("reach 50 VUs over 40s"), std::string::npos) << duration_alone;
  const std::string vus_alone = error_of([] { build_load_shape(staged(), {.vus = 3}, "lobby.lua"); });
  EXPECT_NE(vus_alone.find("--vus replaces options.stages"), std::string::npos) << vus_alone;
}

TEST(LoadPlan, RateOnTheCommandLineReplacesAVuLoad) {
  const LoadShape shape = build_load_shape(staged(), {.rate = 200, .duration = 5 * kSecond}, "api.lua");
  EXPECT_EQ(shape.model, LoadModel::Rate);
  EXPECT_EQ(shape.start, 200);
  EXPECT_EQ(shape.max_vus, 200);
}

TEST(LoadPlan, OptionsThatDescribeTwoLoadsAreAnError) {
  ScenarioOptions both = staged();
  both.rate = 100;
  EXPECT_NE(error_of([&] { build_load_shape(both, {}, "x.lua"); }).find("both a VU load (stages) and an arrival rate"),
            std::string::npos);
  ScenarioOptions vus_rate;
  vus_rate.vus = 10;
  vus_rate.rate = 100;
  vus_rate.duration = kSecond;
  EXPECT_NE(error_of([&] { build_load_shape(vus_rate, {}, "x.lua"); }).find("both a VU load (vus)"),
            std::string::npos);
  ScenarioOptions stages_duration = staged();
  stages_duration.duration = kSecond;
  EXPECT_NE(error_of([&] { build_load_shape(stages_duration, {}, "x.lua"); }).find("both stages and duration"),
            std::string::npos);
  ScenarioOptions rate_both;
  rate_both.rate = 10;
  rate_both.rate_stages = {{kSecond, 20}};
  EXPECT_NE(error_of([&] { build_load_shape(rate_both, {}, "x.lua"); }).find("both rate and rate_stages"),
            std::string::npos);
}

TEST(LoadPlan, MaxVusWithoutARateIsAnError) {
  ScenarioOptions o;
  o.vus = 10;
  o.duration = kSecond;
  EXPECT_NE(error_of([&] { build_load_shape(o, {.max_vus = 3}, "x.lua"); }).find("--max-vus caps an arrival rate"),
            std::string::npos);
  // In the scenario it may wait for a --rate on the command line.
  o.max_vus = 3;
  EXPECT_EQ(build_load_shape(o, {}, "x.lua").model, LoadModel::Vus);
  EXPECT_EQ(build_load_shape(o, {.rate = 50}, "x.lua").max_vus, 3);
}

TEST(LoadPlan, IterationsCountForTheVusAndTheDurationBecomesTheMost) {
  ScenarioOptions o;
  o.vus = 4;
  o.iterations = 10;
  LoadShape shape = build_load_shape(o, {}, "x.lua");
  EXPECT_EQ(shape.model, LoadModel::Vus);
  EXPECT_EQ(shape.iterations, 10);
  EXPECT_EQ(shape.start, 4);
  EXPECT_EQ(shape.total_duration(), kIterationsMaxDuration);  // k6's maxDuration
  o.duration = 5 * kSecond;
  EXPECT_EQ(build_load_shape(o, {}, "x.lua").total_duration(), 5 * kSecond);
  // The command line's count wins, and works on a scenario that has none.
  EXPECT_EQ(build_load_shape(o, {.iterations = 20}, "x.lua").iterations, 20);
  ScenarioOptions plain;
  plain.vus = 2;
  plain.duration = kSecond;
  EXPECT_EQ(build_load_shape(plain, {}, "x.lua").iterations, 0);
  EXPECT_EQ(build_load_shape(plain, {.iterations = 3}, "x.lua").iterations, 3);
}

TEST(LoadPlan, IterationsWithARateStagesOrTooFewAreAnError) {
  ScenarioOptions rate;
  rate.rate = 10;
  rate.duration = kSecond;
  EXPECT_NE(error_of([&] { build_load_shape(rate, {.iterations = 5}, "x.lua"); })
                .find("x.lua: --iterations counts the iterations of VUs"),
            std::string::npos);
  ScenarioOptions o = staged();
  o.iterations = 100;
  EXPECT_NE(error_of([&] { build_load_shape(o, {}, "x.lua"); })
                .find("options.iterations goes with a constant number of VUs (vus), not with stages"),
            std::string::npos);
  // --vus and --duration replace the stages: then it counts for them.
  EXPECT_EQ(build_load_shape(o, {.vus = 5, .duration = kSecond}, "x.lua").iterations, 100);
  ScenarioOptions few;
  few.vus = 5;
  few.iterations = 3;
  EXPECT_NE(error_of([&] { build_load_shape(few, {}, "x.lua"); })
                .find("options.iterations is 3, fewer than the 5 VUs"),
            std::string::npos);
}

TEST(LoadPlan, ALoadThatRunsNothingIsAnError) {
  // A rate with duration 0 used to return before the "no time at all" check.
  ScenarioOptions rate;
  rate.rate = 10;
  rate.duration = 0;
  EXPECT_NE(error_of([&] { build_load_shape(rate, {}, "x.lua"); }).find("x.lua: the load lasts no time at all"),
            std::string::npos);
  EXPECT_NE(error_of([] { build_load_shape({}, {.rate = 100, .duration = 0}, "x.lua"); }).find("no time at all"),
            std::string::npos);
  ScenarioOptions no_rate;
  no_rate.rate = 0;
  no_rate.duration = kSecond;
  EXPECT_NE(error_of([&] { build_load_shape(no_rate, {}, "x.lua"); })
                .find("x.lua: no load: options.rate is 0, so no iteration would run"),
            std::string::npos);
  ScenarioOptions flat_rate_stages;
  flat_rate_stages.rate_stages = {{kSecond, 0}, {kSecond, 0}};
  EXPECT_NE(error_of([&] { build_load_shape(flat_rate_stages, {}, "x.lua"); })
                .find("the rate_stages and start_rate never go above 0"),
            std::string::npos);
  ScenarioOptions instant_rate_stages;
  instant_rate_stages.rate_stages = {{0, 100}};
  EXPECT_NE(error_of([&] { build_load_shape(instant_rate_stages, {}, "x.lua"); }).find("no time at all"),
            std::string::npos);

  ScenarioOptions no_vus;
  no_vus.vus = 0;
  no_vus.duration = kSecond;
  EXPECT_NE(error_of([&] { build_load_shape(no_vus, {}, "x.lua"); }).find("no load: options.vus is 0"),
            std::string::npos);
  ScenarioOptions some;
  some.vus = 5;
  some.duration = kSecond;
  EXPECT_NE(error_of([&] { build_load_shape(some, {.vus = 0}, "x.lua"); }).find("no load: --vus is 0"),
            std::string::npos);
  ScenarioOptions flat_stages;
  flat_stages.stages = {{kSecond, 0}};
  EXPECT_NE(error_of([&] { build_load_shape(flat_stages, {}, "x.lua"); })
                .find("the stages (and options.vus) never go above 0 VUs"),
            std::string::npos);
}

TEST(LoadPlan, RampsFromOrToZeroAreALoad) {
  EXPECT_EQ(build_load_shape(staged(), {}, "x.lua").start, 0);  // 0 -> 50 -> 50 -> 0
  ScenarioOptions down;
  down.vus = 10;
  down.stages = {{kSecond, 0}};
  EXPECT_EQ(build_load_shape(down, {}, "x.lua").start, 10);
  ScenarioOptions rate_up;
  rate_up.rate_stages = {{kSecond, 0}, {kSecond, 50}};
  EXPECT_EQ(build_load_shape(rate_up, {}, "x.lua").start, 0);
  ScenarioOptions rate_down;
  rate_down.start_rate = 20;
  rate_down.rate_stages = {{kSecond, 0}};
  EXPECT_EQ(build_load_shape(rate_down, {}, "x.lua").start, 20);
}

TEST(LoadPlan, StartRateWithoutRateStagesIsAnError) {
  // It used to be ignored beside rate: the run was constant, not the ramp the user meant.
  ScenarioOptions with_rate;
  with_rate.rate = 100;
  with_rate.start_rate = 10;
  with_rate.duration = kSecond;
  EXPECT_NE(error_of([&] { build_load_shape(with_rate, {}, "x.lua"); })
                .find("x.lua: options set start_rate without rate_stages: start_rate is where rate_stages start; rate "
                      "is constant"),
            std::string::npos);
  ScenarioOptions with_vus;
  with_vus.vus = 2;
  with_vus.start_rate = 10;
  with_vus.duration = kSecond;
  EXPECT_NE(error_of([&] { build_load_shape(with_vus, {}, "x.lua"); }).find("start_rate without rate_stages"),
            std::string::npos);
}

}  // namespace
}  // namespace stampede::engine
