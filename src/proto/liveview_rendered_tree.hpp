#pragma once
// The merged rendered tree of one LiveView, as Rendered keeps it (liveview_rendered.hpp): templates,
// comprehensions, stream items and components, with the totals every merge keeps current, and
// the small JSON readers the merge steps share. Internal to liveview_rendered*.cpp.
#include <boost/json/fwd.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <boost/json/string.hpp>
#include <boost/json/string_view.hpp>

#include "proto/liveview_page.hpp"

namespace stampede::proto::lv::detail {

namespace json = boost::json;

// Limits that keep a hostile or broken server from making the client allocate or render without
// bound (a real page is far below them). Depth: JSON nesting walked recursively. Nodes: templates,
// comprehension items and stream items held. Bytes: the rendered HTML, components included.
inline constexpr std::size_t kMaxDepth = 256;
inline constexpr std::size_t kMaxNodes = 1'000'000;
inline constexpr std::size_t kMaxHtmlBytes = std::size_t{64} << 20;
inline constexpr std::size_t kMaxComponentDepth = 32;
inline constexpr std::string_view kSupported = " (this client supports LiveView 0.20.x and 1.0 to 1.2)";

inline std::string_view sv(const json::string& s) { return {s.data(), s.size()}; }
inline std::string_view sv(json::string_view s) { return {s.data(), s.size()}; }

// "0", "1", ... (canonical decimal, no sign, no leading zero): a dynamic or item position.
std::optional<std::size_t> parse_index(std::string_view key);

std::optional<std::int64_t> as_integer(const json::value& v);

// A component id: a positive integer that fits an int.
std::optional<int> as_cid(std::int64_t n);

std::string index_key(std::size_t i);

const char* kind_name(const json::value& v);

struct Node;
using NodePtr = std::unique_ptr<Node>;
using Statics = std::shared_ptr<const std::vector<std::string>>;
// A dynamic: escaped HTML, a component reference (cid), or a nested template/comprehension.
using Dynamic = std::variant<std::string, int, NodePtr>;
using Dynamics = std::vector<Dynamic>;
// Rendered stream items keep their components as references, so a component the server updates
// later shows its new content where the DOM would patch it in place.
using Piece = std::variant<std::string, int>;

struct StreamItem {
  std::string id;
  std::vector<Piece> pieces;
};

struct Node {
  Statics statics;                     // N+1 strings around N dynamics (always set)
  bool comprehension = false;
  bool keyed = false;                  // comprehension sent as "k" (1.1+) rather than "d"
  Dynamics dynamics;                   // template: its N dynamics
  std::vector<Dynamics> entries;       // comprehension: N dynamics per item
  std::vector<StreamItem> stream_items;  // stream comprehension: the items the DOM keeps
  // Subtree totals, kept current by every merge (refresh): nodes held, HTML bytes (components
  // not expanded), component references.
  std::size_t nodes = 1;
  std::size_t bytes = 0;
  std::size_t cids = 0;
};

struct Stats {
  std::size_t nodes = 0;
  std::size_t bytes = 0;
  std::size_t cids = 0;
};

struct Component {
  NodePtr tree;
  std::vector<int> refs;  // components its tree references
};
using Components = std::map<int, Component>;

std::size_t statics_bytes(const std::vector<std::string>& statics);
void add_stats(const Dynamic& d, Stats& stats);
Stats entry_stats(const Dynamics& entry, std::size_t item_statics_bytes);
// Recomputes the node's totals from its children's (which are current).
void refresh(Node& node);

NodePtr copy_node(const Node& node);
Dynamic copy_dynamic(const Dynamic& d);
Dynamics copy_entry(const Dynamics& entry);

// Component references in document order (with repeats), skipping subtrees that hold none.
void collect_refs(const Node& node, std::vector<int>& refs);
void collect_refs(const Dynamic& d, std::vector<int>& refs);

// One LiveView's state: what the join and every diff since left.
struct State {
  bool joined = false;
  Version version;
  bool version_reported = false;
  std::string title;
  NodePtr root;
  Components components;
  std::vector<int> rendered;  // cids on the page, ascending
};

}  // namespace stampede::proto::lv::detail
