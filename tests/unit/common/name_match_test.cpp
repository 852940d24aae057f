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

TEST(ClosestByWords, NamesThatSayTheSameInOtherWords) {
  const std::vector<std::string> probe = {
      "server.erlang_vm_run_queues_length", "server.erlang_vm_run_queue_length{queue=\"1\"}",
      "server.erlang_vm_memory_bytes{kind=\"total\"}", "server.ecto_query_queue_duration_seconds",
      "server.phoenix_endpoint_duration_seconds"};
  EXPECT_EQ(closest_by_words("server.beam_run_que", probe),
            (std::vector<std::string>{"server.erlang_vm_run_queue_length", "server.erlang_vm_run_queues_length"}));
  EXPECT_EQ(closest_by_words("server.beam_memory", probe), std::vector<std::string>{"server.erlang_vm_memory_bytes"});
  EXPECT_EQ(closest_by_words("server.ecto_queue_time_ms", probe),
            std::vector<std::string>{"server.ecto_query_queue_duration_seconds"});
  // PromEx's names for the same things.
  const std::vector<std::string> promex = {"server.my_app_prom_ex_beam_stats_run_queue_count",
                                           "server.my_app_prom_ex_beam_memory_allocated_bytes",
                                           "server.ecto_repo_query_queue_time_milliseconds"};
  EXPECT_EQ(closest_by_words("server.erlang_vm_run_queues_length", promex),
            std::vector<std::string>{"server.my_app_prom_ex_beam_stats_run_queue_count"});
  EXPECT_EQ(closest_by_words("server.ecto_queue_time_ms", promex),
            std::vector<std::string>{"server.ecto_repo_query_queue_time_milliseconds"});
  EXPECT_TRUE(closest_by_words("server.oban_jobs", probe).empty());
  EXPECT_TRUE(closest_by_words("server.", probe).empty());
}

}  // namespace
}  // namespace stampede
