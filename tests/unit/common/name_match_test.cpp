#include "common/name_match.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace stampede {
namespace {

TEST(GlobMatches, StarAndQuestionMark) {
  EXPECT_TRUE(glob_matches("beam_*", "beam_run_queue"));
  EXPECT_TRUE(glob_matches("beam_*", "beam_"));
  EXPECT_FALSE(glob_matches("beam_*", "my_beam_run_queue"));
  EXPECT_TRUE(glob_matches("*beam_*", "my_app_prom_ex_beam_stats_run_queue_count"));
  EXPECT_TRUE(glob_matches("phoenix_*_total", "phoenix_http_requests_total"));
  EXPECT_FALSE(glob_matches("phoenix_*_total", "phoenix_http_requests_total_x"));
  EXPECT_TRUE(glob_matches("vm_?emory", "vm_memory"));
  EXPECT_FALSE(glob_matches("vm_?emory", "vm_emory"));
  EXPECT_TRUE(glob_matches("*", ""));
  EXPECT_TRUE(glob_matches("*", "anything"));
  EXPECT_TRUE(glob_matches("**a**", "xay"));
  EXPECT_TRUE(glob_matches("exact", "exact"));
  EXPECT_FALSE(glob_matches("exact", "exactly"));
  EXPECT_FALSE(glob_matches("Exact", "exact"));  // names are case-sensitive
  EXPECT_TRUE(glob_matches("", ""));
  EXPECT_FALSE(glob_matches("", "a"));
}

TEST(GlobMatches, BacktracksOverEarlierStars) {
  EXPECT_TRUE(glob_matches("a*b*c", "axxbxxbc"));
  EXPECT_TRUE(glob_matches("a*bc", "abcbc"));
  EXPECT_FALSE(glob_matches("a*b*c", "axxbxxbd"));
  EXPECT_TRUE(glob_matches("*?", "x"));
  EXPECT_FALSE(glob_matches("*??", "x"));
}

TEST(EditDistance, Levenshtein) {
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
  EXPECT_EQ(edit_distance("same", "same"), 0u);
  EXPECT_EQ(edit_distance("beam_run_que", "beam_run_queue"), 2u);
}

TEST(ClosestNames, TheIssuesExample) {
  const std::vector<std::string> known = {"server.beam_memory_bytes", "server.beam_run_queue",
                                          "server.phoenix_http_requests_total"};
  EXPECT_EQ(closest_names("server.beam_run_que", known), std::vector<std::string>{"server.beam_run_queue"});
}

TEST(ClosestNames, ClosestFirstThenByNameAndAtMostMax) {
  const std::vector<std::string> known = {"vm_memory_c", "vm_memory_b", "vm_memory_total", "vm_memory_a", "other"};
  EXPECT_EQ(closest_names("vm_memory", known, 2), (std::vector<std::string>{"vm_memory_a", "vm_memory_b"}));
  EXPECT_EQ(closest_names("vm_memory", known).size(), 3u);
}

TEST(ClosestNames, ANameThatContainsItIsClose) {
  // PromEx prefixes every name with the app's; "beam_stats" is 10 edits away (more than a
  // third of 20) and contains nothing of it whole, so it is not close.
  const std::vector<std::string> known = {"my_app_prom_ex_beam_stats_run_queue_count", "beam_stats"};
  EXPECT_EQ(closest_names("beam_stats_run_queue", known),
            std::vector<std::string>{"my_app_prom_ex_beam_stats_run_queue_count"});
}

TEST(ClosestNames, NothingCloseGivesNothing) {
  const std::vector<std::string> known = {"node_cpu_seconds_total", "go_goroutines"};
  EXPECT_TRUE(closest_names("phoenix_http_requests_total", known).empty());
  EXPECT_TRUE(closest_names("x", {}).empty());
  // The name itself is not a suggestion for itself.
  EXPECT_TRUE(closest_names("go_goroutines", {"go_goroutines"}).empty());
}

}  // namespace
}  // namespace stampede
