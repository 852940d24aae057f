// What a run scrapes: --server-metrics and --server-metrics-every over the scenario's option.
#include "cli/server_metrics_args.hpp"

#include <gtest/gtest.h>

#include "scenario/scenario_error.hpp"

namespace stampede::cli {
namespace {

clients::ServerMetricsOptions scenario_option() {
  clients::ServerMetricsOptions o;
  o.urls = {"http://10.0.0.1:9568/metrics", "http://10.0.0.2:9568/metrics"};
  o.every = 2 * kSecond;
  o.select = {"beam_*"};
  o.timeout = 900 * kMilli;
  return o;
}

std::string error_of(const ServerMetricsArgs& args, const std::optional<clients::ServerMetricsOptions>& scenario) {
  try {
    server_metrics_for(args, scenario, "s.lua");
  } catch (const scenario::ScenarioError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ServerMetricsArgs, NeitherAsksForNone) { EXPECT_FALSE(server_metrics_for({}, std::nullopt, "s.lua")); }

TEST(ServerMetricsArgs, TheFlagAlone) {
  const auto o = server_metrics_for({{"http://127.0.0.1:4000/metrics", "http://127.0.0.1:4001/metrics"}, "500ms"},
                                    std::nullopt, "s.lua");
  ASSERT_TRUE(o);
  EXPECT_EQ(o->urls.size(), 2u);
  EXPECT_EQ(o->every, 500 * kMilli);
  EXPECT_TRUE(o->select.empty());
  EXPECT_EQ(o->scrape_timeout(), 250 * kMilli);
}

TEST(ServerMetricsArgs, TheScenarioAlone) {
  const auto o = server_metrics_for({}, scenario_option(), "s.lua");
  ASSERT_TRUE(o);
  EXPECT_EQ(o->urls, scenario_option().urls);
  EXPECT_EQ(o->every, 2 * kSecond);
}

TEST(ServerMetricsArgs, TheFlagsReplaceTheURLsAndEveryAndKeepTheRest) {
  const auto o = server_metrics_for({{"http://127.0.0.1:4000/metrics"}, "1500ms"}, scenario_option(), "s.lua");
  ASSERT_TRUE(o);
  EXPECT_EQ(o->urls, std::vector<std::string>{"http://127.0.0.1:4000/metrics"});
  EXPECT_EQ(o->every, 1500 * kMilli);
  EXPECT_EQ(o->select, std::vector<std::string>{"beam_*"});
  EXPECT_EQ(o->timeout, std::optional<Nanos>(900 * kMilli));
}

TEST(ServerMetricsArgs, MistakesAreSentences) {
  // The scenario's timeout is no longer shorter than the every the command line asks for.
  EXPECT_EQ(error_of({{}, "500ms"}, scenario_option()),
            "s.lua: server_metrics.timeout (900ms) must be shorter than every (500ms): a scrape has to end before "
            "the next is due");
  EXPECT_EQ(error_of({{}, "2s"}, std::nullopt),
            "s.lua: --server-metrics-every needs an endpoint to scrape: add --server-metrics URL (or "
            "options.server_metrics)");
  EXPECT_NE(error_of({{"http://h:1/m", "http://h:1/m"}, ""}, std::nullopt).find("--server-metrics[2] \"http://h:1/m\" is given twice"),
            std::string::npos);
}

}  // namespace
}  // namespace stampede::cli
