#pragma once
// What a browser sends on a LiveView topic, read back (the other direction of
// liveview_events.hpp, whose encoders write it): for tools that watch a browser rather than act
// as one, such as the recorder (src/record/). Pure, and never throws: a payload that is not
// what the browser sends gives nullopt.
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "proto/form.hpp"

namespace stampede::proto::lv {

// phx_join on "lv:<id>": {"url"|"redirect", "params", "session", "static", "flash"?}.
struct ClientJoin {
  std::string url;        // "url" or "redirect" (absolute); "" for a nested LiveView
  bool redirect = false;  // a live navigation's join (the "redirect" key)
  boost::json::object params;  // the LiveSocket params, _csrf_token and the _track_static/_mounts bookkeeping included
};
std::optional<ClientJoin> read_client_join(std::string_view payload_json);

// "event": {"type", "event", "value", "cid"?, "uploads"?, "meta"?}.
struct ClientEvent {
  std::string type;   // click, keyup, keydown, blur, focus, hook, form...
  std::string event;
  boost::json::value value;   // click & co: the value object; form: the URL-encoded string
  std::optional<int> cid;
  bool has_uploads = false;   // phx-change sends "uploads" (maybe {}); phx-submit never does
  boost::json::object uploads;
  // Forms: the fields in order (minus the _target and _unused_ bookkeeping), the input that
  // changed (meta._target in LV >= 1.0.6, else the appended "_target" field) and the names the
  // browser marked unused (LV >= 1.0: fields the user has not touched yet).
  FormFields fields;
  std::string target;
  std::vector<std::string> unused;
};
std::optional<ClientEvent> read_client_event(std::string_view payload_json);

// "live_patch": {"url"}.
std::optional<std::string> read_client_live_patch(std::string_view payload_json);

// "allow_upload": {"ref", "entries": [{"name", "size", "type", "ref", ...}], "cid"?}.
struct ClientUploadEntry {
  std::string ref;
  std::string name;
  std::string type;
  std::uint64_t size = 0;
};
struct ClientAllowUpload {
  std::string ref;  // the upload's ref (phx-…), as in the phx-change's "uploads"
  std::vector<ClientUploadEntry> entries;
};
std::optional<ClientAllowUpload> read_client_allow_upload(std::string_view payload_json);

// The upload a phx-change chose files for: the input's name ("path" of its entries) by the
// upload ref, from ClientEvent::uploads. "" when the ref is not there.
std::string upload_input_name(const boost::json::object& uploads, std::string_view upload_ref);

}  // namespace stampede::proto::lv
