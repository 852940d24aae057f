#include "proto/liveview_rendered_apply.hpp"

#include <boost/json.hpp>

#include <memory>
#include <utility>

#include "proto/liveview_rendered_stream.hpp"

namespace stampede::proto::lv::detail {

namespace json = boost::json;

NodePtr Applier::build_node(const json::object& o, const json::object* table) {
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

void Applier::merge_node(const json::object& o, Node& node, const json::object* table) {
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

Dynamic Applier::build(const json::value& v, const json::object* table) {
  if (v.is_string()) return std::string(sv(v.get_string()));
  if (v.is_object()) return build_node(v.get_object(), table);
  return static_cast<int>(*as_integer(v));
}

void Applier::merge(const json::value& v, Dynamic& slot, const json::object* table) {
  if (v.is_object() && !v.get_object().contains("s")) {
    merge_node(v.get_object(), *std::get<NodePtr>(slot), table);
  } else {
    slot = build(v, table);
  }
}

Dynamics Applier::build_entry(const json::object& o, std::size_t slots, const json::object* table) {
  Dynamics entry(slots);
  for (const json::key_value_pair& kv : o) {
    if (const std::optional<std::size_t> index = parse_index(sv(kv.key()))) entry[*index] = build(kv.value(), table);
  }
  return entry;
}

void Applier::merge_entry(const json::object& o, Dynamics& entry, const json::object* table) {
  for (const json::key_value_pair& kv : o) {
    if (const std::optional<std::size_t> index = parse_index(sv(kv.key()))) merge(kv.value(), entry[*index], table);
  }
}

void Applier::build_entries(const json::array& items, std::size_t slots, const json::object* table, std::vector<Dynamics>& out) {
  out.reserve(items.size());
  for (const json::value& item : items) {
    Dynamics entry;
    entry.reserve(slots);
    for (const json::value& v : item.get_array()) entry.push_back(build(v, table));
    out.push_back(std::move(entry));
  }
}

void Applier::merge_keyed(const json::object& keyed, Node& node, const json::object* table) {
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

void Applier::stream(const json::object& o, Node& node) {
  const json::value* value = o.if_contains("stream");
  if (value == nullptr) return;
  StreamOps ops;
  parse_stream(*value, ops);
  apply_stream(node, ops, streams);
}

Statics Applier::statics(const json::value& s, const json::object* table) {
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

}  // namespace stampede::proto::lv::detail
