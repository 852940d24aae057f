#include "proto/liveview_rendered.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>
#include <utility>
#include <variant>

namespace stampede::proto::lv {
namespace {

namespace json = boost::json;

// Limits that keep a hostile or broken server from making the client allocate or render without
// bound (a real page is far below them). Depth: JSON nesting walked recursively. Nodes: templates,
// comprehension items and stream items held. Bytes: the rendered HTML, components included.
constexpr std::size_t kMaxDepth = 256;
constexpr std::size_t kMaxNodes = 1'000'000;
constexpr std::size_t kMaxHtmlBytes = std::size_t{64} << 20;
constexpr std::size_t kMaxComponentDepth = 32;
constexpr std::string_view kSupported = " (this client supports LiveView 0.20.x and 1.0 to 1.2)";

std::string_view sv(const json::string& s) { return {s.data(), s.size()}; }
std::string_view sv(json::string_view s) { return {s.data(), s.size()}; }

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

// ------------------------------------------------------------------------------------ the tree

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

std::size_t statics_bytes(const std::vector<std::string>& statics) {
  std::size_t total = 0;
  for (const std::string& s : statics) total += s.size();
  return total;
}

struct Stats {
  std::size_t nodes = 0;
  std::size_t bytes = 0;
  std::size_t cids = 0;
};

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

NodePtr copy_node(const Node& node);

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

void collect_refs(const Node& node, std::vector<int>& refs);

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

struct Component {
  NodePtr tree;
  std::vector<int> refs;  // components its tree references
};
using Components = std::map<int, Component>;

// ------------------------------------------------------------------------------------ streams

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

std::optional<std::int64_t> optional_integer(const json::value& v, bool& ok) {
  if (v.is_null()) return std::nullopt;
  const std::optional<std::int64_t> n = as_integer(v);
  if (!n) ok = false;
  return n;
}

// [ref, inserts, delete_ids, reset?]; inserts [[dom_id, at, limit, update_only?], ...] (0.20.4+)
// or {dom_id: [at, limit]} (0.20.0-0.20.3). "" or the error.
std::string parse_stream(const json::value& value, StreamOps& ops) {
  const json::array* parts = value.if_array();
  if (parts == nullptr || parts->size() < 3 || parts->size() > 4) {
    return "\"stream\" must be [ref, inserts, deletes] or [ref, inserts, deletes, reset] (the 0.18 form is not supported)";
  }
  const json::value& ref = (*parts)[0];
  if (ref.is_string()) {
    ops.ref = std::string(sv(ref.get_string()));
  } else if (const std::optional<std::int64_t> n = as_integer(ref)) {
    ops.ref = std::to_string(*n);
  } else {
    return "a stream ref must be a string";
  }
  bool ok = true;
  if (const json::array* inserts = (*parts)[1].if_array()) {
    for (const json::value& insert : *inserts) {
      const json::array* fields = insert.if_array();
      if (fields == nullptr || fields->size() < 2 || fields->size() > 4 || !(*fields)[0].is_string()) {
        return "a stream insert must be [dom_id, at, limit, update_only]";
      }
      StreamInsert& out = ops.inserts.emplace_back();
      out.id = std::string(sv((*fields)[0].get_string()));
      const std::optional<std::int64_t> at = as_integer((*fields)[1]);
      if (!at) return "a stream insert position must be an integer";
      out.at = *at;
      if (fields->size() > 2) out.limit = optional_integer((*fields)[2], ok);
      if (fields->size() > 3) {
        if (!(*fields)[3].is_bool()) return "a stream insert's update_only must be a boolean";
        out.update_only = (*fields)[3].get_bool();
      }
    }
  } else if (const json::object* insert_map = (*parts)[1].if_object()) {
    for (const json::key_value_pair& kv : *insert_map) {
      const json::array* fields = kv.value().if_array();
      if (fields == nullptr || fields->empty() || fields->size() > 2) return "a stream insert must be [at, limit]";
      StreamInsert& out = ops.inserts.emplace_back();
      out.id = std::string(sv(kv.key()));
      const std::optional<std::int64_t> at = as_integer((*fields)[0]);
      if (!at) return "a stream insert position must be an integer";
      out.at = *at;
      if (fields->size() > 1) out.limit = optional_integer((*fields)[1], ok);
    }
  } else {
    return "stream inserts must be a list";
  }
  if (!ok) return "a stream limit must be an integer or null";
  const json::array* deletes = (*parts)[2].if_array();
  if (deletes == nullptr) return "stream deletes must be a list of dom ids";
  for (const json::value& id : *deletes) {
    if (!id.is_string()) return "stream deletes must be a list of dom ids";
    ops.deletes.emplace_back(sv(id.get_string()));
  }
  if (parts->size() == 4) {
    if (!(*parts)[3].is_bool()) return "a stream reset flag must be a boolean";
    ops.reset = (*parts)[3].get_bool();
  }
  return {};
}

// ------------------------------------------------------------------------------------ rendering

// Where rendered HTML goes: the page string (components expanded) or stream item pieces
// (components kept as references).
class HtmlSink {
 public:
  HtmlSink(std::string& out, const Components& components, bool mark) : out_(out), components_(components), mark_(mark) {}
  void text(std::string_view s) { out_ += s; }
  void component(int cid);

 private:
  std::string& out_;
  const Components& components_;
  bool mark_;
  std::size_t depth_ = 0;
};

class PieceSink {
 public:
  explicit PieceSink(std::vector<Piece>& pieces) : pieces_(pieces) {}
  void text(std::string_view s) {
    if (s.empty()) return;
    if (pieces_.empty() || !std::holds_alternative<std::string>(pieces_.back())) pieces_.emplace_back(std::string());
    std::get<std::string>(pieces_.back()) += s;
  }
  void component(int cid) { pieces_.emplace_back(cid); }

 private:
  std::vector<Piece>& pieces_;
};

template <class Sink>
void render_node(const Node& node, Sink& sink);

template <class Sink>
void render_dynamic(const Dynamic& d, Sink& sink) {
  if (const auto* text = std::get_if<std::string>(&d)) {
    sink.text(*text);
  } else if (const int* cid = std::get_if<int>(&d)) {
    sink.component(*cid);
  } else if (const auto* node = std::get_if<NodePtr>(&d); node && *node) {
    render_node(**node, sink);
  }
}

template <class Sink>
void render_interleaved(const std::vector<std::string>& statics, const Dynamics& dynamics, Sink& sink) {
  sink.text(statics[0]);
  for (std::size_t i = 1; i < statics.size(); ++i) {
    if (i - 1 < dynamics.size()) render_dynamic(dynamics[i - 1], sink);
    sink.text(statics[i]);
  }
}

template <class Sink>
void render_node(const Node& node, Sink& sink) {
  const std::vector<std::string>& statics = *node.statics;
  if (!node.comprehension) {
    render_interleaved(statics, node.dynamics, sink);
    return;
  }
  for (const Dynamics& entry : node.entries) render_interleaved(statics, entry, sink);
  for (const StreamItem& item : node.stream_items) {
    for (const Piece& piece : item.pieces) {
      if (const auto* text = std::get_if<std::string>(&piece)) {
        sink.text(*text);
      } else {
        sink.component(std::get<int>(piece));
      }
    }
  }
}

// Where the root element of a component's HTML starts its attributes: after leading whitespace
// and comments, "<tag" (modifyRoot in rendered.js). npos when there is no such tag.
std::size_t root_tag_name_end(std::string_view html) {
  std::size_t i = 0;
  while (i < html.size()) {
    if (html[i] == ' ' || html[i] == '\n' || html[i] == '\t' || html[i] == '\r' || html[i] == '\f') {
      ++i;
    } else if (html.substr(i).starts_with("<!--")) {
      const std::size_t close = html.find("-->", i + 4);
      if (close == std::string_view::npos) return std::string_view::npos;
      i = close + 3;
    } else {
      break;
    }
  }
  if (i + 1 >= html.size() || html[i] != '<') return std::string_view::npos;
  const char first = html[i + 1];
  if (!((first >= 'a' && first <= 'z') || (first >= 'A' && first <= 'Z'))) return std::string_view::npos;
  std::size_t j = i + 1;
  while (j < html.size() && html[j] != ' ' && html[j] != '\n' && html[j] != '\t' && html[j] != '\r' &&
         html[j] != '\f' && html[j] != '>' && html[j] != '/') {
    ++j;
  }
  return j;
}

void HtmlSink::component(int cid) {
  const auto it = components_.find(cid);
  // Merges keep every referenced component present and the graph acyclic and shallow; the
  // checks here only make rendering safe whatever happens.
  if (it == components_.end() || !it->second.tree || depth_ > kMaxComponentDepth) return;
  const std::size_t start = out_.size();
  ++depth_;
  render_node(*it->second.tree, *this);
  --depth_;
  if (!mark_) return;
  const std::size_t name_end = root_tag_name_end(std::string_view(out_).substr(start));
  if (name_end == std::string_view::npos) return;
  out_.insert(start + name_end, " data-phx-component=\"" + std::to_string(cid) + "\"");
}

// The id of an item's root element, when the item starts with literal HTML.
std::string item_root_id(const std::vector<Piece>& pieces) {
  if (pieces.empty() || !std::holds_alternative<std::string>(pieces.front())) return {};
  std::string id;
  scan_html(std::get<std::string>(pieces.front()), [&](const HtmlToken& token) {
    if (token.kind == HtmlToken::Kind::StartTag) {
      if (const std::string* value = find_attribute(token.attributes, "id")) id = *value;
      return false;
    }
    return token.kind != HtmlToken::Kind::Text || token.raw.find_first_not_of(" \t\n\r\f") == std::string_view::npos;
  });
  return id;
}

// What the DOM does with a stream container's children for one diff (dom_patch.js): reset
// drops the old items, deletes drop theirs, then each rendered item is updated in place if its
// id is there, else inserted at its position (0 first, -1 last, n before the nth) unless it is
// update-only, and a limit trims from the end (positive) or the start (negative).
void apply_stream(Node& node, const StreamOps& ops, std::vector<StreamUpdate>& updates) {
  StreamUpdate& update = updates.emplace_back();
  update.ref = ops.ref;
  for (const StreamInsert& insert : ops.inserts) update.inserted_ids.push_back(insert.id);
  update.deleted_ids = ops.deletes;
  update.reset = ops.reset;
  if (node.entries.empty() && ops.deletes.empty() && !ops.reset) return;
  if (ops.reset) node.stream_items.clear();
  for (const std::string& id : ops.deletes) {
    std::erase_if(node.stream_items, [&](const StreamItem& item) { return item.id == id; });
  }
  const std::vector<std::string>& statics = *node.statics;
  for (std::size_t k = 0; k < node.entries.size(); ++k) {
    StreamItem item;
    PieceSink sink(item.pieces);
    render_interleaved(statics, node.entries[k], sink);
    item.id = item_root_id(item.pieces);
    if (item.id.empty() && k < ops.inserts.size()) item.id = ops.inserts[k].id;
    const StreamInsert* insert = nullptr;
    for (const StreamInsert& candidate : ops.inserts) {
      if (candidate.id == item.id) insert = &candidate;
    }
    auto existing = std::find_if(node.stream_items.begin(), node.stream_items.end(),
                                 [&](const StreamItem& kept) { return !item.id.empty() && kept.id == item.id; });
    if (existing != node.stream_items.end()) {
      existing->pieces = std::move(item.pieces);
      continue;
    }
    if (insert != nullptr && insert->update_only) continue;
    const std::int64_t at = insert ? insert->at : -1;
    auto& items = node.stream_items;
    if (at == 0) {
      items.insert(items.begin(), std::move(item));
    } else if (at > 0 && static_cast<std::uint64_t>(at) < items.size()) {
      items.insert(items.begin() + static_cast<std::ptrdiff_t>(at), std::move(item));
    } else {
      items.push_back(std::move(item));
    }
    if (insert != nullptr && insert->limit && *insert->limit != 0) {
      const std::int64_t limit = *insert->limit;
      if (limit < 0 && items.size() > static_cast<std::uint64_t>(-limit)) {
        items.erase(items.begin(), items.end() - static_cast<std::ptrdiff_t>(-limit));
      } else if (limit > 0 && items.size() > static_cast<std::uint64_t>(limit)) {
        items.erase(items.begin() + static_cast<std::ptrdiff_t>(limit), items.end());
      }
    }
  }
  // The JS drops a stream's entries once rendered; the DOM keeps the items (above).
  node.entries.clear();
}

// ------------------------------------------------------------------------------------ checking

// Walks a diff against the current state without changing anything, and says whether applying
// it is safe: every template and component it needs exists, shapes fit, sizes stay in bounds.
// What passes here, Applier applies without further checks.
class Checker {
 public:
  std::string error;
  Stats added;                       // upper bound of what applying adds
  bool keyed_seen = false;
  std::vector<int> referenced;       // cids the diff points at

  bool dynamic(const json::value& v, const Dynamic* old, const json::object* table, std::size_t depth) {
    if (depth > kMaxDepth) return fail("the diff is nested too deeply");
    switch (v.kind()) {
      case json::kind::string:
        added.bytes += v.get_string().size();
        return within_budget();
      case json::kind::int64:
      case json::kind::uint64: {
        const std::optional<std::int64_t> n = as_integer(v);
        const std::optional<int> cid = n ? as_cid(*n) : std::nullopt;
        if (!cid) return fail("a component reference must be a positive integer");
        referenced.push_back(*cid);
        return true;
      }
      case json::kind::object: {
        const json::object& o = v.get_object();
        if (o.contains("s")) return full_node(o, table, depth + 1);
        const NodePtr* node = old ? std::get_if<NodePtr>(old) : nullptr;
        if (node == nullptr || !*node) {
          return fail("a partial template (no \"s\") where there is no template to merge it into");
        }
        return partial_node(o, **node, table, depth + 1);
      }
      default:
        return fail(std::string("a dynamic must be a string, a component id or an object, not ") + kind_name(v));
    }
  }

  // A template or comprehension sent whole (it has "s").
  bool full_node(const json::object& o, const json::object* table, std::size_t depth) {
    if (depth > kMaxDepth) return fail("the diff is nested too deeply");
    const json::object* own = nullptr;
    if (!own_table(o, own)) return false;
    added.nodes += 1;
    const json::value* d = o.if_contains("d");
    const json::value* k = o.if_contains("k");
    if (d != nullptr || k != nullptr) {
      if (d != nullptr && k != nullptr) return fail("a comprehension with both \"d\" and \"k\"");
      std::size_t fixed = 0;
      const json::array* statics = resolve_statics(o.at("s"), table, fixed);  // the enclosing table
      if (statics == nullptr) return false;
      const std::size_t slots = statics->size() - 1;
      const json::object* entry_table = table ? table : own;
      if (d != nullptr) {
        if (!full_entries(*d, slots, fixed, entry_table, depth)) return false;
      } else {
        keyed_seen = true;
        const json::object* keyed = k->if_object();
        if (keyed == nullptr) return fail("\"k\" must be an object");
        std::size_t count = 0;
        if (!keyed_count(*keyed, keyed->size(), count)) return false;
        for (std::size_t pos = 0; pos < count; ++pos) {
          const std::string key = index_key(pos);
          const json::value* entry = keyed->if_contains(key);
          const Step step(path_, "k/" + key);
          if (entry == nullptr) return fail("a new comprehension lacks item " + key);
          if (!entry->is_object()) return fail("a new comprehension's items must be objects of dynamics");
          added.nodes += 1;
          added.bytes += fixed;
          if (!entry_diff(entry->get_object(), nullptr, slots, entry_table, depth)) return false;
        }
      }
      return stream(o);
    }
    const json::object* here = own ? own : table;
    std::size_t fixed = 0;
    const json::array* statics = resolve_statics(o.at("s"), here, fixed);
    if (statics == nullptr) return false;
    added.bytes += fixed;
    const std::size_t slots = statics->size() - 1;
    std::size_t seen = 0;
    for (const json::key_value_pair& kv : o) {
      const std::optional<std::size_t> index = parse_index(sv(kv.key()));
      if (!index) continue;
      const Step step(path_, sv(kv.key()));
      if (*index >= slots) return fail("dynamic " + index_key(*index) + " of a template with " + index_key(slots) + " slots");
      ++seen;
      if (!dynamic(kv.value(), nullptr, here, depth + 1)) return false;
    }
    if (seen != slots) return fail("a new template with " + index_key(slots) + " slots has only " + index_key(seen) + " dynamics");
    return within_budget();
  }

  // A diff for a node the state already holds (no "s").
  bool partial_node(const json::object& o, const Node& old, const json::object* table, std::size_t depth) {
    if (depth > kMaxDepth) return fail("the diff is nested too deeply");
    const json::object* own = nullptr;
    if (!own_table(o, own)) return false;
    if (old.comprehension) return partial_comprehension(o, old, table ? table : own, depth);
    if (o.contains("d") || o.contains("k")) return fail("a comprehension diff for a dynamic that holds a template");
    const json::object* here = own ? own : table;
    for (const json::key_value_pair& kv : o) {
      const std::optional<std::size_t> index = parse_index(sv(kv.key()));
      if (!index) continue;
      const Step step(path_, sv(kv.key()));
      if (*index >= old.dynamics.size()) {
        return fail("dynamic " + index_key(*index) + " of a template with " + index_key(old.dynamics.size()) + " slots");
      }
      if (!dynamic(kv.value(), &old.dynamics[*index], here, depth + 1)) return false;
    }
    return true;
  }

  bool stream(const json::object& o) {
    const json::value* value = o.if_contains("stream");
    if (value == nullptr) return true;
    StreamOps ops;
    const std::string problem = parse_stream(*value, ops);
    return problem.empty() || fail(problem);
  }

  std::string path() const {
    std::string out;
    for (const std::string& step : path_) {
      if (!out.empty()) out += '/';
      out += step;
    }
    return out;
  }

 private:
  // Pushes a path step for error messages while in scope.
  struct Step {
    Step(std::vector<std::string>& path, std::string_view step) : path_(path) { path_.emplace_back(step); }
    ~Step() { path_.pop_back(); }
    Step(const Step&) = delete;
    Step& operator=(const Step&) = delete;
    std::vector<std::string>& path_;
  };

  bool fail(std::string message) {
    if (error.empty()) error = std::move(message);
    return false;
  }

  bool within_budget() {
    if (added.nodes > kMaxNodes) return fail("the diff holds more than " + index_key(kMaxNodes) + " templates and items");
    if (added.bytes > kMaxHtmlBytes) return fail("the diff renders more than " + index_key(kMaxHtmlBytes >> 20) + " MiB");
    return true;
  }

  bool own_table(const json::object& o, const json::object*& own) {
    const json::value* p = o.if_contains("p");
    if (p == nullptr) return true;
    own = p->if_object();
    return own != nullptr || fail("\"p\" must be an object of templates");
  }

  // "s" as an array of strings, directly or through the template table. Adds its byte count.
  const json::array* resolve_statics(const json::value& s, const json::object* table, std::size_t& bytes) {
    const json::array* statics = s.if_array();
    if (statics == nullptr) {
      const std::optional<std::int64_t> n = as_integer(s);
      if (!n) {
        fail(std::string("\"s\" must be a list of strings or a template number, not ") + kind_name(s));
        return nullptr;
      }
      if (table == nullptr) {
        fail("template " + std::to_string(*n) + " is referenced but this part of the diff has no template table \"p\"");
        return nullptr;
      }
      const json::value* entry = *n >= 0 ? table->if_contains(std::to_string(*n)) : nullptr;
      if (entry == nullptr) {
        fail("template " + std::to_string(*n) + " is missing from the template table \"p\"");
        return nullptr;
      }
      statics = entry->if_array();
      if (statics == nullptr) {
        fail("template " + std::to_string(*n) + " is not a list of strings");
        return nullptr;
      }
    }
    if (statics->empty()) {
      fail("statics must hold at least one string");
      return nullptr;
    }
    for (const json::value& part : *statics) {
      if (!part.is_string()) {
        fail("statics must be strings");
        return nullptr;
      }
      bytes += part.get_string().size();
    }
    return statics;
  }

  bool keyed_count(const json::object& keyed, std::size_t most, std::size_t& count) {
    const json::value* kc = keyed.if_contains("kc");
    const std::optional<std::int64_t> n = kc ? as_integer(*kc) : std::nullopt;
    if (!n || *n < 0) return fail("a keyed comprehension needs a count \"kc\"");
    // Every item past the old ones must be sent, so kc is bounded by what the diff holds.
    if (static_cast<std::uint64_t>(*n) > most) {
      return fail("\"kc\" " + std::to_string(*n) + " counts items the diff does not send");
    }
    count = static_cast<std::size_t>(*n);
    return true;
  }

  // "d": every item complete, as a list of N dynamics.
  bool full_entries(const json::value& d, std::size_t slots, std::size_t fixed, const json::object* table,
                    std::size_t depth) {
    const json::array* items = d.if_array();
    if (items == nullptr) return fail("\"d\" must be a list of items");
    for (std::size_t i = 0; i < items->size(); ++i) {
      const Step step(path_, "d/" + index_key(i));
      const json::array* item = (*items)[i].if_array();
      if (item == nullptr || item->size() != slots) {
        return fail("an item of \"d\" must be a list of " + index_key(slots) + " dynamics");
      }
      added.nodes += 1;
      added.bytes += fixed;
      for (const json::value& v : *item) {
        if (!dynamic(v, nullptr, table, depth + 1)) return false;
      }
    }
    return within_budget();
  }

  // One keyed item's dynamics, merged into `base` (nullptr: a new item, which must be complete).
  bool entry_diff(const json::object& o, const Dynamics* base, std::size_t slots, const json::object* table,
                  std::size_t depth) {
    std::size_t seen = 0;
    for (const json::key_value_pair& kv : o) {
      const std::optional<std::size_t> index = parse_index(sv(kv.key()));
      if (!index) continue;
      const Step step(path_, sv(kv.key()));
      if (*index >= slots) return fail("dynamic " + index_key(*index) + " of an item with " + index_key(slots) + " slots");
      ++seen;
      if (!dynamic(kv.value(), base ? &(*base)[*index] : nullptr, table, depth + 1)) return false;
    }
    if (base == nullptr && seen != slots) return fail("a new item has " + index_key(seen) + " of its " + index_key(slots) + " dynamics");
    return within_budget();
  }

  bool partial_comprehension(const json::object& o, const Node& old, const json::object* entry_table,
                             std::size_t depth) {
    const std::size_t slots = old.statics->size() - 1;
    const std::size_t fixed = statics_bytes(*old.statics);
    const json::value* d = o.if_contains("d");
    const json::value* k = o.if_contains("k");
    if (d != nullptr && k != nullptr) return fail("a comprehension with both \"d\" and \"k\"");
    if (d != nullptr) {
      if (old.keyed) return fail("\"d\" for a keyed comprehension");
      if (!full_entries(*d, slots, fixed, entry_table, depth)) return false;
    }
    if (k != nullptr) {
      if (!old.keyed && !old.entries.empty()) return fail("\"k\" for a comprehension sent as \"d\"");
      keyed_seen = true;
      const json::object* keyed = k->if_object();
      if (keyed == nullptr) return fail("\"k\" must be an object");
      if (!keyed_diff(*keyed, old, slots, fixed, entry_table, depth)) return false;
    }
    return stream(o);
  }

  bool keyed_diff(const json::object& keyed, const Node& old, std::size_t slots, std::size_t fixed,
                  const json::object* table, std::size_t depth) {
    const std::size_t old_count = old.entries.size();
    std::size_t count = 0;
    if (!keyed_count(keyed, old_count + keyed.size(), count)) return false;
    std::vector<bool> sent(count > old_count ? count - old_count : 0, false);
    std::map<std::size_t, std::size_t> moves;  // old position -> how many items take it
    for (const json::key_value_pair& kv : keyed) {
      const std::optional<std::size_t> pos = parse_index(sv(kv.key()));
      if (!pos || *pos >= count) continue;  // kc, km, and items the count drops
      const Step step(path_, "k/" + std::string(sv(kv.key())));
      const json::value& entry = kv.value();
      if (const std::optional<std::int64_t> from = as_integer(entry)) {
        if (*from < 0 || static_cast<std::uint64_t>(*from) >= old_count) return fail("an item moves from a position that did not exist");
        ++moves[static_cast<std::size_t>(*from)];
      } else if (const json::array* moved = entry.if_array()) {
        const std::optional<std::int64_t> source = moved->size() == 2 ? as_integer((*moved)[0]) : std::nullopt;
        if (!source || !(*moved)[1].is_object()) return fail("a moved item must be [old_position, diff]");
        if (*source < 0 || static_cast<std::uint64_t>(*source) >= old_count) return fail("an item moves from a position that did not exist");
        ++moves[static_cast<std::size_t>(*source)];
        if (!entry_diff((*moved)[1].get_object(), &old.entries[static_cast<std::size_t>(*source)], slots, table, depth)) return false;
      } else if (const json::object* diff = entry.if_object()) {
        const bool is_new = *pos >= old_count;
        if (is_new) {
          added.nodes += 1;
          added.bytes += fixed;
        }
        if (!entry_diff(*diff, is_new ? nullptr : &old.entries[*pos], slots, table, depth)) return false;
      } else {
        return fail(std::string("a keyed item must be an object, an old position or [old_position, diff], not ") + kind_name(entry));
      }
      if (*pos >= old_count) sent[*pos - old_count] = true;
    }
    for (std::size_t i = 0; i < sent.size(); ++i) {
      if (!sent[i]) return fail("\"kc\" " + index_key(count) + " but new item " + index_key(old_count + i) + " is not sent");
    }
    // An old item taken by several positions (or by one and kept at its own) is copied.
    for (const auto& [from, takers] : moves) {
      bool kept = false;
      if (from < count) {
        const json::value* own = keyed.if_contains(index_key(from));
        kept = own == nullptr || own->is_object();
      }
      const std::size_t copies = takers + (kept ? 1 : 0) - 1;
      if (copies == 0) continue;
      const Stats stats = entry_stats(old.entries[from], fixed);
      added.nodes += stats.nodes * copies;
      added.bytes += stats.bytes * copies;
      if (!within_budget()) return false;
    }
    return within_budget();
  }

  std::vector<std::string> path_;
};

// ------------------------------------------------------------------------------------ applying

// Applies what Checker accepted. Statics arrays are turned into shared vectors once per diff, so
// every node built from the same template shares them.
class Applier {
 public:
  std::vector<StreamUpdate> streams;  // what the applied stream operations were, in order

  NodePtr build_node(const json::object& o, const json::object* table) {
    auto node = std::make_unique<Node>();
    const json::value* p = o.if_contains("p");
    const json::object* own = p ? p->if_object() : nullptr;
    const json::value* d = o.if_contains("d");
    const json::value* k = o.if_contains("k");
    if (d != nullptr || k != nullptr) {
      node->comprehension = true;
      node->statics = statics(o.at("s"), table);
      const std::size_t slots = node->statics->size() - 1;
      const json::object* entry_table = table ? table : own;
      if (d != nullptr) {
        build_entries(d->get_array(), slots, entry_table, node->entries);
      } else {
        node->keyed = true;
        const json::object& keyed = k->get_object();
        const std::size_t count = static_cast<std::size_t>(*as_integer(keyed.at("kc")));
        node->entries.reserve(count);
        for (std::size_t pos = 0; pos < count; ++pos) {
          node->entries.push_back(build_entry(keyed.at(index_key(pos)).get_object(), slots, entry_table));
        }
      }
      stream(o, *node);
    } else {
      const json::object* here = own ? own : table;
      node->statics = statics(o.at("s"), here);
      node->dynamics.resize(node->statics->size() - 1);
      for (const json::key_value_pair& kv : o) {
        if (const std::optional<std::size_t> index = parse_index(sv(kv.key()))) {
          node->dynamics[*index] = build(kv.value(), here);
        }
      }
    }
    refresh(*node);
    return node;
  }

  // Merges a diff without "s" into `node`.
  void merge_node(const json::object& o, Node& node, const json::object* table) {
    const json::value* p = o.if_contains("p");
    const json::object* own = p ? p->if_object() : nullptr;
    if (node.comprehension) {
      const json::object* entry_table = table ? table : own;
      if (const json::value* d = o.if_contains("d")) {
        node.entries.clear();
        build_entries(d->get_array(), node.statics->size() - 1, entry_table, node.entries);
      }
      if (const json::value* k = o.if_contains("k")) merge_keyed(k->get_object(), node, entry_table);
      stream(o, node);
    } else {
      const json::object* here = own ? own : table;
      for (const json::key_value_pair& kv : o) {
        if (const std::optional<std::size_t> index = parse_index(sv(kv.key()))) {
          merge(kv.value(), node.dynamics[*index], here);
        }
      }
    }
    refresh(node);
  }

 private:
  Dynamic build(const json::value& v, const json::object* table) {
    if (v.is_string()) return std::string(sv(v.get_string()));
    if (v.is_object()) return build_node(v.get_object(), table);
    return static_cast<int>(*as_integer(v));
  }

  void merge(const json::value& v, Dynamic& slot, const json::object* table) {
    if (v.is_object() && !v.get_object().contains("s")) {
      merge_node(v.get_object(), *std::get<NodePtr>(slot), table);
    } else {
      slot = build(v, table);
    }
  }

  Dynamics build_entry(const json::object& o, std::size_t slots, const json::object* table) {
    Dynamics entry(slots);
    for (const json::key_value_pair& kv : o) {
      if (const std::optional<std::size_t> index = parse_index(sv(kv.key()))) entry[*index] = build(kv.value(), table);
    }
    return entry;
  }

  void merge_entry(const json::object& o, Dynamics& entry, const json::object* table) {
    for (const json::key_value_pair& kv : o) {
      if (const std::optional<std::size_t> index = parse_index(sv(kv.key()))) merge(kv.value(), entry[*index], table);
    }
  }

  void build_entries(const json::array& items, std::size_t slots, const json::object* table, std::vector<Dynamics>& out) {
    out.reserve(items.size());
    for (const json::value& item : items) {
      Dynamics entry;
      entry.reserve(slots);
      for (const json::value& v : item.get_array()) entry.push_back(build(v, table));
      out.push_back(std::move(entry));
    }
  }

  // Keyed items refer to old positions, so the old list is the source for every position and
  // is read before anything is written (an old item taken once is moved, else copied).
  void merge_keyed(const json::object& keyed, Node& node, const json::object* table) {
    enum class Take { Keep, Move, MoveDiff, Diff, New };
    struct Plan {
      Take take = Take::Keep;
      std::size_t from = 0;
      const json::object* diff = nullptr;
    };
    const std::size_t slots = node.statics->size() - 1;
    const std::size_t count = static_cast<std::size_t>(*as_integer(keyed.at("kc")));
    std::vector<Dynamics> old = std::move(node.entries);
    std::vector<Plan> plan(count);
    for (std::size_t pos = 0; pos < count; ++pos) plan[pos].from = pos;
    for (const json::key_value_pair& kv : keyed) {
      const std::optional<std::size_t> pos = parse_index(sv(kv.key()));
      if (!pos || *pos >= count) continue;
      const json::value& entry = kv.value();
      Plan& step = plan[*pos];
      if (const std::optional<std::int64_t> from = as_integer(entry)) {
        step = {Take::Move, static_cast<std::size_t>(*from), nullptr};
      } else if (const json::array* moved = entry.if_array()) {
        step = {Take::MoveDiff, static_cast<std::size_t>(*as_integer((*moved)[0])), &(*moved)[1].get_object()};
      } else {
        step = {*pos < old.size() ? Take::Diff : Take::New, *pos, &entry.get_object()};
      }
    }
    std::vector<std::size_t> takers(old.size(), 0);
    for (const Plan& step : plan) {
      if (step.take != Take::New) ++takers[step.from];
    }
    std::vector<Dynamics> next;
    next.reserve(count);
    for (const Plan& step : plan) {
      if (step.take == Take::New) {
        next.push_back(build_entry(*step.diff, slots, table));
        continue;
      }
      Dynamics entry = --takers[step.from] == 0 ? std::move(old[step.from]) : copy_entry(old[step.from]);
      if (step.diff != nullptr) merge_entry(*step.diff, entry, table);
      next.push_back(std::move(entry));
    }
    node.entries = std::move(next);
    node.keyed = true;
  }

  void stream(const json::object& o, Node& node) {
    const json::value* value = o.if_contains("stream");
    if (value == nullptr) return;
    StreamOps ops;
    parse_stream(*value, ops);
    apply_stream(node, ops, streams);
  }

  Statics statics(const json::value& s, const json::object* table) {
    const json::array* array = s.is_array() ? &s.get_array() : &table->at(std::to_string(*as_integer(s))).get_array();
    Statics& shared = cache_[array];
    if (!shared) {
      auto strings = std::make_shared<std::vector<std::string>>();
      strings->reserve(array->size());
      for (const json::value& part : *array) strings->emplace_back(sv(part.get_string()));
      shared = std::move(strings);
    }
    return shared;
  }

  std::unordered_map<const json::array*, Statics> cache_;
};


// ------------------------------------------------------------------------------------ state

struct State {
  bool joined = false;
  Version version;
  bool version_reported = false;
  std::string title;
  NodePtr root;
  Components components;
  std::vector<int> rendered;  // cids on the page, ascending
};

json::value parse_json(std::string_view text, std::string& error) {
  json::parse_options options;
  options.max_depth = kMaxDepth + 8;
  boost::system::error_code ec;
  json::value value = json::parse(json::string_view(text.data(), text.size()), ec, {}, options);
  if (ec) error = "LiveView diff is not valid JSON: " + ec.message();
  return value;
}

std::string refused(const Checker& checker) {
  const std::string where = checker.path();
  return "LiveView diff refused" + (where.empty() ? std::string() : " at " + where) + ": " + checker.error +
         std::string(kSupported);
}

// "e": [[name, payload], [name, payload, true], ...]
std::string read_events(const json::value& value, std::vector<PushedEvent>& out) {
  const json::array* events = value.if_array();
  if (events == nullptr) return "LiveView diff refused: \"e\" must be a list of [event, payload]" + std::string(kSupported);
  for (const json::value& event : *events) {
    const json::array* fields = event.if_array();
    if (fields == nullptr || fields->size() < 2 || fields->size() > 3 || !(*fields)[0].is_string()) {
      return "LiveView diff refused: an event in \"e\" must be [name, payload] or [name, payload, true]" + std::string(kSupported);
    }
    PushedEvent& pushed = out.emplace_back();
    pushed.name = std::string(sv((*fields)[0].get_string()));
    pushed.payload_json = json::serialize((*fields)[1]);
    pushed.before_patch = fields->size() == 3 && (*fields)[2].is_bool() && (*fields)[2].get_bool();
  }
  return {};
}

// The component graph after a merge: every referenced component present, no reference loops, a
// bounded depth and rendered size. Fills `rendered` with the cids reachable from the root.
std::string check_graph(const State& state, std::vector<int>& rendered) {
  enum class Mark : std::uint8_t { Visiting, Done };
  struct Seen {
    Mark mark;
    std::size_t bytes;
    std::size_t height;
  };
  std::map<int, Seen> seen;
  std::string problem;
  const auto saturate = [](std::size_t a, std::size_t b) { return a > kMaxHtmlBytes - std::min(b, kMaxHtmlBytes) ? kMaxHtmlBytes + 1 : a + b; };
  std::function<bool(int, std::size_t, std::size_t&, std::size_t&)> visit = [&](int cid, std::size_t depth, std::size_t& bytes,
                                                                                 std::size_t& height) {
    if (depth > kMaxComponentDepth) {
      problem = "components are nested more than " + std::to_string(kMaxComponentDepth) + " deep";
      return false;
    }
    const auto known = seen.find(cid);
    if (known != seen.end()) {
      if (known->second.mark == Mark::Visiting) {
        problem = "component " + std::to_string(cid) + " contains itself";
        return false;
      }
      if (depth + known->second.height - 1 > kMaxComponentDepth) {
        problem = "components are nested more than " + std::to_string(kMaxComponentDepth) + " deep";
        return false;
      }
      bytes = known->second.bytes;
      height = known->second.height;
      return true;
    }
    const auto it = state.components.find(cid);
    if (it == state.components.end() || !it->second.tree) {
      problem = "component " + std::to_string(cid) + " is referenced but was never sent";
      return false;
    }
    seen[cid] = {Mark::Visiting, 0, 0};
    std::size_t total = it->second.tree->bytes;
    std::size_t deepest = 0;
    for (const int ref : it->second.refs) {
      std::size_t child_bytes = 0;
      std::size_t child_height = 0;
      if (!visit(ref, depth + 1, child_bytes, child_height)) return false;
      total = saturate(total, child_bytes);
      deepest = std::max(deepest, child_height);
    }
    seen[cid] = {Mark::Done, total, deepest + 1};
    bytes = total;
    height = deepest + 1;
    return true;
  };
  std::vector<int> root_refs;
  if (state.root) collect_refs(*state.root, root_refs);
  std::size_t total = state.root ? state.root->bytes : 0;
  for (const int cid : root_refs) {
    std::size_t bytes = 0;
    std::size_t height = 0;
    if (!visit(cid, 1, bytes, height)) return problem;
    total = saturate(total, bytes);
  }
  if (total > kMaxHtmlBytes) return "the page would render more than " + std::to_string(kMaxHtmlBytes >> 20) + " MiB";
  rendered.clear();
  for (const auto& [cid, mark] : seen) rendered.push_back(cid);
  return {};
}

Stats held(const State& state) {
  Stats stats;
  if (state.root) {
    stats.nodes += state.root->nodes;
    stats.bytes += state.root->bytes;
  }
  for (const auto& [cid, component] : state.components) {
    if (component.tree) {
      stats.nodes += component.tree->nodes;
      stats.bytes += component.tree->bytes;
    }
  }
  return stats;
}

// Checks the whole diff (root part and "c") against `state`, builds the components that
// replace or copy others, then applies. `state` is untouched when the returned error is
// non-empty, except for the after-apply graph check (then the caller drops the state).
struct MergeOutcome {
  std::string error;
  bool state_damaged = false;
  std::vector<StreamUpdate> streams;
};

MergeOutcome merge_into(State& state, const json::object& diff) {
  Checker checker;
  Applier applier;

  // The root part.
  const bool replaces_root = diff.contains("s");
  if (replaces_root) {
    if (!checker.full_node(diff, nullptr, 0)) return {refused(checker)};
  } else if (!state.root) {
    return {"LiveView join refused: \"rendered\" has no statics \"s\"" + std::string(kSupported)};
  } else if (!checker.partial_node(diff, *state.root, nullptr, 0)) {
    return {refused(checker)};
  }

  // Components: each entry of "c" resolved against the state before this diff, then stored.
  std::map<int, const json::object*> component_diffs;
  std::map<int, NodePtr> built;      // new trees for these cids
  std::set<int> merged_in_place;     // partial diffs applied to the stored tree
  if (const json::value* c = diff.if_contains("c")) {
    const json::object* entries = c->if_object();
    if (entries == nullptr) return {"LiveView diff refused: \"c\" must be an object" + std::string(kSupported)};
    std::set<int> shared_bases;  // cids whose new version another component copies ("s": n > 0)
    for (const json::key_value_pair& kv : *entries) {
      const std::optional<std::size_t> index = parse_index(sv(kv.key()));
      const std::optional<int> cid = index ? as_cid(static_cast<std::int64_t>(*index)) : std::nullopt;
      if (!cid) return {"LiveView diff refused: component id \"" + std::string(sv(kv.key())) + "\" in \"c\" is not a positive integer" + std::string(kSupported)};
      if (!kv.value().is_object()) return {"LiveView diff refused: component " + std::to_string(*cid) + " must be an object" + std::string(kSupported)};
      component_diffs[*cid] = &kv.value().get_object();
      if (const json::value* s = kv.value().get_object().if_contains("s")) {
        if (const std::optional<std::int64_t> n = as_integer(*s); n && *n > 0) shared_bases.insert(static_cast<int>(std::min<std::int64_t>(*n, std::numeric_limits<int>::max())));
      }
    }
    std::map<int, bool> resolving;  // cid -> finished
    std::string problem;
    int failed = 0;  // the component whose diff the checker refused
    std::function<bool(int)> resolve = [&](int cid) -> bool {
      failed = cid;
      const auto mark = resolving.find(cid);
      if (mark != resolving.end()) {
        if (!mark->second) problem = "components share statics in a loop through component " + std::to_string(cid);
        return mark->second;
      }
      resolving[cid] = false;
      const json::object& cdiff = *component_diffs.at(cid);
      const json::value* s = cdiff.if_contains("s");
      const std::optional<std::int64_t> base_ref = s ? as_integer(*s) : std::nullopt;
      const auto stored = state.components.find(cid);
      const Node* existing = stored != state.components.end() ? stored->second.tree.get() : nullptr;
      if (base_ref) {
        // Statics and shape from another component: n > 0 as this diff leaves it, n < 0 as the
        // state had it.
        const Node* base = nullptr;
        if (*base_ref > 0) {
          const std::optional<int> base_cid = as_cid(*base_ref);
          if (!base_cid || !component_diffs.contains(*base_cid)) {
            problem = "component " + std::to_string(cid) + " shares the statics of component " + std::to_string(*base_ref) + ", which this diff does not contain";
            return false;
          }
          if (!resolve(*base_cid)) return false;
          failed = cid;
          base = built.at(*base_cid).get();
        } else {
          const std::optional<int> base_cid = *base_ref < 0 ? as_cid(-*base_ref) : std::nullopt;
          const auto old = base_cid ? state.components.find(*base_cid) : state.components.end();
          if (old == state.components.end() || !old->second.tree) {
            problem = "component " + std::to_string(cid) + " shares the statics of component " + std::to_string(-*base_ref) + ", which is not held";
            return false;
          }
          base = old->second.tree.get();
        }
        if (!checker.partial_node(cdiff, *base, nullptr, 0)) return false;
        checker.added.nodes += base->nodes;
        checker.added.bytes += base->bytes;
        NodePtr tree = copy_node(*base);
        applier.merge_node(cdiff, *tree, nullptr);
        built[cid] = std::move(tree);
      } else if (s != nullptr) {
        if (!checker.full_node(cdiff, nullptr, 0)) return false;
        built[cid] = applier.build_node(cdiff, nullptr);
      } else {
        if (existing == nullptr) {
          problem = "component " + std::to_string(cid) + " is new but has no statics \"s\"";
          return false;
        }
        if (!checker.partial_node(cdiff, *existing, nullptr, 0)) return false;
        if (shared_bases.contains(cid)) {
          checker.added.nodes += existing->nodes;
          checker.added.bytes += existing->bytes;
          NodePtr tree = copy_node(*existing);
          applier.merge_node(cdiff, *tree, nullptr);
          built[cid] = std::move(tree);
        } else {
          merged_in_place.insert(cid);
        }
      }
      resolving[cid] = true;
      return true;
    };
    for (const auto& [cid, cdiff] : component_diffs) {
      if (!resolve(cid)) {
        if (checker.error.empty()) return {"LiveView diff refused: " + problem + std::string(kSupported)};
        const std::string where = checker.path();
        return {"LiveView diff refused in component " + std::to_string(failed) + (where.empty() ? std::string() : " at " + where) +
                ": " + checker.error + std::string(kSupported)};
      }
    }
  }

  for (const int cid : checker.referenced) {
    if (!state.components.contains(cid) && !component_diffs.contains(cid)) {
      return {"LiveView diff refused: it references component " + std::to_string(cid) + ", which was never sent" + std::string(kSupported)};
    }
  }
  const Stats before = held(state);
  if (before.nodes + checker.added.nodes > kMaxNodes) {
    return {"LiveView diff refused: the page would hold more than " + std::to_string(kMaxNodes) + " templates and items"};
  }
  if (before.bytes + checker.added.bytes > kMaxHtmlBytes) {
    return {"LiveView diff refused: the page would render more than " + std::to_string(kMaxHtmlBytes >> 20) + " MiB"};
  }

  // Everything checked: apply.
  if (replaces_root) {
    state.root = applier.build_node(diff, nullptr);
  } else {
    applier.merge_node(diff, *state.root, nullptr);
  }
  for (auto& [cid, tree] : built) {
    Component& component = state.components[cid];
    component.tree = std::move(tree);
    component.refs.clear();
    collect_refs(*component.tree, component.refs);
  }
  for (const int cid : merged_in_place) {
    Component& component = state.components.at(cid);
    applier.merge_node(*component_diffs.at(cid), *component.tree, nullptr);
    component.refs.clear();
    collect_refs(*component.tree, component.refs);
  }
  if (checker.keyed_seen && !state.version_reported && state.version < Version{1, 1, 0}) state.version = Version{1, 1, 0};

  std::vector<int> rendered;
  const std::string graph_problem = check_graph(state, rendered);
  if (!graph_problem.empty()) return {"LiveView diff refused: " + graph_problem + std::string(kSupported), true};
  state.rendered = std::move(rendered);
  return {{}, false, std::move(applier.streams)};
}

}  // namespace

struct Rendered::State : lv::State {};

// ------------------------------------------------------------------------------------ public

Rendered::Rendered() : state_(std::make_unique<State>()) {}
Rendered::~Rendered() = default;
Rendered::Rendered(Rendered&&) noexcept = default;
Rendered& Rendered::operator=(Rendered&&) noexcept = default;

std::string Rendered::merge_join(const json::value& response, DiffResult& out) {
  out = DiffResult{};
  const json::object* fields = response.if_object();
  const json::value* rendered = fields ? fields->if_contains("rendered") : nullptr;
  if (rendered == nullptr || !rendered->is_object()) {
    return "LiveView join reply has no \"rendered\" object" + std::string(kSupported);
  }
  auto fresh = std::make_unique<State>();
  fresh->version = Version{0, 20, 0};
  if (const json::value* reported = fields->if_contains("liveview_version"); reported && reported->is_string()) {
    const std::string text(sv(reported->get_string()));
    const std::optional<Version> version = parse_version(text);
    if (!version) return "LiveView join reply has an unreadable liveview_version \"" + text + "\"" + std::string(kSupported);
    if (*version < Version{0, 20, 0}) return "LiveView " + text + " is not supported" + std::string(kSupported);
    fresh->version = *version;
    fresh->version_reported = true;
  }
  // The join's top-level "r" is the root flag, not a reply; events and title apply as usual.
  // ("r", "e", "t" are not dynamic positions, so the tree walkers pass over them.)
  const json::object& diff = rendered->get_object();
  const json::value* events = diff.if_contains("e");
  if (events != nullptr) {
    const std::string problem = read_events(*events, out.events);
    if (!problem.empty()) {
      out = DiffResult{};
      return problem;
    }
  }
  if (const json::value* title = diff.if_contains("t"); title && title->is_string()) out.title = std::string(sv(title->get_string()));
  if (diff.contains("p") && diff.if_contains("s") && as_integer(diff.at("s")) && !fresh->version_reported) {
    fresh->version = Version{1, 1, 0};  // a top-level template table: 1.1 or later
  }
  MergeOutcome outcome = merge_into(*fresh, diff);
  if (!outcome.error.empty()) {
    out = DiffResult{};
    return outcome.error;
  }
  out.streams = std::move(outcome.streams);
  fresh->joined = true;
  if (out.title) fresh->title = *out.title;
  state_ = std::move(fresh);
  return {};
}

std::string Rendered::merge_join(std::string_view response_json, DiffResult& out) {
  std::string error;
  const json::value response = parse_json(response_json, error);
  if (!error.empty()) {
    out = DiffResult{};
    return error;
  }
  return merge_join(response, out);
}

std::string Rendered::merge_diff(const json::value& diff_value, DiffResult& out) {
  out = DiffResult{};
  if (!joined()) return "LiveView diff before a successful join";
  const json::object* fields = diff_value.if_object();
  if (fields == nullptr) return std::string("LiveView diff refused: a diff must be an object, not ") + kind_name(diff_value) + std::string(kSupported);
  DiffResult result;
  const json::object& diff = *fields;
  if (const json::value* reply = diff.if_contains("r")) result.reply_json = json::serialize(*reply);
  if (const json::value* events = diff.if_contains("e")) {
    const std::string problem = read_events(*events, result.events);
    if (!problem.empty()) return problem;
  }
  if (const json::value* title = diff.if_contains("t"); title && title->is_string()) result.title = std::string(sv(title->get_string()));
  const std::vector<int> before = state_->rendered;
  MergeOutcome outcome = merge_into(*state_, diff);
  if (!outcome.error.empty()) {
    if (outcome.state_damaged) state_ = std::make_unique<State>();  // see merge_diff in the header
    return outcome.error;
  }
  std::set_difference(before.begin(), before.end(), state_->rendered.begin(), state_->rendered.end(),
                      std::back_inserter(result.removed_cids));
  if (result.title) state_->title = *result.title;
  result.streams = std::move(outcome.streams);
  out = std::move(result);
  return {};
}

std::string Rendered::merge_diff(std::string_view diff_json, DiffResult& out) {
  std::string error;
  const json::value diff = parse_json(diff_json, error);
  if (!error.empty()) {
    out = DiffResult{};
    return error;
  }
  return merge_diff(diff, out);
}

bool Rendered::joined() const noexcept { return state_ && state_->joined; }

Version Rendered::version() const noexcept { return state_ ? state_->version : Version{}; }

const std::string& Rendered::title() const noexcept {
  static const std::string kNone;
  return state_ ? state_->title : kNone;
}

void Rendered::to_html(std::string& out, const RenderOptions& options) const {
  out.clear();
  if (!joined() || !state_->root) return;
  HtmlSink sink(out, state_->components, options.mark_components);
  render_node(*state_->root, sink);
}

std::string Rendered::to_html(const RenderOptions& options) const {
  std::string out;
  to_html(out, options);
  return out;
}

std::vector<int> Rendered::components() const {
  std::vector<int> cids;
  if (!state_) return cids;
  for (const auto& [cid, component] : state_->components) cids.push_back(cid);
  return cids;
}

std::vector<int> Rendered::rendered_components() const { return state_ ? state_->rendered : std::vector<int>{}; }

std::vector<int> Rendered::still_removed(std::span<const int> cids) const {
  std::vector<int> out;
  for (const int cid : cids) {
    if (!state_ || !std::binary_search(state_->rendered.begin(), state_->rendered.end(), cid)) out.push_back(cid);
  }
  return out;
}

void Rendered::prune_cids(std::span<const int> cids) {
  if (!state_) return;
  for (const int cid : cids) {
    if (!std::binary_search(state_->rendered.begin(), state_->rendered.end(), cid)) state_->components.erase(cid);
  }
}

std::optional<std::string> Rendered::text(std::string_view selector) const {
  return element_text(to_html(RenderOptions{.mark_components = true}), selector);
}

std::optional<Element> Rendered::find(std::string_view selector) const {
  return find_element(to_html(RenderOptions{.mark_components = true}), selector);
}

std::optional<Form> Rendered::form(std::string_view selector) const {
  return find_form(to_html(RenderOptions{.mark_components = true}), selector);
}

}  // namespace stampede::proto::lv
