#pragma once
// The client's copy of one LiveView's rendered state, like the JS `Rendered` class plus what the
// browser DOM keeps (../shared/phoenix-protocol.md §5.11): the join's `rendered` tree, every
// diff merged into it, components, streams. Renders the HTML the browser shows inside the
// LiveView container, and answers "what would a user read here". Pure: JSON in, HTML out.
//
// Both diff dialects are understood, whatever the server version says: LiveView 0.20.x / 1.0
// (comprehensions resent whole under "d", templates "p" per comprehension) and 1.1+ (keyed
// comprehensions "k"/"kc", a "p" template table at the top of every diff). Supported:
// LiveView 0.20.x and 1.0 to 1.2; a join reply reporting an older version is refused, a newer
// one is merged with the 1.2 rules.
//
// How a client uses it (one Rendered per joined LiveView topic):
//   * join reply ok:        rendered.merge_join(response, out)   (a new tree each join; a live
//                           navigation rejoins the same topic and starts over the same way)
//   * reply with "diff":    rendered.merge_diff(*reply.diff, out) (event, live_patch, progress,
//                           allow_upload replies; liveview_events.hpp reads the reply)
//   * "diff" push:          rendered.merge_diff(payload, out)
//   After each, handle `out`: the event reply map, push_event events, the new title, and the
//   components that left the page:
//   * out.removed_cids not empty  -> push "cids_will_destroy" {cids}; on its reply,
//     push "cids_destroyed" {cids: rendered.still_removed(cids)} (skip when empty); on that
//     reply, rendered.prune_cids(reply "cids"). This is what the browser does, and without it
//     the server keeps every component ever rendered.
//   An error sentence means the diff was refused and the state is exactly as before it (with
//   one exception: a diff whose result would break limits only visible after applying it, a
//   component loop, components nested over 32 deep or a page over 64 MiB, drops the state and
//   joined() turns false). The server and this copy disagree from then on, so the client
//   should fail the VU's LiveView. The merger walks templates up to 256 deep: parse frames
//   with boost::json::parse_options::max_depth of 264 or more before passing values in
//   (Boost.JSON's default of 32 is shallower than real pages nest; the text overloads do it).
//
// Written in: liveview_rendered_tree (the model), _check (a diff against the state, before
// anything changes), _apply (the checked diff into the tree), _stream, _merge (a whole join or
// diff, components and their graph), _html (rendering) and liveview_rendered.cpp (this API).
#include <boost/json/fwd.hpp>

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "proto/liveview_page.hpp"

namespace stampede::proto::lv {

// A push_event the server sent with a diff ("e").
struct PushedEvent {
  std::string name;
  std::string payload_json;    // the payload as JSON text
  bool before_patch = false;   // LV >= 1.1.18 [name, payload, true]: dispatch before the patch
};

// A stream operation carried by a diff, for scenarios that read stream data as it arrives
// (the items themselves are kept as the DOM keeps them and rendered by to_html).
struct StreamUpdate {
  std::string ref;
  std::vector<std::string> inserted_ids;   // dom ids, in the order the server sent them
  std::vector<std::string> deleted_ids;
  bool reset = false;
};

// What one accepted join or diff carried besides the tree. Cleared by each merge.
struct DiffResult {
  std::string reply_json;               // top-level "r" of an event reply, JSON text ("" if none)
  std::vector<PushedEvent> events;      // "e", in order
  std::optional<std::string> title;     // "t": the new page title
  std::vector<StreamUpdate> streams;
  // Components whose elements were on the page before this diff and are not any more (never
  // set by a join, like the browser): candidates for "cids_will_destroy", ascending.
  std::vector<int> removed_cids;
};

struct RenderOptions {
  // Add data-phx-component="<cid>" to each component's root element, as the browser does (it
  // also adds data-phx-id and, in 1.x, data-phx-view, which are not rendered here). Off, the
  // HTML is exactly what the server's templates produce.
  bool mark_components = false;
};

class Rendered {
 public:
  Rendered();
  ~Rendered();
  Rendered(Rendered&&) noexcept;
  Rendered& operator=(Rendered&&) noexcept;
  Rendered(const Rendered&) = delete;
  Rendered& operator=(const Rendered&) = delete;

  // A successful join reply's `response` object: {"rendered": {...}, "liveview_version": "...",
  // "container"?, "live_patch"?}. Replaces any previous state. Returns "" or an error sentence
  // (no "rendered", unsupported version, malformed tree, missing template or component).
  std::string merge_join(const boost::json::value& response, DiffResult& out);
  std::string merge_join(std::string_view response_json, DiffResult& out);
  // (Exact matches for text, which would otherwise also convert to a boost::json::value.)
  std::string merge_join(const std::string& response_json, DiffResult& out) {
    return merge_join(std::string_view(response_json), out);
  }
  std::string merge_join(const char* response_json, DiffResult& out) { return merge_join(std::string_view(response_json), out); }

  // A diff (the "diff" of a reply or the payload of a "diff" push). Returns "" or an error
  // sentence; on error nothing changed. Refused before a successful join.
  std::string merge_diff(const boost::json::value& diff, DiffResult& out);
  std::string merge_diff(std::string_view diff_json, DiffResult& out);
  std::string merge_diff(const std::string& diff_json, DiffResult& out) { return merge_diff(std::string_view(diff_json), out); }
  std::string merge_diff(const char* diff_json, DiffResult& out) { return merge_diff(std::string_view(diff_json), out); }

  bool joined() const noexcept;
  // The server's version: from the join reply, or guessed from the tree's shape when the server
  // is older than 0.20.15 (which does not report it): 1.1.0 for keyed trees, else 0.20.0.
  Version version() const noexcept;
  const std::string& title() const noexcept;   // the last "t" ("" until one arrives)

  // The HTML inside the LiveView's container element. "" before a join.
  std::string to_html(const RenderOptions& options = {}) const;
  void to_html(std::string& out, const RenderOptions& options = {}) const;   // into a reused buffer

  std::vector<int> components() const;          // cids held in state, ascending
  std::vector<int> rendered_components() const; // cids whose elements are on the page, ascending
  // Of `cids`, those not on the page (any more): what to send in "cids_destroyed".
  std::vector<int> still_removed(std::span<const int> cids) const;
  // Forgets these components (the "cids" of the cids_destroyed reply). Unknown cids are ignored;
  // a cid still on the page is kept (the server re-rendered it meanwhile).
  void prune_cids(std::span<const int> cids);

  // Reading what a user sees (selectors: liveview_page.hpp). Elements inside components carry
  // their cid (Element::component), so an event can target them.
  std::optional<std::string> text(std::string_view selector) const;
  std::optional<Element> find(std::string_view selector) const;
  std::optional<Form> form(std::string_view selector) const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace stampede::proto::lv
