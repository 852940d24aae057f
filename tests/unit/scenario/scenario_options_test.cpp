#include "scenario/scenario_options.hpp"

#include <gtest/gtest.h>

#include <lua.hpp>

#include "scenario/scenario_error.hpp"

namespace stampede::scenario {
namespace {

class Options : public ::testing::Test {
 protected:
  void SetUp() override { L = luaL_newstate(); }
  void TearDown() override { lua_close(L); }
  ScenarioOptions read(const char* table) {
    const std::string chunk = std::string("return ") + table;
    EXPECT_EQ(luaL_dostring(L, chunk.c_str()), 0) << lua_tostring(L, -1);
    auto o = read_options(L, -1, "s.lua: options");
    lua_pop(L, 1);
    return o;
  }
  std::string error_of(const char* table) {
    try {
      read(table);
    } catch (const ScenarioError& e) {
      lua_settop(L, 0);
      return e.what();
    }
    return "(no error)";
  }
  lua_State* L = nullptr;
};

TEST_F(Options, ReadsEveryKind) {
  auto o = read(R"({ vus = 5, duration = "1m30s", graceful_stop = 250,
                     stages = { {"30s", 500}, {duration = "1m", target = 10} },
                     rate_stages = { {"10s", 100} }, start_rate = 5, max_vus = 50, rate = 7,
                     thresholds = { {"http.request", p95 = 250, max = 2000} },
                     local_addresses = "127.0.0.2-127.0.0.3", insecure = true })");
  EXPECT_EQ(*o.vus, 5);
  EXPECT_EQ(*o.duration, 90 * kSecond);
  EXPECT_EQ(o.graceful_stop, 250 * kMilli);
  ASSERT_EQ(o.stages.size(), 2u);
  EXPECT_EQ(o.stages[1].duration, 60 * kSecond);
  EXPECT_EQ(o.stages[1].target, 10);
  EXPECT_EQ(o.rate_stages[0].target, 100);
  EXPECT_EQ(*o.start_rate, 5);
  EXPECT_EQ(*o.max_vus, 50);
  EXPECT_EQ(*o.rate, 7);
  ASSERT_EQ(o.thresholds.size(), 2u);
  EXPECT_EQ(o.local_addresses.size(), 1u);
  EXPECT_TRUE(o.insecure);
}

TEST_F(Options, ErrorsSayWhereAndWhat) {
  EXPECT_NE(error_of(R"({ duration = "3x" })").find("s.lua: options.duration"), std::string::npos);
  EXPECT_NE(error_of(R"({ vu = 3 })").find("unknown option \"vu\""), std::string::npos);
  EXPECT_NE(error_of(R"({ stages = { {"1s"} } })").find("options.stages[1]"), std::string::npos);
  EXPECT_NE(error_of(R"({ thresholds = { {"x", p42 = 1} } })").find("unknown threshold key \"p42\""), std::string::npos);
  EXPECT_NE(error_of(R"({ thresholds = { {"x"} } })").find("no limit"), std::string::npos);
  EXPECT_NE(error_of(R"({ vus = -1 })").find("at least 0"), std::string::npos);
  EXPECT_NE(error_of(R"({ vus = "many" })").find("expected a number"), std::string::npos);
}

TEST_F(Options, AListWrittenAsAMapIsAnError) {
  // k6's form: it used to become zero thresholds, and a CI gate that always passes.
  const std::string map = error_of(R"({ thresholds = { ["http.request"] = { p95 = 250 } } })");
  EXPECT_NE(map.find("s.lua: options.thresholds: \"http.request\" = {...} is not a list entry: write thresholds = { "
                     "{\"http.request\", p95 = 250} }"),
            std::string::npos)
      << map;
  EXPECT_NE(error_of(R"({ thresholds = { http_req_duration = {"p(95)<250"} } })").find("\"http_req_duration\" = {...}"),
            std::string::npos);
  // One list entry and one map entry: the second used to be lost.
  EXPECT_NE(error_of(R"({ thresholds = { {"http.request", p95 = 1}, ["iteration.errors"] = { count = 0 } } })")
                .find("\"iteration.errors\" = {...} is not a list entry"),
            std::string::npos);
  EXPECT_NE(error_of(R"({ stages = { {"30s", 10}, extra = {"1m", 5} } })")
                .find("options.stages: \"extra\" = {...} is not a list entry: write stages = {"),
            std::string::npos);
  EXPECT_NE(error_of(R"({ rate_stages = { {"30s", 10}, [3] = {"1m", 5} } })").find("[3] = {...} is not a list entry"),
            std::string::npos);
  EXPECT_NE(error_of(R"({ local_addresses = { "127.0.0.2", second = "127.0.0.3" } })")
                .find("options.local_addresses: \"second\" = \"127.0.0.3\" is not a list entry"),
            std::string::npos);
}

TEST_F(Options, AStageIsADurationAndATargetAndNothingElse) {
  EXPECT_NE(error_of(R"({ stages = { {"30s", 10, ramp = "linear"} } })")
                .find("options.stages[1]: unknown key \"ramp\": a stage is {duration, target}"),
            std::string::npos);
  EXPECT_NE(error_of(R"({ stages = { {"30s", 10, 20} } })").find("options.stages[1]: unknown key [3]"), std::string::npos);
  EXPECT_NE(error_of(R"({ rate_stages = { {"30s", 10, target = 20} } })").find("the target is given twice"),
            std::string::npos);
  EXPECT_EQ(read(R"({ stages = { {duration = "1s", target = 3} } })").stages[0].target, 3);
}

TEST_F(Options, VusAreWhole) {
  EXPECT_NE(error_of(R"({ vus = 2.5 })").find("options.vus: expected a whole number of VUs, got 2.5"), std::string::npos);
  EXPECT_NE(error_of(R"({ max_vus = 10.5 })").find("options.max_vus: expected a whole number"), std::string::npos);
}

TEST_F(Options, AThresholdLimitIsANumberInTheAggregationsUnit) {
  EXPECT_NE(error_of(R"({ thresholds = { {"http.request", p95 = "250ms"} } })")
                .find("(http.request) p95: expected a number of milliseconds, as in p95 = 250, got the string \"250ms\""),
            std::string::npos);
  EXPECT_NE(error_of(R"({ thresholds = { {"ok", failed_rate = "1%"} } })").find("a ratio from 0 to 1"),
            std::string::npos);
  EXPECT_NE(error_of(R"({ thresholds = { {"x", count = true} } })").find("a number, as in count = 0, got a boolean"),
            std::string::npos);
}

TEST_F(Options, ANamedRequestRowIsATimingBeforeTheRun) {
  EXPECT_NE(error_of(R"({ thresholds = { {"http.request.login", failed_rate = 0.01} } })")
                .find("failed_rate applies to a check, but \"http.request.login\" is a timing"),
            std::string::npos);
  EXPECT_EQ(read(R"({ thresholds = { {"http.request.login", p95 = 250, count = 10} } })").thresholds.size(), 2u);
  // http.request.errors stays the counter it is.
  EXPECT_NE(error_of(R"({ thresholds = { {"http.request.errors", p95 = 1} } })").find("is a counter"),
            std::string::npos);
}


TEST_F(Options, ServerMetrics) {
  auto o = read(R"({ server_metrics = { url = "http://127.0.0.1:9568/metrics", every = "500ms",
                                         select = { "beam_*", "phoenix_*" }, timeout = 200 } })");
  ASSERT_TRUE(o.server_metrics);
  EXPECT_EQ(o.server_metrics->urls, std::vector<std::string>{"http://127.0.0.1:9568/metrics"});
  EXPECT_EQ(o.server_metrics->every, 500 * kMilli);
  EXPECT_EQ(o.server_metrics->select, (std::vector<std::string>{"beam_*", "phoenix_*"}));
  EXPECT_EQ(o.server_metrics->timeout, std::optional<Nanos>(200 * kMilli));
  auto cluster = read(R"({ server_metrics = { urls = { "http://10.0.0.1:9568/metrics", "http://10.0.0.2:9568/metrics" } } })");
  EXPECT_EQ(cluster.server_metrics->urls.size(), 2u);
  EXPECT_EQ(cluster.server_metrics->every, kSecond);
  EXPECT_FALSE(cluster.server_metrics->timeout);
  // A plain string is the URL.
  EXPECT_EQ(read(R"({ server_metrics = "http://127.0.0.1:9568/metrics" })").server_metrics->urls.size(), 1u);
  EXPECT_FALSE(read("{ vus = 1 }").server_metrics);
}

TEST_F(Options, ServerMetricsMistakesNameTheField) {
  const auto has = [](const std::string& error, const std::string& part) {
    return error.find(part) != std::string::npos ? ::testing::AssertionSuccess()
                                                 : ::testing::AssertionFailure() << error;
  };
  EXPECT_TRUE(has(error_of(R"({ server_metrics = { url = "http://h:1/m", every = "50ms" } })"),
                  "s.lua: options.server_metrics.every must be at least 100ms, got 50ms"));
  EXPECT_TRUE(has(error_of(R"({ server_metrics = { url = "h:9568/metrics" } })"),
                  "s.lua: options.server_metrics.url \"h:9568/metrics\" is not a URL to scrape"));
  EXPECT_TRUE(has(error_of(R"({ server_metrics = { urls = { "http://h:1/m", 3 } } })"),
                  "s.lua: options.server_metrics.urls[2]: expected a string"));
  EXPECT_TRUE(has(error_of(R"({ server_metrics = { urls = { "http://h:1/m", "http://h:1/m" } } })"),
                  "options.server_metrics.urls[2] \"http://h:1/m\" is given twice"));
  EXPECT_TRUE(has(error_of(R"({ server_metrics = { url = "http://h:1/m", urls = { "http://h:2/m" } } })"),
                  "give either url or urls, not both"));
  EXPECT_TRUE(has(error_of(R"({ server_metrics = { url = "http://h:1/m", select = { "a", "" } } })"),
                  "options.server_metrics.select[2] is empty"));
  EXPECT_TRUE(has(error_of(R"({ server_metrics = { url = "http://h:1/m", evry = "1s" } })"),
                  "options.server_metrics: unknown key \"evry\": expected one of url, urls, every, select, timeout"));
  EXPECT_TRUE(has(error_of(R"({ server_metrics = { every = "1s" } })"), "options.server_metrics: give the URL"));
  EXPECT_TRUE(has(error_of(R"({ server_metrics = { url = "http://h:1/m", every = "1x" } })"),
                  "options.server_metrics.every:"));
  EXPECT_TRUE(has(error_of(R"({ server_metrics = 3 })"), "options.server_metrics: expected a table"));
}

}  // namespace
}  // namespace stampede::scenario
