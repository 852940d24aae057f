#include "target/presence_registry.hpp"

#include <algorithm>

#include "proto/json_string.hpp"

namespace stampede::target {
namespace {

void append_meta(std::string& out, const PresenceMeta& meta) {
  out += R"({"online_at":")";
  out += std::to_string(meta.online_at);
  out += R"(","phx_ref":)";
  proto::append_json_string(out, meta.phx_ref, "a presence phx_ref");
  out += '}';
}

void append_entry(std::string& out, std::string_view key, const std::vector<PresenceMeta>& metas) {
  proto::append_json_string(out, key, "a presence key");
  out += R"(:{"metas":[)";
  for (std::size_t i = 0; i < metas.size(); ++i) {
    if (i > 0) out += ',';
    append_meta(out, metas[i]);
  }
  out += "]}";
}

}  // namespace

std::string PresenceRegistry::track(const std::string& topic, const std::string& key, PresenceMeta meta) {
  std::lock_guard lock(mutex_);
  auto& presences = topics_[topic];
  presences[key].push_back(std::move(meta));
  return to_json(presences);
}

bool PresenceRegistry::untrack(const std::string& topic, const std::string& key, std::string_view phx_ref) {
  std::lock_guard lock(mutex_);
  const auto t = topics_.find(topic);
  if (t == topics_.end()) return false;
  const auto k = t->second.find(key);
  if (k == t->second.end()) return false;
  auto& metas = k->second;
  const auto m = std::find_if(metas.begin(), metas.end(), [&](const PresenceMeta& x) { return x.phx_ref == phx_ref; });
  if (m == metas.end()) return false;
  metas.erase(m);
  // Empty keys and topics are dropped, so a target that saw a million topics come and go
  // does not keep them.
  if (metas.empty()) t->second.erase(k);
  if (t->second.empty()) topics_.erase(t);
  return true;
}

std::string PresenceRegistry::state_json(const std::string& topic) const {
  std::lock_guard lock(mutex_);
  const auto t = topics_.find(topic);
  return t == topics_.end() ? std::string("{}") : to_json(t->second);
}

std::string PresenceRegistry::to_json(const Presences& presences) {
  std::string out = "{";
  bool first = true;
  for (const auto& [key, metas] : presences) {
    if (!first) out += ',';
    first = false;
    append_entry(out, key, metas);
  }
  out += '}';
  return out;
}

std::string presence_diff_json(std::string_view key, const PresenceMeta& meta, bool joined) {
  std::string entry = "{";
  append_entry(entry, key, {meta});
  entry += '}';
  return joined ? R"({"joins":)" + entry + R"(,"leaves":{}})" : R"({"joins":{},"leaves":)" + entry + "}";
}

}  // namespace stampede::target
