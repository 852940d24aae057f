// /stale and /crash: pages whose LiveView renders dead but never joins, for testing what a
// client does with a refused join (§5.4). /stale answers every join {"reason":"stale"} (as
// for an expired session token); /crash raises in mount, which Phoenix turns into
// {"reason":"join crashed"}.
#include "target/liveview_pages.hpp"

namespace stampede::target {
namespace {

constexpr std::string_view kStaleParts[] = {
    "<h1>Stale</h1>\n<p id=\"stale\">This LiveView refuses every join: {&quot;reason&quot;:&quot;stale&quot;}.</p>"};
constexpr Template kStale{kStaleParts, false};
constexpr std::string_view kCrashParts[] = {
    "<h1>Crash</h1>\n<p id=\"crash\">This LiveView crashes in mount once connected: "
    "{&quot;reason&quot;:&quot;join crashed&quot;}.</p>"};
constexpr Template kCrash{kCrashParts, false};

class RefusingLive final : public LiveView {
 public:
  explicit RefusingLive(LiveViewPage page) : LiveView(page) {}

  const Template& statics(LiveViewDialect) const override { return page() == LiveViewPage::Stale ? kStale : kCrash; }
  void render(RenderOutput&, Changed) const override {}
};

}  // namespace

MountResult mount_refusing(LiveViewPage page, const MountContext& context) {
  MountResult result;
  if (context.connected) {
    result.kind = page == LiveViewPage::Stale ? MountResult::Kind::Stale : MountResult::Kind::Crash;
    return result;
  }
  result.view = std::make_unique<RefusingLive>(page);
  return result;
}

}  // namespace stampede::target
