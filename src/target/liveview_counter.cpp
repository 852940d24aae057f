// /counter (DemoWeb.CounterLive): a count and two buttons. "inc" answers with
// {:reply, %{count: n}, socket}, so its reply's diff carries "r"; "inc_noreply" only
// re-renders (the click_inc_* steps of the recordings).
#include <string>

#include "target/liveview_pages.hpp"

namespace stampede::target {
namespace {

constexpr std::string_view kCounterParts[] = {"<h1>Counter</h1>\n<p>Count: <span id=\"count\">",
                                       "</span></p>\n<button id=\"inc\" phx-click=\"inc\">+1 (reply)</button>\n"
                                       "<button id=\"inc-noreply\" phx-click=\"inc_noreply\">+1 (no reply)</button>"};
constexpr Template kCounter{kCounterParts, false};

class CounterLive final : public LiveView {
 public:
  CounterLive() : LiveView(LiveViewPage::Counter) {}

  const Template& statics(LiveViewDialect) const override { return kCounter; }

  void render(RenderOutput& out, Changed changed) const override {
    if (changed.any(kCount)) out.text(0, std::to_string(count_));
  }

  ViewOutcome handle_event(const LiveEvent& event) override {
    if (event.cid) return ViewOutcome::crash();
    if (event.name == "inc") {
      ++count_;
      return ViewOutcome::render(Changed::only(kCount), "{\"count\":" + std::to_string(count_) + "}");
    }
    if (event.name == "inc_noreply") {
      ++count_;
      return ViewOutcome::render(Changed::only(kCount));
    }
    return ViewOutcome::crash();
  }

 private:
  static constexpr std::uint32_t kCount = 1;
  std::uint64_t count_ = 0;
};

}  // namespace

std::unique_ptr<LiveView> mount_counter(const MountContext&) { return std::make_unique<CounterLive>(); }

}  // namespace stampede::target
