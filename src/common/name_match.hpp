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

// When closest_names finds nothing: up to `max_results` of `known` that share the most words
// with `wanted`, for names that say the same thing in another vocabulary
// ("server.beam_run_que" -> "server.erlang_vm_run_queues_length"). Words are the parts
// between '.' and '_' of the name before any '{'; two words match when equal, when one is a
// prefix of the other (3 letters at least: "que" and "queues"), within one edit (4 letters at
// least), or as the BEAM's names for itself ("beam", "erlang", "vm"). "server" counts for
// nothing. A name qualifies when it matches at least half of `wanted`'s words (and one);
// only the names with the most words matched are given, the fewest edits first, then in
// name order. Labels are left out of the
// results ("server.x{a=\"1\"}" is offered as "server.x"), each name once.
std::vector<std::string> closest_by_words(std::string_view wanted, const std::vector<std::string>& known,
                                          std::size_t max_results = 3);

}  // namespace stampede
