#pragma once
// Matching metric names the way a user writes them: glob patterns to select server metrics
// (`--server-metrics` with `beam_*`, `phoenix_*`), and the closest known names to one that
// is not there, for the error that says so ("server.beam_run_que is not exposed; closest:
// server.beam_run_queue").
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace stampede {

// '*' matches any run of characters (also none), '?' exactly one; everything else itself,
// case-sensitively (metric names are). The whole text must match.
bool glob_matches(std::string_view pattern, std::string_view text);

// Levenshtein distance (insertions, deletions, substitutions of single bytes).
std::size_t edit_distance(std::string_view a, std::string_view b);

// Up to `max_results` of `known` that are close to `wanted`, closest first (then in name
// order): those within a third of its length in edits (at least 2), and those that contain
// it whole, such as "my_app_prom_ex_beam_stats_run_queue_count" for "beam_stats_run_queue".
// Nothing when nothing is close: a list of unrelated names would not help.
std::vector<std::string> closest_names(std::string_view wanted, const std::vector<std::string>& known,
                                       std::size_t max_results = 3);

}  // namespace stampede
