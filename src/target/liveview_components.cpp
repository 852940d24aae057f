// /components (DemoWeb.ComponentsLive): a parent counter and one stateful LiveComponent,
// the clicker (cid 1), whose button targets it with phx-target. "bump" sent with "cid":1
// reaches the component, which replies {:reply, %{clicks: n}}: the diff holds the component
// under "c" and nothing of the parent (the click_bump_* steps). "parent_click" is the
// parent's own event.
#include <string>

#include "target/liveview_pages.hpp"

namespace stampede::target {
namespace {

constexpr std::string_view kComponentsParts[] = {
    "<h1>Components</h1>\n<p>Parent clicks: <span id=\"parent-clicks\">",
    "</span></p>\n<button id=\"parent-btn\" phx-click=\"parent_click\">parent</button>\n", ""};
constexpr Template kComponents{kComponentsParts, false};

constexpr std::string_view kClickerParts[] = {"<div",
                                              " class=\"clicker\">\n  <p>",
                                              ": <span id=\"",
                                              "-clicks\">",
                                              "</span></p>\n  <button id=\"",
                                              "-btn\" phx-click=\"bump\"",
                                              ">bump</button>\n</div>"};
constexpr Template kClicker{kClickerParts, true};

class Clicker final : public LiveComponent {
 public:
  static constexpr int kCid = 1;
  static constexpr std::uint32_t kClicks = 1;

  const Template& statics() const override { return kClicker; }

  void render(RenderOutput& out, Changed changed) const override {
    if (changed.full) {
      out.text(0, " id=\"clicker\"");
      out.text(1, "Clicker");
      out.text(2, "clicker");
    }
    if (changed.any(kClicks)) out.text(3, std::to_string(clicks));
    if (changed.full) {
      out.text(4, "clicker");
      out.text(5, " phx-target=\"" + std::to_string(kCid) + "\"");
    }
  }

  std::uint64_t clicks = 0;
};

class ComponentsLive final : public LiveView {
 public:
  ComponentsLive() : LiveView(LiveViewPage::Components) {}

  const Template& statics(LiveViewDialect) const override { return kComponents; }

  void render(RenderOutput& out, Changed changed) const override {
    if (changed.any(kParentClicks)) out.text(0, std::to_string(parent_clicks_));
    if (changed.full) {
      out.component(1, Clicker::kCid, clicker_, Changed::everything());
    } else if (changed.any(kClickerClicks)) {
      out.component_update(Clicker::kCid, clicker_, Changed::only(Clicker::kClicks));
    }
  }

  ViewOutcome handle_event(const LiveEvent& event) override {
    if (event.cid) {
      // An event for a component that is not (or no longer) rendered is answered with {}.
      if (*event.cid != Clicker::kCid) return ViewOutcome::render(Changed{});
      if (event.name != "bump") return ViewOutcome::crash();
      ++clicker_.clicks;
      return ViewOutcome::render(Changed::only(kClickerClicks), "{\"clicks\":" + std::to_string(clicker_.clicks) + "}");
    }
    if (event.name == "parent_click") {
      ++parent_clicks_;
      return ViewOutcome::render(Changed::only(kParentClicks));
    }
    return ViewOutcome::crash();
  }

 private:
  static constexpr std::uint32_t kParentClicks = 1;
  static constexpr std::uint32_t kClickerClicks = 2;
  std::uint64_t parent_clicks_ = 0;
  Clicker clicker_;
};

}  // namespace

std::unique_ptr<LiveView> mount_components(const MountContext&) { return std::make_unique<ComponentsLive>(); }

}  // namespace stampede::target
