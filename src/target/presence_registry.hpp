#pragma once
// Who is present on each presence:* topic, for the whole target (every worker's sockets),
// in the shapes Phoenix.Presence sends (../shared/phoenix-protocol.md §4.1):
//   presence_state  {"alice":{"metas":[{"online_at":"1719830000","phx_ref":"F9mz4V-7I3JAAAAB"}]}, ...}
//   presence_diff   {"joins":{"carol":{"metas":[...]}},"leaves":{}}
// Joins and leaves are rare next to messages, so one mutex guards it; the state a joining
// socket is sent is taken under the same lock as its own track, so it always includes itself.
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace stampede::target {

struct PresenceMeta {
  std::string phx_ref;       // 16 characters of URL-safe base64, unique per track
  std::int64_t online_at = 0;  // unix seconds; sent as a string
};

class PresenceRegistry {
 public:
  // Adds `meta` under `key` on `topic`; returns the topic's presence_state payload after it.
  std::string track(const std::string& topic, const std::string& key, PresenceMeta meta);
  // Removes the meta `phx_ref` from `key` on `topic`; false when it was not there.
  bool untrack(const std::string& topic, const std::string& key, std::string_view phx_ref);
  // The presence_state payload of `topic` ("{}" when nobody is there).
  std::string state_json(const std::string& topic) const;

 private:
  using Presences = std::map<std::string, std::vector<PresenceMeta>>;  // key -> metas, oldest first
  static std::string to_json(const Presences& presences);

  mutable std::mutex mutex_;
  std::unordered_map<std::string, Presences> topics_;
};

// The presence_diff payload for one key joining or leaving with one meta.
std::string presence_diff_json(std::string_view key, const PresenceMeta& meta, bool joined);

}  // namespace stampede::target
