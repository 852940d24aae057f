#include "proto/liveview_events.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <vector>

#include "proto/form.hpp"

namespace stampede::proto::lv {
namespace {

namespace json = boost::json;

std::string_view text_view(const json::string& s) { return {s.data(), s.size()}; }
json::string_view jsv(std::string_view s) { return {s.data(), s.size()}; }

std::string to_json(const json::value& value) { return json::serialize(value); }

// JSON.stringify drops a cid that is not a number; the browser never sends "cid": null.
void put_cid(json::object& payload, std::optional<int> cid) {
  if (cid) payload["cid"] = *cid;
}

const json::value* field(const json::value& value, std::string_view key) {
  const json::object* object = value.if_object();
  return object ? object->if_contains(jsv(key)) : nullptr;
}

std::string string_field(const json::value& value, std::string_view key) {
  const json::value* found = field(value, key);
  return found && found->is_string() ? std::string(text_view(found->get_string())) : std::string();
}

std::optional<std::int64_t> integer(const json::value& v) {
  if (v.is_int64()) return v.get_int64();
  if (v.is_uint64() && v.get_uint64() <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    return static_cast<std::int64_t>(v.get_uint64());
  }
  if (v.is_double() && std::isfinite(v.get_double()) && v.get_double() == std::floor(v.get_double()) &&
      std::fabs(v.get_double()) < 9e15) {
    return static_cast<std::int64_t>(v.get_double());
  }
  return std::nullopt;
}

int int_field(const json::value& value, std::string_view key) {
  const json::value* found = field(value, key);
  const std::optional<std::int64_t> n = found ? integer(*found) : std::nullopt;
  return n && *n >= std::numeric_limits<int>::min() && *n <= std::numeric_limits<int>::max() ? static_cast<int>(*n) : 0;
}

// {"to", "kind"?, "flash"?, "status"?}
Navigation read_navigation(Navigation::Kind kind, const json::value& payload) {
  Navigation navigation;
  navigation.kind = kind;
  navigation.to = string_field(payload, "to");
  navigation.history = string_field(payload, "kind");
  navigation.flash = string_field(payload, "flash");
  navigation.status = int_field(payload, "status");
  return navigation;
}

// encodeURIComponent: keeps A-Z a-z 0-9 - _ . ! ~ * ' ( ), percent-encodes every other byte.
std::string encode_uri_component(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    const bool keep = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
                      c == '_' || c == '.' || c == '!' || c == '~' || c == '*' || c == '\'' || c == '(' || c == ')';
    if (keep) {
      out += ch;
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    }
  }
  return out;
}

// String(value) as URLSearchParams.append and template literals write it.
std::string js_string(const json::value& value) {
  if (value.is_string()) return std::string(text_view(value.get_string()));
  if (value.is_null()) return "null";
  if (value.is_bool()) return value.get_bool() ? "true" : "false";
  if (value.is_array()) {
    std::string out;
    for (std::size_t i = 0; i < value.get_array().size(); ++i) {
      if (i > 0) out += ',';
      const json::value& item = value.get_array()[i];
      if (!item.is_null()) out += js_string(item);
    }
    return out;
  }
  if (value.is_object()) return "[object Object]";
  return to_json(value);  // numbers
}

// phoenix.js Ajax.serialize: nested keys as key[sub], arrays as key[0], key[1]...
void serialize_param(std::string& out, const std::string& key, const json::value& value) {
  if (const json::object* object = value.if_object()) {
    for (const json::key_value_pair& kv : *object) serialize_param(out, key + "[" + std::string(text_view(kv.key())) + "]", kv.value());
    return;
  }
  if (const json::array* array = value.if_array()) {
    for (std::size_t i = 0; i < array->size(); ++i) serialize_param(out, key + "[" + std::to_string(i) + "]", (*array)[i]);
    return;
  }
  if (!out.empty()) out += '&';
  out += encode_uri_component(key);
  out += '=';
  out += encode_uri_component(js_string(value));
}

bool uses_meta(const Version& version) { return version >= Version{1, 0, 6}; }
bool sends_unused(const Version& version) { return version >= Version{1, 0, 0}; }

// user[name] -> user[_unused_name], email -> _unused_email, tags[] -> _unused_tags[]
// (prependFormDataKey in view.js: the last bracket-free run before an optional final "]").
std::string unused_key(std::string_view key) {
  const bool is_array = key.size() >= 2 && key.substr(key.size() - 2) == "[]";
  std::string base(is_array ? key.substr(0, key.size() - 2) : key);
  const std::size_t end = !base.empty() && base.back() == ']' ? base.size() - 1 : base.size();
  std::size_t start = end;
  while (start > 0 && base[start - 1] != '[' && base[start - 1] != ']') --start;
  if (start < end) base.insert(start, "_unused_");
  if (is_array) base += "[]";
  return base;
}

bool is_button_type(const FormControl& control) {
  if (control.tag == "button") return true;
  return control.tag == "input" && (control.type == "submit" || control.type == "image" || control.type == "reset" ||
                                    control.type == "button");
}

// String(el.value) for a numeric DOM value: integers without a decimal point.
json::value number_value(const std::string& text) {
  std::int64_t whole = 0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  if (auto [ptr, ec] = std::from_chars(begin, end, whole); ec == std::errc() && ptr == end) return whole;
  double real = 0;
  if (auto [ptr, ec] = std::from_chars(begin, end, real); ec == std::errc() && ptr == end) return real;
  return 0;
}

}  // namespace

// ------------------------------------------------------------------------------------ join

namespace {

json::object connect_params(const JoinParams& join) {
  json::object params;
  if (!join.csrf_token.empty()) params["_csrf_token"] = join.csrf_token;
  for (const json::key_value_pair& kv : join.extra_params) params[kv.key()] = kv.value();
  if (!join.track_static.empty()) {
    json::array urls;
    for (const std::string& url : join.track_static) urls.emplace_back(url);
    params["_track_static"] = std::move(urls);
  }
  params["_mounts"] = join.mounts;
  if (join.version >= Version{1, 0, 0}) params["_mount_attempts"] = join.mount_attempts;
  return params;
}

}  // namespace

std::string join_payload(const JoinParams& join) {
  json::object payload;
  if (!join.url.empty()) payload[join.redirect ? "redirect" : "url"] = join.url;
  json::object params = connect_params(join);
  if (!join.live_referer.empty()) params["_live_referer"] = join.live_referer;
  payload["params"] = std::move(params);
  payload["session"] = join.session;
  if (join.static_token.empty()) {
    payload["static"] = nullptr;
  } else {
    payload["static"] = join.static_token;
  }
  if (!join.flash.empty()) payload["flash"] = join.flash;
  if (join.version >= Version{1, 0, 10}) payload["sticky"] = join.sticky;
  return to_json(payload);
}

std::string socket_query(const JoinParams& join) {
  std::string out;
  for (const json::key_value_pair& kv : connect_params(join)) serialize_param(out, std::string(text_view(kv.key())), kv.value());
  // The LiveSocket puts its referer in the socket params too; there is none on a page load.
  serialize_param(out, "_live_referer", json::value(join.live_referer.empty() ? "undefined" : join.live_referer));
  out += "&vsn=2.0.0";
  return out;
}

// ------------------------------------------------------------------------------------ replies

JoinReply read_join_reply(std::string_view status, const json::value& response) {
  JoinReply reply;
  if (status == "ok") {
    const json::value* rendered = field(response, "rendered");
    reply.ok = rendered != nullptr && rendered->is_object();
    if (!reply.ok) reply.reason = "join reply without \"rendered\"";
    if (const json::value* version = field(response, "liveview_version"); version && version->is_string()) {
      reply.version = parse_version(text_view(version->get_string()));
    }
    if (const json::value* container = field(response, "container")) {
      const json::array* parts = container->if_array();
      if (parts && !parts->empty() && (*parts)[0].is_string()) {
        reply.container_tag = std::string(text_view((*parts)[0].get_string()));
        if (parts->size() > 1 && (*parts)[1].is_object()) {
          for (const json::key_value_pair& kv : (*parts)[1].get_object()) {
            reply.container_attributes.push_back({std::string(text_view(kv.key())), js_string(kv.value())});
          }
        }
      }
    }
    if (const json::value* patch = field(response, "live_patch"); patch && patch->is_object()) {
      reply.navigation = read_navigation(Navigation::Kind::LivePatch, *patch);
    }
    return reply;
  }
  reply.reason = string_field(response, "reason");
  if (const json::value* redirect = field(response, "redirect"); redirect && redirect->is_object()) {
    reply.navigation = read_navigation(Navigation::Kind::Redirect, *redirect);
  } else if (const json::value* live = field(response, "live_redirect"); live && live->is_object()) {
    reply.navigation = read_navigation(Navigation::Kind::LiveRedirect, *live);
  }
  reply.status = int_field(response, "status");
  reply.token = string_field(response, "token");
  if (reply.reason.empty() && reply.navigation.kind == Navigation::Kind::None) reply.reason = "join refused";
  return reply;
}

EventReply read_event_reply(const json::value& response) {
  EventReply reply;
  if (const json::value* diff = field(response, "diff"); diff && diff->is_object()) reply.diff = diff;
  reply.reply = field(response, "r");
  if (const json::value* redirect = field(response, "redirect"); redirect && redirect->is_object()) {
    reply.navigation = read_navigation(Navigation::Kind::Redirect, *redirect);
  } else if (const json::value* live = field(response, "live_redirect"); live && live->is_object()) {
    reply.navigation = read_navigation(Navigation::Kind::LiveRedirect, *live);
  }
  if (const json::value* link = field(response, "link_redirect"); link && link->is_bool()) reply.link_redirect = link->get_bool();
  if (const json::value* cids = field(response, "cids"); cids && cids->is_array()) {
    for (const json::value& cid : cids->get_array()) {
      const std::optional<std::int64_t> n = integer(cid);
      if (n && *n > 0 && *n <= std::numeric_limits<int>::max()) reply.cids.push_back(static_cast<int>(*n));
    }
  }
  return reply;
}

Navigation read_push(std::string_view event, const json::value& payload) {
  if (event == "redirect") return read_navigation(Navigation::Kind::Redirect, payload);
  if (event == "live_redirect") return read_navigation(Navigation::Kind::LiveRedirect, payload);
  if (event == "live_patch") return read_navigation(Navigation::Kind::LivePatch, payload);
  return {};
}

// ------------------------------------------------------------------------------------ events

std::string event_payload(std::string_view type, std::string_view event, const json::value& value, std::optional<int> cid) {
  json::object payload;
  payload["type"] = jsv(type);
  payload["event"] = jsv(event);
  payload["value"] = value;
  put_cid(payload, cid);
  return to_json(payload);
}

json::object element_value(const Element& element, const json::object* extra) {
  json::object value;
  constexpr std::string_view kPrefix = "phx-value-";
  for (const HtmlAttribute& attribute : element.attributes) {
    if (attribute.name.starts_with(kPrefix)) value[jsv(std::string_view(attribute.name).substr(kPrefix.size()))] = attribute.value;
  }
  if (element.value && element.tag != "form") {
    if (element.value_is_number) {
      value["value"] = number_value(*element.value);
    } else {
      value["value"] = *element.value;
    }
    std::string type;
    if (const std::string* declared = find_attribute(element.attributes, "type")) {
      for (const char c : *declared) type += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    if (element.tag == "input" && (type == "checkbox" || type == "radio") && !element.checked) value.erase("value");
  }
  if (extra != nullptr) {
    for (const json::key_value_pair& kv : *extra) value[kv.key()] = kv.value();
  }
  return value;
}

json::object key_value(std::string_view key, const Element& element) {
  json::object value;
  value["key"] = jsv(key);
  for (json::key_value_pair& kv : element_value(element)) value[kv.key()] = std::move(kv.value());
  return value;
}

std::optional<int> event_target_cid(const HtmlAttributes& attributes, std::string_view html) {
  const std::string* target = find_attribute(attributes, "phx-target");
  if (target == nullptr) return std::nullopt;
  // isCid: "0" or digits without a leading zero.
  const bool is_cid = !target->empty() && target->size() <= 9 && (target->size() == 1 || (*target)[0] != '0') &&
                      target->find_first_not_of("0123456789") == std::string::npos;
  if (is_cid) return std::stoi(*target);
  const std::optional<Element> element = find_element(html, *target);
  return element ? element->component : std::nullopt;
}

std::string hook_payload(std::string_view event, const json::value& payload, std::optional<int> cid) {
  return event_payload("hook", event, payload, cid);
}

// ------------------------------------------------------------------------------------ forms

std::vector<FormEntry> form_entries(const Form& form, FormPurpose purpose, const FormControl* submitter,
                                    std::string_view only_name) {
  // Per name, as serializeForm computes it over form.elements: unused unless some control of
  // that name was used (or opted out), hidden only if all of them are.
  std::map<std::string, std::pair<bool, bool>, std::less<>> per_name;  // name -> (unused, only hidden)
  for (const FormControl& control : form.controls) {
    if (control.name.empty()) continue;
    auto [it, inserted] = per_name.try_emplace(control.name, true, true);
    const bool used = control.used || control.no_unused_field || purpose == FormPurpose::Submit;
    it->second.first = it->second.first && !used;
    it->second.second = it->second.second && control.type == "hidden";
  }
  const bool form_opted_out = find_attribute(form.attributes, "phx-no-unused-field") != nullptr;

  std::vector<FormEntry> entries;
  const auto add = [&](const FormControl& control, const std::string& value) {
    if (!only_name.empty() && control.name != only_name) return;
    const auto& [unused, hidden] = per_name.at(control.name);
    const bool is_submitter_name = submitter != nullptr && submitter->name == control.name;
    entries.push_back({control.name, value, !form_opted_out && unused && !is_submitter_name && !hidden});
  };
  for (const FormControl& control : form.controls) {
    if (control.name.empty() || control.disabled) continue;
    if (is_button_type(control)) {
      if (&control == submitter && control.type != "image" && control.type != "reset" && control.type != "button") {
        add(control, control.value);
      }
    } else if (control.type == "checkbox" || control.type == "radio") {
      if (control.checked) add(control, control.value);
    } else if (control.type == "file") {
      continue;  // files go through uploads, never in the value
    } else if (control.tag == "select") {
      for (const std::string& selected : control.selected) add(control, selected);
    } else {
      add(control, control.value);
    }
  }
  return entries;
}

json::object form_values(const Form& form) {
  Element element;
  element.tag = "form";
  element.attributes = form.attributes;
  return element_value(element);
}

std::string encode_form_entries(const std::vector<FormEntry>& entries, bool with_unused) {
  FormFields fields;
  fields.reserve(entries.size());
  for (const FormEntry& entry : entries) {
    if (with_unused && entry.unused) fields.emplace_back(unused_key(entry.name), std::string());
    fields.emplace_back(entry.name, entry.value);
  }
  return encode_form(fields);
}

namespace {

// LV < 1.0.6 appends its metadata to the URL-encoded value itself.
std::string append_values(std::string value, const std::vector<std::pair<std::string, std::string>>& extra) {
  for (const auto& [name, text] : extra) {
    if (!value.empty()) value += '&';
    value += form_encode_component(name);
    value += '=';
    value += form_encode_component(text);
  }
  return value;
}

std::vector<std::pair<std::string, std::string>> as_strings(const json::object& values) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const json::key_value_pair& kv : values) out.emplace_back(std::string(text_view(kv.key())), js_string(kv.value()));
  return out;
}

}  // namespace

std::string form_change_payload(const Version& version, const FormChange& change) {
  const std::string target = change.target.empty() ? "undefined" : change.target;
  std::string value = encode_form_entries(change.entries, sends_unused(version));
  json::object payload;
  payload["type"] = "form";
  payload["event"] = change.event;
  if (uses_meta(version)) {
    payload["value"] = value;
    json::object meta;
    meta["_target"] = target;
    for (const json::key_value_pair& kv : change.values) meta[kv.key()] = kv.value();
    payload["meta"] = std::move(meta);
  } else {
    std::vector<std::pair<std::string, std::string>> extra{{"_target", target}};
    for (auto& pair : as_strings(change.values)) extra.push_back(std::move(pair));
    payload["value"] = append_values(std::move(value), extra);
  }
  payload["uploads"] = change.uploads;
  put_cid(payload, change.cid);
  return to_json(payload);
}

std::string form_submit_payload(const Version& version, const FormSubmit& submit) {
  std::vector<FormEntry> entries = submit.entries;
  if (version < Version{1, 0, 0} && !submit.submitter_name.empty()) {
    // The old serializeForm appended the submitter after the form's own fields.
    for (std::size_t i = entries.size(); i-- > 0;) {
      if (entries[i].name == submit.submitter_name) {
        FormEntry moved = std::move(entries[i]);
        entries.erase(entries.begin() + static_cast<std::ptrdiff_t>(i));
        entries.push_back(std::move(moved));
        break;
      }
    }
  }
  json::object payload;
  payload["type"] = "form";
  payload["event"] = submit.event;
  if (uses_meta(version)) {
    payload["value"] = encode_form_entries(entries, false);
    payload["meta"] = submit.values;
  } else {
    payload["value"] = append_values(encode_form_entries(entries, false), as_strings(submit.values));
  }
  put_cid(payload, submit.cid);
  return to_json(payload);
}

// ------------------------------------------------------------------------------------ navigation

std::string live_patch_payload(std::string_view absolute_url) {
  json::object payload;
  payload["url"] = jsv(absolute_url);
  return to_json(payload);
}

std::string cids_payload(std::span<const int> cids) {
  json::array list;
  for (const int cid : cids) list.emplace_back(cid);
  json::object payload;
  payload["cids"] = std::move(list);
  return to_json(payload);
}

// ------------------------------------------------------------------------------------ uploads

json::object change_uploads(std::string_view upload_ref, std::string_view input_name, std::span<const UploadFile> files) {
  json::array entries;
  for (const UploadFile& file : files) {
    json::object entry;
    entry["path"] = jsv(input_name);
    entry["ref"] = file.ref;
    entry["last_modified"] = file.last_modified;
    entry["name"] = file.name.empty() ? file.ref : file.name;
    entry["relative_path"] = file.relative_path;
    entry["type"] = file.type;
    entry["size"] = file.size;
    entries.push_back(std::move(entry));
  }
  json::object uploads;
  if (!files.empty()) uploads[jsv(upload_ref)] = std::move(entries);
  return uploads;
}

std::string allow_upload_payload(std::string_view upload_ref, std::span<const UploadFile> files, std::optional<int> cid) {
  json::array entries;
  for (const UploadFile& file : files) {
    json::object entry;
    entry["last_modified"] = file.last_modified;
    entry["name"] = file.name;
    entry["relative_path"] = file.relative_path;
    entry["size"] = file.size;
    entry["type"] = file.type;
    entry["ref"] = file.ref;
    entries.push_back(std::move(entry));
  }
  json::object payload;
  payload["ref"] = jsv(upload_ref);
  payload["entries"] = std::move(entries);
  put_cid(payload, cid);
  return to_json(payload);
}

std::string read_preflight_reply(const json::value& response, PreflightReply& out) {
  out = PreflightReply{};
  if (!response.is_object()) return "allow_upload reply is not an object";
  const json::value* ref = field(response, "ref");
  if (ref == nullptr || !ref->is_string()) return "allow_upload reply has no upload \"ref\"";
  out.ref = std::string(text_view(ref->get_string()));
  if (const json::value* config = field(response, "config"); config && config->is_object()) {
    const auto read = [&](std::string_view key, std::uint64_t& into) {
      if (const json::value* v = field(*config, key)) {
        if (const std::optional<std::int64_t> n = integer(*v); n && *n > 0) into = static_cast<std::uint64_t>(*n);
      }
    };
    read("chunk_size", out.chunk_size);
    read("chunk_timeout", out.chunk_timeout_ms);
    read("max_entries", out.max_entries);
    read("max_file_size", out.max_file_size);
  }
  if (const json::value* entries = field(response, "entries"); entries && entries->is_object()) {
    for (const json::key_value_pair& kv : entries->get_object()) {
      // External uploads carry the app's metadata instead of a token: not for the channel.
      if (kv.value().is_string()) out.tokens.emplace_back(std::string(text_view(kv.key())), std::string(text_view(kv.value().get_string())));
    }
  }
  if (const json::value* errors = field(response, "errors"); errors && errors->is_object()) {
    for (const json::key_value_pair& kv : errors->get_object()) {
      std::string reason;
      if (const json::array* reasons = kv.value().if_array(); reasons && !reasons->empty()) {
        reason = js_string((*reasons)[0]);
      } else {
        reason = js_string(kv.value());
      }
      out.errors.emplace_back(std::string(text_view(kv.key())), std::move(reason));
    }
  }
  if (const json::value* error = field(response, "error"); error && error->is_array()) {
    for (const json::value& pair : error->get_array()) {
      const json::array* parts = pair.if_array();
      if (parts && parts->size() >= 2) out.errors.emplace_back(js_string((*parts)[0]), js_string((*parts)[1]));
    }
  }
  if (const json::value* diff = field(response, "diff"); diff && diff->is_object()) out.diff = diff;
  return {};
}

std::string upload_topic(std::string_view entry_ref) { return "lvu:" + std::string(entry_ref); }

std::string upload_join_payload(std::string_view token) {
  json::object payload;
  payload["token"] = jsv(token);
  return to_json(payload);
}

std::uint64_t next_chunk_length(std::uint64_t offset, std::uint64_t size, std::uint64_t chunk_size) {
  if (offset >= size) return 0;
  if (chunk_size == 0) chunk_size = kDefaultChunkSize;
  return std::min(chunk_size, size - offset);
}

std::optional<int> progress_to_send(std::uint64_t acknowledged, std::uint64_t size, int last_sent) {
  // Math.floor((offset / size) * 100) in doubles, exactly as the browser rounds it.
  int progress = 100;
  if (size > 0) {
    const double percent = std::floor((static_cast<double>(acknowledged) / static_cast<double>(size)) * 100.0);
    progress = percent >= 100.0 ? 100 : static_cast<int>(std::max(percent, 0.0));
  }
  if (progress <= last_sent) return std::nullopt;
  return progress;
}

std::string progress_payload(std::string_view upload_ref, std::string_view entry_ref, int progress,
                             std::string_view progress_event, std::optional<int> cid) {
  json::object payload;
  if (progress_event.empty()) {
    payload["event"] = nullptr;
  } else {
    payload["event"] = jsv(progress_event);
  }
  payload["ref"] = jsv(upload_ref);
  payload["entry_ref"] = jsv(entry_ref);
  payload["progress"] = progress;
  put_cid(payload, cid);
  return to_json(payload);
}

}  // namespace stampede::proto::lv
