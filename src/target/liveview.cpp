#include "target/liveview.hpp"

#include <charconv>

#include "target/liveview_pages.hpp"

namespace stampede::target {

std::string_view LiveEvent::field(std::string_view name) const {
  for (const auto& [key, value] : form) {
    if (key == name) return value;
  }
  return {};
}

ViewOutcome LiveView::handle_event(const LiveEvent&) { return ViewOutcome::crash(); }

ViewOutcome LiveView::handle_params(std::string_view) { return {}; }

MountResult mount_view(LiveViewPage page, const MountContext& context) {
  MountResult result;
  switch (page) {
    case LiveViewPage::Counter: result.view = mount_counter(context); break;
    case LiveViewPage::PostsNew: result.view = mount_posts_new(context); break;
    case LiveViewPage::Posts: result.view = mount_posts(context); break;
    case LiveViewPage::Components: result.view = mount_components(context); break;
    case LiveViewPage::Upload: result.view = mount_upload(context); break;
    case LiveViewPage::Dashboard: return mount_dashboard(context);
    case LiveViewPage::Stale:
    case LiveViewPage::Crash: return mount_refusing(page, context);
  }
  return result;
}

std::uint32_t page_number(std::string_view query) {
  for (const auto& [key, value] : proto::decode_form(query)) {
    if (key != "page") continue;
    std::uint32_t page = 0;
    const auto* end = value.data() + value.size();
    const auto [ptr, ec] = std::from_chars(value.data(), end, page);
    // Bounded so that links to the next page stay numbers.
    if (ec == std::errc() && ptr == end && page >= 1 && page < 1'000'000'000) return page;
    return 1;
  }
  return 1;
}

}  // namespace stampede::target
