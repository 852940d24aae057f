#pragma once
// The dead render: a view's full render as the HTML a page carries inside its LiveView
// container, statics interleaved with dynamics (s0 d0 s1 d1 ... sN), components inline.
// Always full: it never sees a diff.
#include <array>
#include <cstddef>
#include <string>
#include <string_view>

#include "target/rendered.hpp"

namespace stampede::target {

class RenderedHtml final : public RenderOutput {
 public:
  explicit RenderedHtml(std::string& out) : out_(out) {}

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

 private:
  struct Frame {
    const Template* statics = nullptr;
    std::size_t next = 0;  // the next static to write
  };
  static constexpr std::size_t kMaxDepth = 16;

  void push(const Template* statics);
  // Writes the statics up to dynamic `slot` of the current node.
  void reach(int slot);
  void pop();

  std::string& out_;
  std::array<Frame, kMaxDepth> frames_{};
  std::size_t depth_ = 0;
};

}  // namespace stampede::target
