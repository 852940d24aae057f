#include "engine/cpu_policy.hpp"

#include <gtest/gtest.h>
#include <sched.h>

#include <thread>

namespace stampede::engine {
namespace {

TEST(CpuPolicy, ParsesTheFourNamesAndNothingElse) {
  EXPECT_EQ(parse_cpu_policy("normal"), CpuPolicy::normal);
  EXPECT_EQ(parse_cpu_policy("adaptive"), CpuPolicy::adaptive);
  EXPECT_EQ(cpu_policy_name(CpuPolicy::adaptive), "adaptive");
  EXPECT_EQ(parse_cpu_policy("batch"), CpuPolicy::batch);
  EXPECT_EQ(parse_cpu_policy("poll"), CpuPolicy::poll);
  EXPECT_FALSE(parse_cpu_policy("spin"));
  EXPECT_FALSE(parse_cpu_policy("Batch"));
  EXPECT_FALSE(parse_cpu_policy("idle"));
  EXPECT_FALSE(parse_cpu_policy(""));
  EXPECT_EQ(cpu_policy_name(CpuPolicy::batch), "batch");
  EXPECT_EQ(cpu_policy_name(CpuPolicy::normal), "normal");
  EXPECT_EQ(cpu_policy_name(CpuPolicy::poll), "poll");
}

TEST(CpuPolicy, PollingWorkersLeaveOneCoreByDefault) {
  EXPECT_EQ(default_worker_threads(CpuPolicy::normal, 8), 8);
  EXPECT_EQ(default_worker_threads(CpuPolicy::batch, 8), 8);
  EXPECT_EQ(default_worker_threads(CpuPolicy::poll, 8), 7);
  EXPECT_EQ(default_worker_threads(CpuPolicy::adaptive, 8), 7) << "it may hold a core while busy";
  EXPECT_EQ(default_worker_threads(CpuPolicy::poll, 2), 1);
  EXPECT_EQ(default_worker_threads(CpuPolicy::poll, 1), 1) << "one core: still one worker";
  EXPECT_EQ(default_worker_threads(CpuPolicy::poll, 0), 1) << "cores unknown";
  EXPECT_EQ(default_worker_threads(CpuPolicy::normal, 0), 1);
}

TEST(CpuPolicy, OnlyPollAndAdaptivePoll) {
  EXPECT_TRUE(may_poll(CpuPolicy::poll));
  EXPECT_TRUE(may_poll(CpuPolicy::adaptive));
  EXPECT_FALSE(may_poll(CpuPolicy::normal));
  EXPECT_FALSE(may_poll(CpuPolicy::batch));
}

TEST(CpuPolicy, ThreadsAskedForWinOverTheDefault) {
  EXPECT_EQ(worker_threads(3, CpuPolicy::poll), 3);
  EXPECT_EQ(worker_threads(0, CpuPolicy::poll), default_worker_threads(CpuPolicy::poll, std::thread::hardware_concurrency()));
  EXPECT_EQ(worker_threads(0, CpuPolicy::normal),
            default_worker_threads(CpuPolicy::normal, std::thread::hardware_concurrency()));
}

TEST(CpuPolicy, PollIsTheKernelsDefaultPolicy) {
  int inside = -1;
  std::string error = "not run";
  std::thread t([&] {
    error = apply_cpu_policy(CpuPolicy::poll);
    inside = sched_getscheduler(0);
  });
  t.join();
  EXPECT_EQ(error, "");
  EXPECT_EQ(inside, SCHED_OTHER) << "polling is the loop's business, not the scheduler's";
  EXPECT_EQ(cpu_policy_unavailable(CpuPolicy::poll), "");
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
