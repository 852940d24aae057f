#pragma once
// The "rendered" JSON of join replies and the diffs of event replies and pushes, in either
// dialect (../shared/phoenix-protocol.md §5.11, and the frames of the recorded apps):
//
//                          LiveView 0.20                      LiveView 1.x
//   statics of a node      "s":[...] inline                   "s":<n>, n indexing the message's
//                                                             top-level "p" table (inline
//                                                             inside components: no table there)
//   comprehension          {"d":[[d0,d1..],..],"s":[..]}      {"k":{"0":{"0":d0..},..,"kc":N},"s":<n>}
//                          every item complete                items carry what changed only
//   components             "c":{"<cid>":{...,"s":[...]}}      the same
//
// Templates are numbered in the order their nodes close (children before parents), as
// LiveView numbers them. Keys are written in that order too; key order is not part of the
// protocol. Written straight into the caller's buffer: no tree is built.
#include <array>
#include <cstddef>
#include <string>
#include <string_view>

#include "target/liveview_dialect.hpp"
#include "target/rendered.hpp"

namespace stampede::target {

class RenderedJson final : public RenderOutput {
 public:
  // Replaces `out` with the message as it is written; read it after finish().
  RenderedJson(LiveViewDialect dialect, std::string& out);

  void begin_root(const Template* statics) override;
  void end_root() override;
  void text(int slot, std::string_view html) override;
  void begin(int slot, const Template* statics) override;
  void end() override;
  void begin_list(int slot, const Template* statics) override;
  void begin_item(int index) override;
  void item_text(int slot, std::string_view html, bool changed) override;
  void end_item() override;
  void end_list(int count) override;
  void component(int slot, int cid, const LiveComponent& component, Changed changed) override;
  void component_update(int cid, const LiveComponent& component, Changed changed) override;

  // Top-level keys, after end_root(): the page title ("t"), an event reply ("r"), the events
  // of push_event ("e", only ever empty here).
  void title(std::string_view text);
  void reply(std::string_view map_json);
  void no_events();
  // Writes the components ("c") and the statics table ("p") and closes the message.
  void finish();
  // Nothing at the top level: a diff in which nothing changed.
  bool empty() const { return !frames_[0].has_members; }

 private:
  enum class Kind : std::uint8_t { Root, Node, List, Item, Components };
  struct Frame {
    Kind kind = Kind::Node;
    int key = 0;  // the slot, item index or cid it is written under
    const Template* statics = nullptr;
    bool opened = false;
    bool has_members = false;
    bool inline_statics = false;  // inside a component (or 0.20): statics as arrays
  };
  struct Pending {
    int cid = 0;
    const LiveComponent* component = nullptr;
    Changed changed;
  };
  static constexpr std::size_t kMaxDepth = 16;
  static constexpr std::size_t kMaxTemplates = 64;
  static constexpr std::size_t kMaxComponents = 16;

  Frame& top() { return frames_[depth_ - 1]; }
  void push(Frame frame);
  // Opens every frame not yet written, outermost first, then starts a member of the top one.
  void open_all();
  void open(std::size_t index);
  void member_separator(Frame& frame);
  void key(int k);
  void write_statics(const Frame& frame);
  void close_node(Frame& frame);
  std::size_t table_index(const Template& statics);

  LiveViewDialect dialect_;
  std::string& out_;
  std::array<Frame, kMaxDepth> frames_{};
  std::size_t depth_ = 0;
  std::array<const Template*, kMaxTemplates> table_{};
  std::size_t table_size_ = 0;
  std::array<Pending, kMaxComponents> pending_{};
  std::size_t pending_size_ = 0;
};

}  // namespace stampede::target
