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

}  // namespace
}  // namespace stampede::scenario
