#include "common/name_match.hpp"

#include <algorithm>
#include <cctype>
#include <numeric>
#include <tuple>

namespace stampede {

bool glob_matches(std::string_view pattern, std::string_view text) {
  // Greedy with one backtrack point: on a mismatch, let the last '*' take one more
  // character. Linear in practice, O(pattern * text) at worst; no recursion.
  std::size_t p = 0;
  std::size_t t = 0;
  std::size_t star = std::string_view::npos;  // position of the last '*' seen in the pattern
  std::size_t star_text = 0;                  // where in the text that '*' match ends so far
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      star_text = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++star_text;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // One row of the dynamic-programming table at a time.
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];  // the cell above-left
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::vector<std::string> closest_names(std::string_view wanted, const std::vector<std::string>& known,
                                       std::size_t max_results) {
  const std::size_t within = std::max<std::size_t>(2, wanted.size() / 3);
  std::vector<std::tuple<std::size_t, std::string_view>> candidates;  // (distance, name)
  for (const std::string& name : known) {
    if (name == wanted) continue;
    const std::size_t distance = edit_distance(wanted, name);
    if (distance <= within || (!wanted.empty() && name.find(wanted) != std::string::npos)) {
      candidates.emplace_back(distance, name);
    }
  }
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  std::vector<std::string> out;
  for (const auto& [distance, name] : candidates) {
    if (out.size() == max_results) break;
    out.emplace_back(name);
  }
  return out;
}

namespace {

std::vector<std::string> words_of(std::string_view name) {
  name = name.substr(0, name.find('{'));
  std::vector<std::string> out;
  std::string word;
  for (const char c : name) {
    if (c == '.' || c == '_') {
      if (!word.empty() && word != "server") out.push_back(word);
      word.clear();
    } else {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  if (!word.empty() && word != "server") out.push_back(word);
  return out;
}

bool beam_word(std::string_view w) { return w == "beam" || w == "erlang" || w == "vm"; }

bool words_match(std::string_view a, std::string_view b) {
  if (a == b) return true;
  if (beam_word(a) && beam_word(b)) return true;
  const std::size_t shorter = std::min(a.size(), b.size());
  if (shorter >= 3 && (a.starts_with(b) || b.starts_with(a))) return true;
  return shorter >= 4 && edit_distance(a, b) <= 1;
}

}  // namespace

std::vector<std::string> closest_by_words(std::string_view wanted, const std::vector<std::string>& known,
                                          std::size_t max_results) {
  const std::vector<std::string> want = words_of(wanted);
  if (want.empty()) return {};
  const std::size_t needed = std::max<std::size_t>(1, (want.size() + 1) / 2);
  std::vector<std::tuple<std::size_t, std::size_t, std::string>> candidates;  // (-matched, edits, family)
  for (const std::string& name : known) {
    const std::string family(std::string_view(name).substr(0, name.find('{')));
    if (family == wanted) continue;
    const std::vector<std::string> have = words_of(family);
    std::size_t matched = 0;
    for (const std::string& w : want) {
      if (std::any_of(have.begin(), have.end(), [&](const std::string& h) { return words_match(w, h); })) ++matched;
    }
    if (matched < needed) continue;
    candidates.emplace_back(want.size() - matched, edit_distance(wanted, family), family);
  }
  std::sort(candidates.begin(), candidates.end());
  std::vector<std::string> out;
  for (const auto& candidate : candidates) {
    if (std::get<0>(candidate) != std::get<0>(candidates.front())) break;  // only the best-matched
    const std::string& family = std::get<2>(candidate);
    if (std::find(out.begin(), out.end(), family) != out.end()) continue;
    if (out.size() == max_results) break;
    out.push_back(family);
  }
  return out;
}

}  // namespace stampede
