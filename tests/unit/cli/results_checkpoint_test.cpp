// The results files kept current while a run goes: each write a whole, valid file that
// says it is incomplete and why, with what was measured up to the last merged second.
#include "cli/results_checkpoint.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "metrics/metric_sink.hpp"
#include "report/json_results_reader.hpp"

namespace stampede::cli {
namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

class ResultsCheckpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("stampede-checkpoint-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    outputs_.json = (dir_ / "r.json").string();
    outputs_.html = (dir_ / "r.html").string();
    requests_ = sink_.id("http.request", metrics::Kind::Timing);
    header_.scenario = "api";
    header_.file = "api.lua";
    header_.options.thresholds.push_back({"http.request", "count", 2, "api.lua"});
  }
  void TearDown() override { fs::remove_all(dir_); }

  // One merged second with `n` requests of 1 ms, pushed to the collector and reported.
  void second(ResultsCheckpoint& checkpoint, std::int64_t s, int n) {
    for (int i = 0; i < n; ++i) sink_.record(requests_, 1'000'000);
    collector_.push(0, sink_.take(s));
    report::SecondResult figures;
    figures.second = s;
    figures.iterations = static_cast<std::uint64_t>(n);
    checkpoint.second(this, figures);
  }

  report::RunResult written() { return report::read_results_json(read_file(outputs_.json)); }

  fs::path dir_;
  ResultOutputs outputs_;
  metrics::Registry registry_;
  metrics::MetricSink sink_{registry_};
  metrics::Collector collector_{1};
  metrics::MetricId requests_ = 0;
  report::ScenarioResult header_;
};

TEST_F(ResultsCheckpointTest, WritesWhatWasMeasuredUpToTheLastMergedSecond) {
  ResultsCheckpoint checkpoint(outputs_, {"stampede", "1.0", "abc"});
  ASSERT_TRUE(checkpoint.active());
  checkpoint.scenario_started(this, header_, collector_, registry_, header_.options.thresholds);
  second(checkpoint, 0, 1);
  second(checkpoint, 1, 2);
  ASSERT_TRUE(checkpoint.flush());

  const report::RunResult run = written();
  EXPECT_FALSE(run.complete);
  EXPECT_FALSE(run.passed());
  EXPECT_EQ(run.verdict(), "incomplete");
  EXPECT_NE(run.incomplete_reason.find("2 s measured"), std::string::npos) << run.incomplete_reason;
  ASSERT_EQ(run.results.size(), 1u);
  const report::ScenarioResult& r = run.results[0];
  EXPECT_EQ(r.scenario, "api");
  EXPECT_EQ(r.window_end, 2 * kSecond);
  ASSERT_EQ(r.timeline.size(), 2u);
  EXPECT_EQ(r.timeline[1].iterations, 2u);
  const report::MetricFigures* requests = report::find_figures(r.metrics, "http.request");
  ASSERT_NE(requests, nullptr);
  EXPECT_EQ(requests->count, 3u);
  ASSERT_EQ(r.thresholds.size(), 1u);  // judged on the seconds so far: 3 > 2
  EXPECT_FALSE(r.thresholds[0].pass);
  // The HTML report is kept current too, with the same figures embedded.
  EXPECT_NE(read_file(outputs_.html).find("\"complete\":false"), std::string::npos);
  // Each write replaced the file whole: no temporary file is left beside it.
  for (const auto& entry : fs::directory_iterator(dir_))
    EXPECT_TRUE(entry.path().filename() == "r.json" || entry.path().filename() == "r.html") << entry.path();

  // The timeline goes on from where the last write left it.
  second(checkpoint, 2, 4);
  ASSERT_TRUE(checkpoint.flush());
  const report::RunResult later = written();
  ASSERT_EQ(later.results[0].timeline.size(), 3u);
  EXPECT_EQ(later.results[0].timeline[2].iterations, 4u);
  EXPECT_EQ(report::find_figures(later.results[0].metrics, "http.request")->count, 7u);
}

TEST_F(ResultsCheckpointTest, WriteNowSaysWhyTheFileMayEndThere) {
  ResultsCheckpoint checkpoint(outputs_, {"stampede", "1.0", "abc"});
  checkpoint.scenario_started(this, header_, collector_, registry_, header_.options.thresholds);
  second(checkpoint, 0, 1);
  checkpoint.write_now("the process was sent SIGTERM 1.2 s into the run");
  ASSERT_TRUE(checkpoint.flush());
  EXPECT_EQ(written().incomplete_reason, "the process was sent SIGTERM 1.2 s into the run");
  second(checkpoint, 1, 1);
  ASSERT_TRUE(checkpoint.flush());
  EXPECT_EQ(written().incomplete_reason, "the process was sent SIGTERM 1.2 s into the run");
}

TEST_F(ResultsCheckpointTest, FinishedScenariosReplaceTheirStoppedRuns) {
  ResultsCheckpoint checkpoint(outputs_, {"stampede", "1.0", "abc"});
  checkpoint.scenario_started(this, header_, collector_, registry_, header_.options.thresholds);
  second(checkpoint, 0, 1);
  report::ScenarioResult stopped = header_;
  stopped.duration = kSecond;
  checkpoint.scenario_stopped(this, stopped);
  ASSERT_TRUE(checkpoint.flush());
  ASSERT_EQ(written().results.size(), 1u);
  EXPECT_EQ(written().results[0].duration, kSecond);

  report::ScenarioResult final_result = stopped;
  final_result.scenario = "api (final)";
  checkpoint.scenario_finished(final_result);
  // A second scenario starts (another source): the file lists the first's final result, then it.
  metrics::Collector other{1};
  report::ScenarioResult next = header_;
  next.scenario = "next";
  const int source = 0;
  checkpoint.scenario_started(&source, next, other, registry_, {});
  ASSERT_TRUE(checkpoint.flush());
  const report::RunResult run = written();
  ASSERT_EQ(run.results.size(), 2u);
  EXPECT_EQ(run.results[0].scenario, "api (final)");
  EXPECT_EQ(run.results[1].scenario, "next");
}

TEST_F(ResultsCheckpointTest, AfterStopNothingIsWritten) {
  ResultsCheckpoint checkpoint(outputs_, {"stampede", "1.0", "abc"});
  checkpoint.scenario_started(this, header_, collector_, registry_, header_.options.thresholds);
  second(checkpoint, 0, 1);
  ASSERT_TRUE(checkpoint.flush());
  checkpoint.stop();
  fs::remove(outputs_.json);
  checkpoint.write_now("too late");
  EXPECT_FALSE(checkpoint.flush());
  EXPECT_FALSE(fs::exists(outputs_.json));
}

TEST_F(ResultsCheckpointTest, APathThatIsNotARegularFileIsLeftToTheEnd) {
  ResultOutputs special;
  special.json = "/dev/null";
  ResultsCheckpoint checkpoint(special, {"stampede", "1.0", "abc"});
  EXPECT_FALSE(checkpoint.active());
  ResultsCheckpoint none(ResultOutputs{}, {"stampede", "1.0", "abc"});
  EXPECT_FALSE(none.active());
}

}  // namespace
}  // namespace stampede::cli
