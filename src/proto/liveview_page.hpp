#pragma once
// What a browser reads from LiveView HTML (../shared/phoenix-protocol.md §5.1): the CSRF token,
// every LiveView container with its session and static tokens, the tracked static assets, and
// (for scenarios) elements and forms found by a small selector. Pure: HTML text in, data out.
//
// How a client uses it:
//   1. GET the page, `scan_page(body)`: csrf_token goes on the socket URL and in the join
//      params, `roots_to_join(scan)` are the containers to join (topic "lv:" + id), their
//      session/static tokens go in the join payload (liveview_events.hpp `join_payload`), and
//      track_static (resolved against the page URL) becomes params._track_static.
//   2. After a join, nested LiveViews appear in the rendered HTML: `scan_page(rendered.to_html())`
//      lists them (parent_id set); join those not joined yet.
//   3. To click or fill a form like a user, find the element in the current HTML
//      (`find_element`, `find_form`, or the Rendered shortcuts in liveview_rendered.hpp) and give
//      it to the builders in liveview_events.hpp.
//
// The scanner is not a full HTML parser: it tokenizes (tags, attributes in any order with
// double/single/unquoted values or none, entities decoded, comments, <script>/<style> skipped)
// and tracks open elements loosely (an end tag closes the nearest open element of that name).
// It never throws and never reads past the input.
//
// Written in: liveview_html_text.cpp (characters, entities), liveview_html_tokenizer.cpp
// (scan_html), liveview_selector.cpp, liveview_page_capture.cpp (matching an element and its
// subtree), liveview_page_query.cpp (find_element, element_text, find_form) and
// liveview_page.cpp (versions, scan_page).
#include <compare>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stampede::proto::lv {

// ---------------------------------------------------------------------------------------------
// LiveView versions. The wire differs in details between releases (§5.12); the builders and the
// diff merger take the version the server reported (join reply "liveview_version").

struct Version {
  int major = 1;
  int minor = 2;
  int patch = 10;
  auto operator<=>(const Version&) const = default;
};

// The newest release these codecs were checked against, and what a client assumes until a join
// reply says otherwise (older servers ignore the extra join params it implies).
inline constexpr Version kNewestCheckedVersion{1, 2, 10};

// "0.20.17", "1.2.10", "1.1.0-rc.2" (pre-release suffix ignored), "1.0" (patch 0). Nullopt for
// anything else.
std::optional<Version> parse_version(std::string_view text);
std::string to_string(const Version& version);

// ---------------------------------------------------------------------------------------------
// The page scan.

struct LiveViewRoot {
  std::string id;             // the element id: the topic is "lv:" + id
  std::string session;        // data-phx-session (empty for children rendered dead)
  std::string static_token;   // data-phx-static ("" when absent/empty: send null)
  std::string parent_id;      // data-phx-parent-id, empty for roots
  bool main = false;          // data-phx-main
  bool sticky = false;        // data-phx-sticky
};

struct PageScan {
  std::string csrf_token;                  // <meta name="csrf-token" content="...">
  std::vector<LiveViewRoot> views;         // in document order
  std::vector<std::string> track_static;   // href/src of [phx-track-static] elements, as written
  std::string title;                       // <title> as document.title gives it: whitespace
                                           // runs collapsed to one space, trimmed
};

// Never throws; a page without LiveView simply has no views (the caller says what is missing).
PageScan scan_page(std::string_view html);

// Containers a browser joins first: those with a session and no parent.
std::vector<const LiveViewRoot*> roots_to_join(const PageScan& page);

// ---------------------------------------------------------------------------------------------
// The tokenizer under everything above, for callers that need more (tests compare trees with it).

struct HtmlAttribute {
  std::string name;   // lower-cased, as the DOM has it
  std::string value;  // entities decoded; "" for a bare attribute (data-phx-main)
};
using HtmlAttributes = std::vector<HtmlAttribute>;

// The value of the first attribute with this (lower-case) name, or null.
const std::string* find_attribute(const HtmlAttributes& attributes, std::string_view name);

struct HtmlToken {
  enum class Kind { StartTag, EndTag, Text, Comment, Doctype };
  Kind kind = Kind::Text;
  std::string name;           // StartTag/EndTag: lower-cased tag name
  HtmlAttributes attributes;  // StartTag: in source order; a repeated name keeps the first (DOM rule)
  bool self_closing = false;  // StartTag written "<x/>" (the DOM honours it only for void elements)
  // Text: the source text, entities NOT decoded (use decode_html_entities unless raw_text);
  // Comment: what is inside <!-- -->; Doctype: what is inside <! >; tags: the whole tag.
  std::string_view raw;
  bool raw_text = false;      // Text inside <script>/<style>: literal, never decoded
};

// Calls `visit` for each token in order; stops early when it returns false. The token is reused
// between calls: copy what you keep.
void scan_html(std::string_view html, const std::function<bool(const HtmlToken&)>& visit);

// Named (the common ones), decimal and hex character references to UTF-8. Unknown or malformed
// references stay as written, like a browser.
std::string decode_html_entities(std::string_view text);

// area, base, br, col, embed, hr, img, input, link, meta, source, track, wbr (and the legacy
// command, keygen, param): elements without an end tag or children.
bool is_void_element(std::string_view lower_case_tag);

// ---------------------------------------------------------------------------------------------
// Finding elements: enough for scenarios to read what a user sees and to act like one.
//
// Selectors: a compound of `tag`, `#id`, `.class`, `[attr]`, `[attr=value]` (value bare,
// "double" or 'single' quoted), e.g. `button.primary[phx-click=inc]`, and descendant chains of
// those separated by spaces (`#post-form input[name="post[title]"]`). Nothing else (no `>`,
// `,`, pseudo-classes).

// "" when the selector is valid, else a sentence saying what is wrong.
std::string selector_error(std::string_view selector);

struct Element {
  std::string tag;                    // lower-case
  HtmlAttributes attributes;
  // textContent (every descendant text node, decoded), with whitespace runs collapsed to one
  // space and trimmed: what a user reads.
  std::string text;
  // The DOM `value` property, for elements that have one: input (value attribute, "on" for a
  // checkbox/radio without one), button/option/param/data (value attribute, option falls back
  // to its text), textarea (its text), select (the selected option's value), li/meter/progress
  // (numeric: value_is_number), output (its text). Nullopt for the others.
  std::optional<std::string> value;
  bool value_is_number = false;
  bool checked = false;               // input[checked]
  // cid of the innermost [data-phx-component] element containing this one (itself included):
  // present when the HTML comes from the browser DOM or from Rendered::to_html with
  // mark_components.
  std::optional<int> component;
};

// The first element (document order) matching `selector`; nullopt when none does or the
// selector is invalid (see selector_error).
std::optional<Element> find_element(std::string_view html, std::string_view selector);

// textContent of the first match, as Element::text.
std::optional<std::string> element_text(std::string_view html, std::string_view selector);

// One element of form.elements (tree order), with what FormData needs.
struct FormControl {
  std::string tag;     // input, select, textarea, button
  std::string type;    // input: type attribute lower-cased ("text" when absent or unknown);
                       // button: "submit" unless type is "button"/"reset"; select: "select-one"
                       // or "select-multiple"; textarea: "textarea"
  std::string name;
  // input/button: value attribute ("on" for checkbox/radio without one); textarea: its text
  // (the leading newline the HTML parser drops is dropped); select: unused, see `selected`.
  std::string value;
  std::vector<std::string> selected;  // select: values of the selected options (a single select
                                      // with none marked selects its first enabled option)
  bool checked = false;               // checkbox/radio
  bool disabled = false;              // itself or inside a disabled <fieldset>
  bool no_unused_field = false;       // phx-no-unused-field on the control
  // LiveView marks a control as used once the user focused it (phx-has-focused) or the form
  // was submitted (phx-has-submitted). Scan results start false: set it for fields the virtual
  // user typed into (liveview_events.hpp adds `_unused_` markers for the others, LV >= 1.0).
  bool used = false;
  HtmlAttributes attributes;          // all of them (phx-change, data-phx-upload-ref, ...)
};

struct Form {
  HtmlAttributes attributes;          // the <form>'s (id, phx-change, phx-submit, phx-target, phx-value-*)
  std::vector<FormControl> controls;  // descendants that are input/select/textarea/button, in order
  std::optional<int> component;       // as Element::component
};

// The form matched by `selector`, or the form enclosing the first element it matches (so
// `#post_title` finds the title's form). Nullopt when there is none.
std::optional<Form> find_form(std::string_view html, std::string_view selector);

}  // namespace stampede::proto::lv
