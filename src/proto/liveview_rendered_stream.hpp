#pragma once
// Streams in a diff ("stream": [ref, inserts, deletes, reset?]): reading the operations, and
// doing to a stream comprehension's items what the DOM does. Internal to liveview_rendered*.cpp.
#include <boost/json/fwd.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "proto/liveview_rendered.hpp"
#include "proto/liveview_rendered_tree.hpp"

namespace stampede::proto::lv::detail {

struct StreamInsert {
  std::string id;
  std::int64_t at = -1;
  std::optional<std::int64_t> limit;
  bool update_only = false;
};

struct StreamOps {
  std::string ref;
  std::vector<StreamInsert> inserts;
  std::vector<std::string> deletes;
  bool reset = false;
};

// [ref, inserts, delete_ids, reset?]; inserts [[dom_id, at, limit, update_only?], ...] (0.20.4+)
// or {dom_id: [at, limit]} (0.20.0-0.20.3). "" or the error.
std::string parse_stream(const boost::json::value& value, StreamOps& ops);

// What the DOM does with a stream container's children for one diff (dom_patch.js): reset
// drops the old items, deletes drop theirs, then each rendered item is updated in place if its
// id is there, else inserted at its position (0 first, -1 last, n before the nth) unless it is
// update-only, and a limit trims from the end (positive) or the start (negative).
void apply_stream(Node& node, const StreamOps& ops, std::vector<StreamUpdate>& updates);

}  // namespace stampede::proto::lv::detail
