#include "proto/liveview_rendered_check.hpp"

#include <boost/json.hpp>

#include <map>
#include <utility>

#include "proto/liveview_rendered_stream.hpp"

namespace stampede::proto::lv::detail {

namespace json = boost::json;

bool Checker::dynamic(const json::value& v, const Dynamic* old, const json::object* table, std::size_t depth) {
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

bool Checker::full_node(const json::object& o, const json::object* table, std::size_t depth) {
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

bool Checker::partial_node(const json::object& o, const Node& old, const json::object* table, std::size_t depth) {
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

bool Checker::stream(const json::object& o) {
  const json::value* value = o.if_contains("stream");
  if (value == nullptr) return true;
  StreamOps ops;
  const std::string problem = parse_stream(*value, ops);
  return problem.empty() || fail(problem);
}

std::string Checker::path() const {
  std::string out;
  for (const std::string& step : path_) {
    if (!out.empty()) out += '/';
    out += step;
  }
  return out;
}

bool Checker::fail(std::string message) {
  if (error.empty()) error = std::move(message);
  return false;
}

bool Checker::within_budget() {
  if (added.nodes > kMaxNodes) return fail("the diff holds more than " + index_key(kMaxNodes) + " templates and items");
  if (added.bytes > kMaxHtmlBytes) return fail("the diff renders more than " + index_key(kMaxHtmlBytes >> 20) + " MiB");
  return true;
}

bool Checker::own_table(const json::object& o, const json::object*& own) {
  const json::value* p = o.if_contains("p");
  if (p == nullptr) return true;
  own = p->if_object();
  return own != nullptr || fail("\"p\" must be an object of templates");
}

const json::array* Checker::resolve_statics(const json::value& s, const json::object* table, std::size_t& bytes) {
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

bool Checker::keyed_count(const json::object& keyed, std::size_t most, std::size_t& count) {
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

bool Checker::full_entries(const json::value& d, std::size_t slots, std::size_t fixed, const json::object* table,
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

bool Checker::entry_diff(const json::object& o, const Dynamics* base, std::size_t slots, const json::object* table,
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

bool Checker::partial_comprehension(const json::object& o, const Node& old, const json::object* entry_table,
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

bool Checker::keyed_diff(const json::object& keyed, const Node& old, std::size_t slots, std::size_t fixed,
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

}  // namespace stampede::proto::lv::detail
