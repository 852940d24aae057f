#pragma once
// A LiveView's rendered tree, described once and written two ways: as the "rendered" JSON of
// join replies and diffs (RenderedJson, both dialects) and as the HTML of the dead render
// (RenderedHtml). A view's render() walks its template and says, slot by slot, what the
// dynamics are; the output decides what reaches the wire. The node kinds are those of
// ../shared/phoenix-protocol.md §5.11:
//   a rendered node: statics s[0..N] around dynamics 0..N-1 (strings, nested nodes, cids);
//   a comprehension (`:for`): one statics list, and per item the dynamics;
//   a component: a node of its own, referenced by cid and sent under the top-level "c".
//
// A render is full (join, dead render: every dynamic, statics included) or a diff (only the
// dynamics that changed, no statics). A nested node begun without statics is a diff of an
// unchanged template; the JSON writer leaves it out entirely when nothing in it was written.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace stampede::target {

// One template's statics. Identity matters: LiveView 1.x numbers the templates of a message
// in its "p" table, and the same Template object always gets the same number in a message.
struct Template {
  std::span<const std::string_view> parts;
  bool single_root = false;  // "r":1 (LiveView >= 0.20): the template is one HTML element
};

// What changed since the client last saw a view (LiveView's __changed__): everything, or the
// bits a page defines for its own assigns.
struct Changed {
  bool full = false;
  std::uint32_t fields = 0;

  static Changed everything() { return {true, 0}; }
  static Changed only(std::uint32_t bits) { return {false, bits}; }
  bool any(std::uint32_t bits) const { return full || (fields & bits) != 0; }
  bool none() const { return !full && fields == 0; }
};

class RenderOutput;

// A stateful LiveComponent as its parent holds it.
class LiveComponent {
 public:
  virtual const Template& statics() const = 0;
  // Its root node's dynamics (the output has begun the node).
  virtual void render(RenderOutput& out, Changed changed) const = 0;

 protected:
  ~LiveComponent() = default;
};

class RenderOutput {
 public:
  // The view's root node; statics only in a full render.
  virtual void begin_root(const Template* statics) = 0;
  virtual void end_root() = 0;
  // Dynamic `slot` of the current node: HTML-escaped text.
  virtual void text(int slot, std::string_view html) = 0;
  // Dynamic `slot` is a nested node; statics only when it is (re)rendered in full.
  virtual void begin(int slot, const Template* statics) = 0;
  virtual void end() = 0;
  // Dynamic `slot` is a comprehension; statics only the first time it has items. A full
  // render of an empty comprehension is the text "" instead (LiveView prints nothing).
  virtual void begin_list(int slot, const Template* statics) = 0;
  virtual void begin_item(int index) = 0;
  // One dynamic of the current item. Entries of 0.20's "d" lists are always complete; 1.x
  // keyed entries carry only what changed.
  virtual void item_text(int slot, std::string_view html, bool changed) = 0;
  virtual void end_item() = 0;
  virtual void end_list(int count) = 0;
  // Dynamic `slot` is component `cid`, rendered with `changed`.
  virtual void component(int slot, int cid, const LiveComponent& component, Changed changed) = 0;
  // Component `cid` changed but its parent did not re-render the slot that references it.
  virtual void component_update(int cid, const LiveComponent& component, Changed changed) = 0;

 protected:
  ~RenderOutput() = default;
};

// Phoenix.HTML's escaping of dynamic text: & < > " ' become entities.
void append_escaped_html(std::string& out, std::string_view text);
std::string escape_html(std::string_view text);

}  // namespace stampede::target
