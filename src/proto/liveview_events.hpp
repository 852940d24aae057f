#pragma once
// What the browser sends on LiveView topics and how it reads the answers
// (../shared/phoenix-protocol.md §5.2-5.8, §6), field for field as phoenix_live_view's own JS
// does it in 0.20.x and 1.0-1.2 (checked against ../shared/phoenix-captures/lv-0.20 and lv-1.x).
// Pure: values in, JSON payload text out (key order as the browser writes it), and decoded
// replies back. The Phoenix envelope (join_ref, ref, topic, event) is phoenix_message.hpp's job.
//
// How a client uses it (with liveview_page.hpp and liveview_rendered.hpp):
//   socket URL   "<ws base>/live/websocket?" + socket_query(join)        (vsn=2.0.0 included)
//   join         "phx_join" on "lv:<id>" with join_payload(join); read_join_reply(status, response):
//                ok -> Rendered::merge_join(response); redirect/live_redirect -> navigate.
//   click        "event" with event_payload("click", phx-click, element_value(el),
//                event_target_cid(el.attributes, html))
//   phx-change   "event" with form_change_payload(version, change)   (entries from form_entries)
//   phx-submit   "event" with form_submit_payload(version, submit)
//   patch        "live_patch" with live_patch_payload(proto::resolve_url(page, href))
//   navigate     "phx_leave", then "phx_join" on the same topic with JoinParams::redirect = true,
//                the old session/static tokens, live_referer = old URL, flash from the reply
//   replies      read_event_reply(response): diff -> Rendered::merge_diff, navigation, cids
//   pushes       "diff" -> merge_diff; read_push(event, payload) for redirect/live_redirect/live_patch
//   components   "cids_will_destroy" / "cids_destroyed" with cids_payload (see liveview_rendered.hpp)
//   uploads      phx-change with change_uploads(...) -> "allow_upload" with allow_upload_payload ->
//                read_preflight_reply -> per entry "phx_join" on upload_topic(ref) with
//                upload_join_payload(token) -> binary "chunk" pushes of next_chunk_length bytes,
//                one at a time -> after each ok, "progress" with progress_payload when
//                progress_to_send says so -> submit when every entry reached 100.
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "proto/liveview_page.hpp"

namespace stampede::proto::lv {

// ---------------------------------------------------------------------------------------------
// Socket and join

struct JoinParams {
  Version version = kNewestCheckedVersion;  // the server's, when known (older ones get fewer params)
  std::string url;           // absolute page URL, main view only ("" = omitted: children, sticky)
  bool redirect = false;     // live navigation: `url` is sent as "redirect" instead of "url"
  std::string csrf_token;    // params._csrf_token, from the page's meta tag ("" = omitted)
  boost::json::object extra_params;           // the app's LiveSocket `params`, after _csrf_token
  std::vector<std::string> track_static;      // absolute URLs; none = omitted
  int mounts = 0;            // successful joins of this view so far (0 after a navigation)
  int mount_attempts = 0;    // failed attempts since the last success (sent from LV 1.0.0)
  std::string live_referer;  // previous URL, navigation joins only ("" = omitted)
  std::string session;       // data-phx-session
  std::string static_token;  // data-phx-static ("" = null)
  std::string flash;         // flash token from a redirect/live_redirect ("" = omitted)
  bool sticky = false;       // data-phx-sticky (the key is sent from LV 1.0.10)
};

// The phx_join payload: {"url"|"redirect", "params":{...}, "session", "static", "flash"?, "sticky"?}.
std::string join_payload(const JoinParams& join);

// The socket URL's query as the browser writes it (phoenix.js encodeURIComponent):
// "_csrf_token=…&_track_static%5B0%5D=…&_mounts=0[&_mount_attempts=0]&_live_referer=undefined&vsn=2.0.0"
// (the LiveSocket leaks its params there; `url`, `session` and the rest are not part of it).
std::string socket_query(const JoinParams& join);

// ---------------------------------------------------------------------------------------------
// Replies and pushes

struct Navigation {
  enum class Kind { None, Redirect, LiveRedirect, LivePatch };
  Kind kind = Kind::None;
  std::string to;            // as sent (usually a path): proto::resolve_url it against the page URL
  std::string history;       // "push" or "replace" (live_redirect, live_patch)
  std::string flash;         // signed flash token to pass to the next join ("" = none)
  int status = 0;            // redirect status (LV >= 1.0), 0 when absent
};

struct JoinReply {
  bool ok = false;           // status "ok" with "rendered": merge_join(response)
  std::optional<Version> version;   // "liveview_version" (LV >= 0.20.15)
  // Navigation joins: the container element to use ("div", {} by default), "" when absent.
  std::string container_tag;
  HtmlAttributes container_attributes;
  // ok: a push_patch during mount ("live_patch": update the URL). Error: "redirect" (full GET of
  // `to`) or "live_redirect" (live navigation); the server closes the channel either way.
  Navigation navigation;
  std::string reason;        // error: "stale", "unauthorized", "join crashed", "reload", ...
  int status = 0;            // "reload": the HTTP status the next GET will show
  std::string token;         // "reload": value for the __phoenix_reload_status__ cookie
};
JoinReply read_join_reply(std::string_view status, const boost::json::value& response);

struct EventReply {
  const boost::json::value* diff = nullptr;   // points into the response: Rendered::merge_diff
  const boost::json::value* reply = nullptr;  // a top-level "r" beside the diff (the reply map is
                                              // normally inside the diff: DiffResult::reply_json)
  Navigation navigation;     // "redirect" / "live_redirect" instead of a diff
  bool link_redirect = false;  // live_patch reply: another LiveView owns the URL, navigate instead
  std::vector<int> cids;     // cids_destroyed reply: pass to Rendered::prune_cids
};
// The response of a reply to event, live_patch, progress, allow_upload or cids_* pushes.
EventReply read_event_reply(const boost::json::value& response);

// A server push on an lv: topic: "redirect", "live_redirect" and "live_patch" give a
// navigation; anything else (notably "diff") Kind::None.
Navigation read_push(std::string_view event, const boost::json::value& payload);

// ---------------------------------------------------------------------------------------------
// User events: {"type", "event", "value", "cid"?} (cid only when it is a component's).

// type: "click" (also phx-click-away), "keydown", "keyup", "blur", "focus"; value: usually
// element_value / key_value.
std::string event_payload(std::string_view type, std::string_view event, const boost::json::value& value,
                          std::optional<int> cid);

// The browser's value object for an element (extractMeta): each phx-value-* attribute without
// the prefix, in attribute order; then "value" when the element has a DOM value (a number for
// li/meter/progress; none for an unchecked checkbox or radio); then `extra` (a JS.push value).
boost::json::object element_value(const Element& element, const boost::json::object* extra = nullptr);
// phx-keydown/keyup: {"key": key} first, then element_value's fields.
boost::json::object key_value(std::string_view key, const Element& element);

// The cid an event on an element with these attributes goes to (targetComponentID):
// phx-target="3" -> 3; phx-target="<selector>" -> the component of the first element `html`
// has for it (nullopt when none); no phx-target -> nullopt (the LiveView itself).
std::optional<int> event_target_cid(const HtmlAttributes& attributes, std::string_view html);

// this.pushEvent(event, payload) in a hook: {"type":"hook","event","value":payload,"cid"?};
// cid is the component containing the hook's element (Element::component).
std::string hook_payload(std::string_view event, const boost::json::value& payload, std::optional<int> cid);

// ---------------------------------------------------------------------------------------------
// Forms

// One entry of the form's data, in DOM order.
struct FormEntry {
  std::string name;
  std::string value;
  bool unused = false;       // LV >= 1.0 sends an empty "<name with _unused_ prefix>=" before it
};

enum class FormPurpose { Change, Submit };

// What `new FormData(form)` holds as LiveView serializes it: named, enabled controls in order;
// checkboxes/radios only when checked; selects once per selected option; buttons only as the
// `submitter` (at its DOM position); file inputs left out. `only_name` (an input with its own
// phx-change) keeps that name only. Unused flags per name, as serializeForm computes them: no
// control of that name used (FormControl::used) or marked phx-no-unused-field, not all of them
// hidden, not the submitter's name, and the form not phx-no-unused-field; on Submit nothing is
// unused (the browser marks every control submitted first).
std::vector<FormEntry> form_entries(const Form& form, FormPurpose purpose, const FormControl* submitter = nullptr,
                                    std::string_view only_name = {});

// The form's phx-value-* attributes (extractMeta on the form): they go into "meta" (LV >= 1.0.6)
// or into the encoded value (older).
boost::json::object form_values(const Form& form);

struct FormChange {
  std::string event;                 // phx-change
  std::vector<FormEntry> entries;    // form_entries(form, FormPurpose::Change, ...)
  std::string target;                // name of the input that changed ("" = none: "undefined")
  boost::json::object values;        // form_values(form) (+ a JS.push value)
  boost::json::object uploads;       // change_uploads(...) when files were chosen, else {}
  std::optional<int> cid;            // event_target_cid(form.attributes, html)
};
// {"type":"form","event","value":"<urlencoded>","meta":{"_target",...},"uploads","cid"?}
// LV >= 1.0.6; before: no meta, "_target" and the values appended to the encoded value, and no
// _unused_ entries before 1.0.
std::string form_change_payload(const Version& version, const FormChange& change);

struct FormSubmit {
  std::string event;                 // phx-submit
  std::vector<FormEntry> entries;    // form_entries(form, FormPurpose::Submit, submitter)
  boost::json::object values;        // form_values(form)
  std::optional<int> cid;
  // The submitter's name when a named button submitted the form ("" = none): LV < 1.0 appended
  // it after the other fields, so form_submit_payload moves its entry last for those versions.
  std::string submitter_name;
};
// {"type":"form","event","value","meta":{...},"cid"?} (LV >= 1.0.6; before: values appended to
// the encoded value, no meta).
std::string form_submit_payload(const Version& version, const FormSubmit& submit);

// application/x-www-form-urlencoded as URLSearchParams writes it, with _unused_ twins when
// `with_unused` (a name's last segment prefixed: user[name] -> user[_unused_name], tags[] ->
// _unused_tags[]).
std::string encode_form_entries(const std::vector<FormEntry>& entries, bool with_unused);

// ---------------------------------------------------------------------------------------------
// Navigation and components

std::string live_patch_payload(std::string_view absolute_url);   // {"url": ...}
std::string cids_payload(std::span<const int> cids);             // {"cids":[...]}

// ---------------------------------------------------------------------------------------------
// Uploads (§6)

struct UploadFile {
  std::string ref;             // entry ref: the browser numbers chosen files page-wide "0", "1", ...
  std::string name;
  std::string relative_path;   // "" unless a directory was chosen
  std::string type;            // MIME type as the browser guessed it ("" when unknown)
  std::uint64_t size = 0;      // must equal the bytes that will be sent
  std::int64_t last_modified = 0;   // ms since the epoch
};

// "uploads" of the phx-change that chose the files: {upload_ref: [{"path": input name, "ref",
// "last_modified", "name", "relative_path", "type", "size"}, ...]}.
boost::json::object change_uploads(std::string_view upload_ref, std::string_view input_name,
                                   std::span<const UploadFile> files);

// The preflight: {"ref": upload_ref, "entries": [{"last_modified","name","relative_path","size","type","ref"}], "cid"?}.
std::string allow_upload_payload(std::string_view upload_ref, std::span<const UploadFile> files,
                                 std::optional<int> cid);

inline constexpr std::uint64_t kDefaultChunkSize = 64000;        // upload_config.ex default
inline constexpr std::uint64_t kDefaultChunkTimeoutMs = 10000;

struct PreflightReply {
  std::string ref;
  std::uint64_t chunk_size = kDefaultChunkSize;
  std::uint64_t chunk_timeout_ms = kDefaultChunkTimeoutMs;   // not sent by 0.20
  std::uint64_t max_entries = 0;
  std::uint64_t max_file_size = 0;
  std::vector<std::pair<std::string, std::string>> tokens;   // entry ref -> upload channel token
  std::vector<std::pair<std::string, std::string>> errors;   // entry ref -> reason ("too_large", ...)
  const boost::json::value* diff = nullptr;                  // points into the response
};
// The allow_upload reply's response. "" or an error sentence (not an object, no "ref").
std::string read_preflight_reply(const boost::json::value& response, PreflightReply& out);

std::string upload_topic(std::string_view entry_ref);            // "lvu:<entry ref>"
std::string upload_join_payload(std::string_view token);         // {"token": ...}

// Bytes of the next chunk: min(chunk_size, size - offset); 0 when done.
std::uint64_t next_chunk_length(std::uint64_t offset, std::uint64_t size, std::uint64_t chunk_size);

// After a chunk reply ok with `acknowledged` bytes sent: the percentage the browser reports
// (floor(acknowledged / size * 100), 100 at the end) when it rose above `last_sent` (-1 before
// the first), else nullopt. The browser waits for the reply to the 100 only.
std::optional<int> progress_to_send(std::uint64_t acknowledged, std::uint64_t size, int last_sent);

// {"event": phx-progress or null, "ref": upload_ref, "entry_ref", "progress", "cid"?}.
std::string progress_payload(std::string_view upload_ref, std::string_view entry_ref, int progress,
                             std::string_view progress_event, std::optional<int> cid);

}  // namespace stampede::proto::lv
