#pragma once
// Checking a diff against the state before anything changes (liveview_rendered.hpp: a refused
// diff leaves the state as it was). Internal to liveview_rendered*.cpp.
#include <boost/json/fwd.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "proto/liveview_rendered_tree.hpp"

namespace stampede::proto::lv::detail {

// Walks a diff against the current state without changing anything, and says whether applying
// it is safe: every template and component it needs exists, shapes fit, sizes stay in bounds.
// What passes here, Applier applies without further checks.
class Checker {
 public:
  std::string error;
  Stats added;                       // upper bound of what applying adds
  bool keyed_seen = false;
  std::vector<int> referenced;       // cids the diff points at

  bool dynamic(const json::value& v, const Dynamic* old, const json::object* table, std::size_t depth);

  // A template or comprehension sent whole (it has "s").
  bool full_node(const json::object& o, const json::object* table, std::size_t depth);

  // A diff for a node the state already holds (no "s").
  bool partial_node(const json::object& o, const Node& old, const json::object* table, std::size_t depth);

  bool stream(const json::object& o);

  std::string path() const;

 private:
  // Pushes a path step for error messages while in scope.
  struct Step {
    Step(std::vector<std::string>& path, std::string_view step) : path_(path) { path_.emplace_back(step); }
    ~Step() { path_.pop_back(); }
    Step(const Step&) = delete;
    Step& operator=(const Step&) = delete;
    std::vector<std::string>& path_;
  };

  bool fail(std::string message);

  bool within_budget();

  bool own_table(const json::object& o, const json::object*& own);

  // "s" as an array of strings, directly or through the template table. Adds its byte count.
  const json::array* resolve_statics(const json::value& s, const json::object* table, std::size_t& bytes);

  bool keyed_count(const json::object& keyed, std::size_t most, std::size_t& count);

  // "d": every item complete, as a list of N dynamics.
  bool full_entries(const json::value& d, std::size_t slots, std::size_t fixed, const json::object* table,
                    std::size_t depth);

  // One keyed item's dynamics, merged into `base` (nullptr: a new item, which must be complete).
  bool entry_diff(const json::object& o, const Dynamics* base, std::size_t slots, const json::object* table,
                  std::size_t depth);

  bool partial_comprehension(const json::object& o, const Node& old, const json::object* entry_table,
                             std::size_t depth);

  bool keyed_diff(const json::object& keyed, const Node& old, std::size_t slots, std::size_t fixed,
                  const json::object* table, std::size_t depth);

  std::vector<std::string> path_;
};

}  // namespace stampede::proto::lv::detail
