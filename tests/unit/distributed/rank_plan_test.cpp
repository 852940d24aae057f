#include "distributed/rank_plan.hpp"

#include <gtest/gtest.h>
#include <pthread.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <thread>

#include "distributed/launcher.hpp"
#include "distributed/rank_split.hpp"
#include "wait_until.hpp"

namespace stampede::distributed {
namespace {

TEST(RankPlan, RoundTrip) {
  RankPlan p;
  p.sequence = 3;
  p.file = "lobby.lua";
  p.source = "return {}\n\"quoted\"";
  p.shape.model = LoadModel::Rate;
  p.shape.start = 2.5;
  p.shape.stages = {{30 * kSecond, 100}, {0, 7}};
  p.shape.max_vus = 77;
  p.shape.graceful_stop = 5 * kSecond;
  p.shape.iterations = 1234;
  p.setup_data = R"({"token":"abc"})";
  p.insecure = true;
  p.local_addresses = {"127.0.0.2", "127.0.0.3"};
  const RankPlan q = decode_plan(encode_plan(p));
  EXPECT_FALSE(q.done);
  EXPECT_EQ(q.sequence, 3u);
  EXPECT_EQ(q.file, p.file);
  EXPECT_EQ(q.source, p.source);
  EXPECT_EQ(q.shape.model, LoadModel::Rate);
  EXPECT_EQ(q.shape.start, 2.5);
  ASSERT_EQ(q.shape.stages.size(), 2u);
  EXPECT_EQ(q.shape.stages[0].duration, 30 * kSecond);
  EXPECT_EQ(q.shape.stages[1].target, 7);
  EXPECT_EQ(q.shape.max_vus, 77);
  EXPECT_EQ(q.shape.graceful_stop, 5 * kSecond);
  EXPECT_EQ(q.shape.iterations, 1234);
  EXPECT_EQ(q.setup_data, p.setup_data);
  EXPECT_TRUE(q.insecure);
  EXPECT_EQ(q.local_addresses, p.local_addresses);
}

// The last plan of a job tells the other ranks how it ends: with rank 0's abort, or not.
TEST(RankPlan, TheReleaseCarriesTheExitStatus) {
  RankPlan done;
  done.done = true;
  done.exit_status = 2;
  const RankPlan q = decode_plan(encode_plan(done));
  EXPECT_TRUE(q.done);
  EXPECT_EQ(q.exit_status, 2);
  EXPECT_EQ(decode_plan(encode_plan(RankPlan{})).exit_status, 0);
}

TEST(RankPlan, GarbageIsAnError) {
  EXPECT_THROW(decode_plan("{"), std::invalid_argument);
  EXPECT_THROW(decode_plan("{\"done\":1}"), std::invalid_argument);
}

// The split over ranks and threads adds up exactly, remainders to the lowest segments.
TEST(RankSplit, SegmentsAddUpAndVusAreExact) {
  const std::vector<int> threads{2, 3, 2};
  EXPECT_EQ(segments_of(threads, 0).first, 0);
  EXPECT_EQ(segments_of(threads, 1).first, 2);
  EXPECT_EQ(segments_of(threads, 2).first, 5);
  EXPECT_EQ(segments_of(threads, 2).total, 7);
  for (long long vus : {0LL, 1LL, 6LL, 7LL, 100'001LL}) {
    long long sum = 0;
    for (int s = 0; s < 7; ++s) sum += share_of(vus, 7, s);
    EXPECT_EQ(sum, vus);
  }
}

TEST(RankSplit, ThreadsNeverExceedWhatARankCouldUse) {
  LoadShape vus;
  vus.start = 5;
  vus.stages = {{kSecond, 5}};
  EXPECT_EQ(rank_threads(8, vus, 3), 2);  // ceil(5 / 3)
  EXPECT_EQ(rank_threads(1, vus, 3), 1);
  LoadShape rate;
  rate.model = LoadModel::Rate;
  rate.max_vus = 1000;
  rate.stages = {{kSecond, 100}};
  EXPECT_EQ(rank_threads(4, rate, 6), 4);
}

TEST(Launcher, BuildsTheMpirunLine) {
  LaunchRequest r;
  r.argv = {"stampede", "run", "lobby.lua", "--nodes", "h1,h2", "--procs-per-node=2", "--vus", "10"};
  r.nodes = "h1,h2";
  r.procs_per_node = 2;
  r.self = "/opt/stampede/bin/stampede";
  r.as_root = true;
  const std::vector<std::string> expected{"mpirun", "-q", "-H", "h1:2,h2:2", "--allow-run-as-root", "--mca",
                                          "orte_abort_on_non_zero_status", "0", "/opt/stampede/bin/stampede",
                                          "run", "lobby.lua", "--vus", "10"};
  EXPECT_EQ(mpirun_command(r), expected);
  r.status_file = "/tmp/stampede-status-1";
  std::vector<std::string> with_status = expected;
  with_status.insert(with_status.begin() + 8, {"-x", "STAMPEDE_STATUS_FILE=/tmp/stampede-status-1"});
  EXPECT_EQ(mpirun_command(r), with_status);
  r.nodes = ",";
  EXPECT_THROW(mpirun_command(r), std::invalid_argument);
}

TEST(Launcher, Rank0LeavesItsStatusForTheLauncher) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("stampede-status-test-" + std::to_string(getpid()))).string();
  std::filesystem::remove(path);
  EXPECT_EQ(status_told(path), std::nullopt);  // rank 0 never said (killed, or on another machine)
  ASSERT_EQ(setenv("STAMPEDE_STATUS_FILE", path.c_str(), 1), 0);
  tell_launcher(3);
  unsetenv("STAMPEDE_STATUS_FILE");
  EXPECT_EQ(status_told(path), 3);
  EXPECT_FALSE(std::filesystem::exists(path));  // read once
  tell_launcher(1);  // no launcher asked: nothing written
  EXPECT_EQ(status_told(path), std::nullopt);
}

// run_mpirun over real processes, with sh standing in for mpirun.
TEST(Launcher, PassesOnTheExitStatus) {
  EXPECT_EQ(run_mpirun({"sh", "-c", "exit 7"}), 7);
  EXPECT_EQ(run_mpirun({"sh", "-c", "kill -KILL $$"}), 128 + SIGKILL);
  EXPECT_EQ(run_mpirun({"/nonexistent/mpirun"}), 2);
}

TEST(Launcher, CtrlCBecomesSigusr1ToMpirunInItsOwnGroupWithoutStdin) {
  const std::string ready =
      (std::filesystem::temp_directory_path() / ("stampede-launcher-test-" + std::to_string(getpid()))).string();
  const std::string handled = ready + ".1";
  std::filesystem::remove(ready);
  std::filesystem::remove(handled);
  // Exits 42 on the second SIGUSR1 (Ctrl-C twice); 3 when not leading its own process group,
  // 4 when stdin is not /dev/null. `ready` once its trap is set, `ready`.1 once the first
  // SIGUSR1 was handled.
  const std::string script = R"sh(
    read -r _ _ _ _ group _ < /proc/$$/stat
    [ "$group" = "$$" ] || exit 3
    [ "$(readlink /proc/$$/fd/0)" = /dev/null ] || exit 4
    n=0
    trap 'n=$((n + 1)); touch ")sh" + ready + R"sh(.$n"; [ $n = 2 ] && exit 42' USR1
    touch ")sh" + ready + R"sh("
    i=0
    while [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
    exit 5
  )sh";
  std::thread ctrl_c([&] {
    // Blocked here, the process-wide SIGINT waits for run_mpirun's handler (it unblocks it
    // on the main thread once the handler is in place) instead of ending the test.
    sigset_t sigint;
    sigemptyset(&sigint);
    sigaddset(&sigint, SIGINT);
    pthread_sigmask(SIG_BLOCK, &sigint, nullptr);
    // Each Ctrl-C once the script is ready for it (two at once would be one signal); none
    // after a script that went wrong, when no handler would take it.
    using stampede::testing::wait_until;
    if (!wait_until("the script set its trap", [&] { return std::filesystem::exists(ready); })) return;
    kill(getpid(), SIGINT);
    if (!wait_until("the script handled the first SIGUSR1", [&] { return std::filesystem::exists(handled); })) return;
    kill(getpid(), SIGINT);
  });
  const int status = run_mpirun({"sh", "-c", script});
  ctrl_c.join();
  std::filesystem::remove(ready);
  std::filesystem::remove(handled);
  std::filesystem::remove(ready + ".2");
  EXPECT_EQ(status, 42);
  // Restored: SIGINT is as it was before (the default) once mpirun is done.
  struct sigaction now{};
  sigaction(SIGINT, nullptr, &now);
  EXPECT_EQ(now.sa_handler, SIG_DFL);
}

}  // namespace
}  // namespace stampede::distributed
