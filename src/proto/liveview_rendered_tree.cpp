#include "proto/liveview_rendered_tree.hpp"

#include <boost/json.hpp>

#include <charconv>
#include <limits>

namespace stampede::proto::lv::detail {

namespace json = boost::json;

// "0", "1", ... (canonical decimal, no sign, no leading zero): a dynamic or item position.
std::optional<std::size_t> parse_index(std::string_view key) {
  if (key.empty() || key.size() > 9 || (key.size() > 1 && key[0] == '0')) return std::nullopt;
  std::size_t value = 0;
  for (const char c : key) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + static_cast<std::size_t>(c - '0');
  }
  return value;
}

std::optional<std::int64_t> as_integer(const json::value& v) {
  if (v.is_int64()) return v.get_int64();
  if (v.is_uint64() && v.get_uint64() <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    return static_cast<std::int64_t>(v.get_uint64());
  }
  return std::nullopt;
}

// A component id: a positive integer that fits an int.
std::optional<int> as_cid(std::int64_t n) {
  if (n <= 0 || n > std::numeric_limits<int>::max()) return std::nullopt;
  return static_cast<int>(n);
}

std::string index_key(std::size_t i) {
  char buffer[24];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, i);
  (void)ec;
  return std::string(buffer, end);
}

const char* kind_name(const json::value& v) {
  switch (v.kind()) {
    case json::kind::null: return "null";
    case json::kind::bool_: return "a boolean";
    case json::kind::int64:
    case json::kind::uint64: return "an integer";
    case json::kind::double_: return "a number";
    case json::kind::string: return "a string";
    case json::kind::array: return "an array";
    case json::kind::object: return "an object";
  }
  return "a value";
}

std::size_t statics_bytes(const std::vector<std::string>& statics) {
  std::size_t total = 0;
  for (const std::string& s : statics) total += s.size();
  return total;
}

void add_stats(const Dynamic& d, Stats& stats) {
  if (const auto* text = std::get_if<std::string>(&d)) {
    stats.bytes += text->size();
  } else if (std::holds_alternative<int>(d)) {
    stats.cids += 1;
  } else if (const auto* node = std::get_if<NodePtr>(&d); node && *node) {
    stats.nodes += (*node)->nodes;
    stats.bytes += (*node)->bytes;
    stats.cids += (*node)->cids;
  }
}

Stats entry_stats(const Dynamics& entry, std::size_t item_statics_bytes) {
  Stats stats{1, item_statics_bytes, 0};
  for (const Dynamic& d : entry) add_stats(d, stats);
  return stats;
}

// Recomputes the node's totals from its children's (which are current).
void refresh(Node& node) {
  const std::size_t fixed = statics_bytes(*node.statics);
  Stats stats{1, 0, 0};
  if (node.comprehension) {
    for (const Dynamics& entry : node.entries) {
      const Stats item = entry_stats(entry, fixed);
      stats.nodes += item.nodes;
      stats.bytes += item.bytes;
      stats.cids += item.cids;
    }
    for (const StreamItem& item : node.stream_items) {
      stats.nodes += 1;
      for (const Piece& piece : item.pieces) {
        if (const auto* text = std::get_if<std::string>(&piece)) {
          stats.bytes += text->size();
        } else {
          stats.cids += 1;
        }
      }
    }
  } else {
    stats.bytes = fixed;
    for (const Dynamic& d : node.dynamics) add_stats(d, stats);
  }
  node.nodes = stats.nodes;
  node.bytes = stats.bytes;
  node.cids = stats.cids;
}

Dynamic copy_dynamic(const Dynamic& d) {
  if (const auto* node = std::get_if<NodePtr>(&d)) return *node ? copy_node(**node) : NodePtr{};
  if (const auto* text = std::get_if<std::string>(&d)) return *text;
  return std::get<int>(d);
}

Dynamics copy_entry(const Dynamics& entry) {
  Dynamics out;
  out.reserve(entry.size());
  for (const Dynamic& d : entry) out.push_back(copy_dynamic(d));
  return out;
}

NodePtr copy_node(const Node& node) {
  auto out = std::make_unique<Node>();
  out->statics = node.statics;
  out->comprehension = node.comprehension;
  out->keyed = node.keyed;
  out->dynamics = copy_entry(node.dynamics);
  out->entries.reserve(node.entries.size());
  for (const Dynamics& entry : node.entries) out->entries.push_back(copy_entry(entry));
  out->stream_items = node.stream_items;
  out->nodes = node.nodes;
  out->bytes = node.bytes;
  out->cids = node.cids;
  return out;
}

void collect_refs(const Dynamic& d, std::vector<int>& refs) {
  if (const int* cid = std::get_if<int>(&d)) {
    refs.push_back(*cid);
  } else if (const auto* node = std::get_if<NodePtr>(&d); node && *node && (*node)->cids > 0) {
    collect_refs(**node, refs);
  }
}

// Component references in document order (with repeats), skipping subtrees that hold none.
void collect_refs(const Node& node, std::vector<int>& refs) {
  if (node.cids == 0) return;
  for (const Dynamic& d : node.dynamics) collect_refs(d, refs);
  for (const Dynamics& entry : node.entries) {
    for (const Dynamic& d : entry) collect_refs(d, refs);
  }
  for (const StreamItem& item : node.stream_items) {
    for (const Piece& piece : item.pieces) {
      if (const int* cid = std::get_if<int>(&piece)) refs.push_back(*cid);
    }
  }
}

}  // namespace stampede::proto::lv::detail
