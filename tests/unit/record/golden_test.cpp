// The converter's output for HARs built from real Chromium sessions on real Phoenix apps
// (tests/vectors/har/build_from_captures.py: LiveView 0.20 and 1.2), against reviewed
// expected scenarios. STAMPEDE_UPDATE_GOLDEN=1 rewrites them (then review the diff).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "record/har_reader.hpp"
#include "record/lua_writer.hpp"
#include "record/scenario_builder.hpp"
#include "test_paths.hpp"

namespace stampede::record {
namespace {

const auto kVectors = stampede::testing::tests_dir() / "vectors/har";

std::string convert(const std::string& dialect, const std::string& name) {
  const auto read = read_har_file((kVectors / (dialect + ".har")).string());
  EXPECT_TRUE(read.ok()) << read.error;
  ConvertOptions options;
  options.name = name;
  const auto built = build_scenario(read.recording, options);
  EXPECT_EQ(built.error, "");
  WriteOptions write;
  write.command = "stampede convert " + dialect + ".har";
  write.output_path = "loadtest/recorded.lua";
  return write_lua(built.scenario, write);
}

void check_golden(const std::string& dialect, const std::string& name) {
  const auto text = convert(dialect, name);
  const auto path = kVectors / (dialect + ".expected.lua");
  if (std::getenv("STAMPEDE_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(path, std::ios::binary) << text;
    GTEST_SKIP() << "rewrote " << path;
  }
  std::ifstream file(path, std::ios::binary);
  ASSERT_TRUE(file) << "missing " << path;
  std::stringstream expected;
  expected << file.rdbuf();
  EXPECT_EQ(text, expected.str()) << "the scenario for " << dialect << " changed: review it, then STAMPEDE_UPDATE_GOLDEN=1";
}

TEST(Golden, LiveView020) { check_golden("lv-0.20", "Recorded.LiveView020"); }
TEST(Golden, LiveView1x) { check_golden("lv-1.x", "Recorded.LiveView1x"); }

// What the reviewed files must say, spelled out so that a careless update is caught.
TEST(Golden, ScenariosHoldTheRecordedActions) {
  for (const std::string dialect : {"lv-0.20", "lv-1.x"}) {
    const auto text = convert(dialect, "x");
    for (const std::string call : {
             "local view = live.connect(BASE .. \"/counter\")", "view:click(\"inc\")", "view:click(\"inc_noreply\")",
             "view = live.connect(BASE .. \"/posts/new\")", "(\"Golden post\"):sub(1, n)",
             "view = follow(view, \"submit\", \"save\", { post = { title = \"Golden post\", body = \"\" } })",
             "view:patch(\"/posts?page=2\")", "view:click(\"bump\", nil, { target = 1 })",
             "view:upload(\"avatar\", { { name = \"golden_150000.bin\", content = (\"x\"):rep(150000)",
             "view:submit(\"save\", {})", "view = live.connect(BASE .. \"/login?user=alice\")"}) {
      EXPECT_NE(text.find(call), std::string::npos) << dialect << ": no " << call << "\n" << text;
    }
    // Nothing of one session is replayed: no tokens, no topics, no refs.
    for (const std::string leak : {"SFMyNTY", "phx-GOy8", "_csrf_token", "lvu:", "\"4\""})
      EXPECT_EQ(text.find(leak), std::string::npos) << dialect << " leaks " << leak;
  }
}

}  // namespace
}  // namespace stampede::record
