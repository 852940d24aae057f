#include "proto/liveview_client_messages.hpp"

#include <boost/json/parse.hpp>

namespace stampede::proto::lv {
namespace {

namespace json = boost::json;

std::optional<json::object> parse_object(std::string_view text) {
  json::error_code ec;
  json::parse_options options;
  options.max_depth = 64;
  auto value = json::parse(text, ec, {}, options);
  if (ec || !value.is_object()) return std::nullopt;
  return std::move(value.as_object());
}

const json::string* string_at(const json::object& object, std::string_view key) {
  const auto* value = object.if_contains(key);
  return value != nullptr ? value->if_string() : nullptr;
}

// "user[_unused_name]" -> "user[name]", "_unused_tags[]" -> "tags[]": the twin the browser
// writes before an untouched field (encode_form_entries in liveview_events.hpp).
std::optional<std::string> unused_twin_of(std::string_view name) {
  constexpr std::string_view kPrefix = "_unused_";
  const auto open = name.rfind('[', name.size() > 2 && name.substr(name.size() - 2) == "[]" ? name.size() - 3 : name.npos);
  const auto segment_start = open == std::string_view::npos ? 0 : open + 1;
  if (name.substr(segment_start, kPrefix.size()) != kPrefix) return std::nullopt;
  std::string original(name.substr(0, segment_start));
  original += name.substr(segment_start + kPrefix.size());
  return original;
}

}  // namespace

std::optional<ClientJoin> read_client_join(std::string_view payload_json) {
  auto payload = parse_object(payload_json);
  if (!payload) return std::nullopt;
  ClientJoin join;
  if (const auto* url = string_at(*payload, "url")) {
    join.url = *url;
  } else if (const auto* redirect = string_at(*payload, "redirect")) {
    join.url = *redirect;
    join.redirect = true;
  }
  if (const auto* params = payload->if_contains("params"); params != nullptr && params->is_object())
    join.params = params->as_object();
  return join;
}

std::optional<ClientEvent> read_client_event(std::string_view payload_json) {
  auto payload = parse_object(payload_json);
  if (!payload) return std::nullopt;
  const auto* type = string_at(*payload, "type");
  const auto* event = string_at(*payload, "event");
  if (type == nullptr || event == nullptr) return std::nullopt;
  ClientEvent out;
  out.type = *type;
  out.event = *event;
  if (const auto* value = payload->if_contains("value")) out.value = *value;
  if (const auto* cid = payload->if_contains("cid")) {
    if (cid->is_int64()) out.cid = static_cast<int>(cid->get_int64());
    else if (cid->is_uint64()) out.cid = static_cast<int>(cid->get_uint64());
  }
  if (const auto* uploads = payload->if_contains("uploads")) {
    out.has_uploads = true;
    if (uploads->is_object()) out.uploads = uploads->as_object();
  }
  if (out.type != "form") return out;
  const auto* encoded = out.value.if_string();
  if (encoded == nullptr) return std::nullopt;
  for (auto& [name, value] : decode_form(*encoded)) {
    if (name == "_target") {
      out.target = value;  // LV < 1.0.6 appends it to the fields
    } else if (auto twin = unused_twin_of(name)) {
      out.unused.push_back(std::move(*twin));
    } else {
      out.fields.emplace_back(std::move(name), std::move(value));
    }
  }
  if (const auto* meta = payload->if_contains("meta"); meta != nullptr && meta->is_object()) {
    if (const auto* target = string_at(meta->as_object(), "_target")) out.target = *target;
  }
  return out;
}

std::optional<std::string> read_client_live_patch(std::string_view payload_json) {
  auto payload = parse_object(payload_json);
  if (!payload) return std::nullopt;
  const auto* url = string_at(*payload, "url");
  if (url == nullptr) return std::nullopt;
  return std::string(*url);
}

std::optional<ClientAllowUpload> read_client_allow_upload(std::string_view payload_json) {
  auto payload = parse_object(payload_json);
  if (!payload) return std::nullopt;
  const auto* ref = string_at(*payload, "ref");
  const auto* entries = payload->if_contains("entries");
  if (ref == nullptr || entries == nullptr || !entries->is_array()) return std::nullopt;
  ClientAllowUpload out;
  out.ref = *ref;
  for (const auto& item : entries->as_array()) {
    const auto* entry = item.if_object();
    if (entry == nullptr) return std::nullopt;
    ClientUploadEntry e;
    if (const auto* s = string_at(*entry, "ref")) e.ref = *s;
    if (const auto* s = string_at(*entry, "name")) e.name = *s;
    if (const auto* s = string_at(*entry, "type")) e.type = *s;
    if (const auto* size = entry->if_contains("size")) {
      if (size->is_uint64()) e.size = size->get_uint64();
      else if (size->is_int64() && size->get_int64() >= 0) e.size = static_cast<std::uint64_t>(size->get_int64());
      else if (size->is_double() && size->get_double() >= 0) e.size = static_cast<std::uint64_t>(size->get_double());
    }
    out.entries.push_back(std::move(e));
  }
  return out;
}

std::string upload_input_name(const json::object& uploads, std::string_view upload_ref) {
  const auto* entries = uploads.if_contains(upload_ref);
  if (entries == nullptr || !entries->is_array()) return {};
  for (const auto& item : entries->as_array()) {
    if (const auto* entry = item.if_object())
      if (const auto* path = string_at(*entry, "path")) return std::string(*path);
  }
  return {};
}

}  // namespace stampede::proto::lv
