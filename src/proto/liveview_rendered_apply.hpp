#pragma once
// Applying a diff the Checker accepted to the tree (liveview_rendered_check.hpp), without
// checking again. Internal to liveview_rendered*.cpp.
#include <boost/json/fwd.hpp>

#include <cstddef>
#include <unordered_map>
#include <vector>

#include "proto/liveview_rendered.hpp"
#include "proto/liveview_rendered_tree.hpp"

namespace stampede::proto::lv::detail {

// Applies what Checker accepted. Statics arrays are turned into shared vectors once per diff, so
// every node built from the same template shares them.
class Applier {
 public:
  std::vector<StreamUpdate> streams;  // what the applied stream operations were, in order

  NodePtr build_node(const json::object& o, const json::object* table);

  // Merges a diff without "s" into `node`.
  void merge_node(const json::object& o, Node& node, const json::object* table);

 private:
  Dynamic build(const json::value& v, const json::object* table);

  void merge(const json::value& v, Dynamic& slot, const json::object* table);

  Dynamics build_entry(const json::object& o, std::size_t slots, const json::object* table);

  void merge_entry(const json::object& o, Dynamics& entry, const json::object* table);

  void build_entries(const json::array& items, std::size_t slots, const json::object* table, std::vector<Dynamics>& out);

  // Keyed items refer to old positions, so the old list is the source for every position and
  // is read before anything is written (an old item taken once is moved, else copied).
  void merge_keyed(const json::object& keyed, Node& node, const json::object* table);

  void stream(const json::object& o, Node& node);

  Statics statics(const json::value& s, const json::object* table);

  std::unordered_map<const json::array*, Statics> cache_;
};

}  // namespace stampede::proto::lv::detail
