#include "engine/cpu_policy.hpp"

#include <gtest/gtest.h>
#include <sched.h>

#include <thread>

namespace stampede::engine {
namespace {

TEST(CpuPolicy, ParsesTheTwoNamesAndNothingElse) {
  EXPECT_EQ(parse_cpu_policy("normal"), CpuPolicy::normal);
  EXPECT_EQ(parse_cpu_policy("batch"), CpuPolicy::batch);
  EXPECT_FALSE(parse_cpu_policy("Batch"));
  EXPECT_FALSE(parse_cpu_policy("idle"));
  EXPECT_FALSE(parse_cpu_policy(""));
  EXPECT_EQ(cpu_policy_name(CpuPolicy::batch), "batch");
  EXPECT_EQ(cpu_policy_name(CpuPolicy::normal), "normal");
}

TEST(CpuPolicy, BatchIsTheCallingThreadsOnlyAndNormalTakesItBack) {
  int inside = -1, back = -1;
  std::string error_batch = "not run", error_normal = "not run";
  std::thread t([&] {
    error_batch = apply_cpu_policy(CpuPolicy::batch);
    inside = sched_getscheduler(0);  // 0: the calling thread on Linux
    error_normal = apply_cpu_policy(CpuPolicy::normal);
    back = sched_getscheduler(0);
  });
  t.join();
  EXPECT_EQ(error_batch, "");
  EXPECT_EQ(inside, SCHED_BATCH);
  EXPECT_EQ(error_normal, "");
  EXPECT_EQ(back, SCHED_OTHER);
  EXPECT_EQ(sched_getscheduler(0), SCHED_OTHER);  // this thread never changed
}

TEST(CpuPolicy, TheProbeLeavesTheCallersThreadAlone) {
  EXPECT_EQ(cpu_policy_unavailable(CpuPolicy::batch), "");
  EXPECT_EQ(cpu_policy_unavailable(CpuPolicy::normal), "");
  EXPECT_EQ(sched_getscheduler(0), SCHED_OTHER);
}

}  // namespace
}  // namespace stampede::engine
