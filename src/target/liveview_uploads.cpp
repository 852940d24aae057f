#include "target/liveview_uploads.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <string>

#include "proto/json_string.hpp"
#include "target/json_field.hpp"
#include "target/rendered_json.hpp"

namespace stampede::target {
namespace {

template <typename Keep>
std::string refs_where(const std::vector<LiveUploads::Entry>& entries, Keep keep) {
  std::string refs;
  for (const auto& entry : entries) {
    if (!keep(entry)) continue;
    if (!refs.empty()) refs.push_back(',');
    refs += entry.ref;
  }
  return refs;
}

}  // namespace

LiveUploads::Entry* LiveUploads::find(std::string_view entry_ref) {
  for (auto& entry : entries_) {
    if (entry.ref == entry_ref) return &entry;
  }
  return nullptr;
}

bool LiveUploads::put_entries(const boost::json::array& entries) {
  for (const auto& item : entries) {
    const auto* object = item.if_object();
    if (object == nullptr) return false;
    const auto* ref = string_at(*object, "ref");
    const auto* name = string_at(*object, "name");
    const auto* size = object->if_contains("size");
    if (ref == nullptr || name == nullptr || size == nullptr || !size->is_number()) return false;
    if (find(*ref) != nullptr) continue;
    boost::system::error_code ec;
    const auto declared = size->to_number<std::uint64_t>(ec);
    if (ec) return false;
    // A single-file input: the new file replaces the old one unless that one is uploading.
    if (entries_.size() >= kMaxEntries) {
      if (kMaxEntries != 1 || entries_.front().channel_joined) continue;
      entries_.clear();
    }
    Entry entry;
    entry.ref = std::string(*ref);
    entry.name = std::string(*name);
    entry.size = declared;
    if (declared > kMaxFileSize) entry.error = "too_large";
    entries_.push_back(std::move(entry));
  }
  return true;
}

bool LiveUploads::preflight(const std::function<std::string(const Entry&)>& sign, std::string& entries_json,
                            std::string& errors_json) {
  errors_json.clear();
  for (const auto& entry : entries_) {
    if (entry.error.empty()) continue;
    errors_json += errors_json.empty() ? "[[" : ",[";
    proto::append_json_string(errors_json, entry.ref, "an upload entry ref");
    errors_json.push_back(',');
    proto::append_json_string(errors_json, entry.error, "an upload error");
    errors_json.push_back(']');
  }
  if (!errors_json.empty()) {
    errors_json.push_back(']');
    return false;
  }
  entries_json = "{";
  for (auto& entry : entries_) {
    entry.preflighted = true;
    if (entries_json.size() > 1) entries_json.push_back(',');
    proto::append_json_string(entries_json, entry.ref, "an upload entry ref");
    entries_json.push_back(':');
    proto::append_json_string(entries_json, sign(entry), "an upload token");
  }
  entries_json.push_back('}');
  return true;
}

bool LiveUploads::consume(std::vector<Entry>& consumed) {
  for (const auto& entry : entries_) {
    if (entry.progress < 100 || entry.received != entry.size) return false;
  }
  consumed = std::move(entries_);
  entries_.clear();
  return true;
}

std::string LiveUploads::active_refs() const {
  return refs_where(entries_, [](const Entry&) { return true; });
}

std::string LiveUploads::done_refs() const {
  return refs_where(entries_, [](const Entry& e) { return e.progress >= 100; });
}

std::string LiveUploads::preflighted_refs() const {
  return refs_where(entries_, [](const Entry& e) { return e.preflighted; });
}

std::string upload_config_json(LiveViewDialect dialect) {
  const std::string limits = "\"max_entries\":" + std::to_string(LiveUploads::kMaxEntries) +
                             ",\"max_file_size\":" + std::to_string(LiveUploads::kMaxFileSize) + "}";
  const std::string chunk = "{\"chunk_size\":" + std::to_string(LiveUploads::kChunkSize) + ",";
  if (dialect == LiveViewDialect::V0_20) return chunk + limits;
  return chunk + "\"chunk_timeout\":" + std::to_string(LiveUploads::kChunkTimeout / kMilli) + "," + limits;
}

}  // namespace stampede::target
