// /dashboard (DemoWeb.DashboardLive, live_session :authenticated): "Hello <user>" for the
// user /login put in the session. Without one the router's plug redirects the GET to /login
// (see liveview_http_routes.cpp), and a join refuses with a redirect to /login, as an
// on_mount hook that halts with redirect/2 does.
#include <string>

#include "target/liveview_pages.hpp"

namespace stampede::target {
namespace {

constexpr std::string_view kDashboardParts[] = {"<h1 id=\"greeting\">Hello ", "</h1>\n<a href=\"/logout\">log out</a>"};
constexpr Template kDashboard{kDashboardParts, false};

class DashboardLive final : public LiveView {
 public:
  explicit DashboardLive(std::string_view user) : LiveView(LiveViewPage::Dashboard), user_(user) {}

  const Template& statics(LiveViewDialect) const override { return kDashboard; }

  void render(RenderOutput& out, Changed changed) const override {
    if (changed.full) out.text(0, escape_html(user_));
  }

 private:
  std::string user_;
};

}  // namespace

MountResult mount_dashboard(const MountContext& context) {
  MountResult result;
  if (context.user.empty()) {
    result.kind = MountResult::Kind::Redirect;
    result.redirect_to = std::string(context.scope.prefix) + "/login";
    return result;
  }
  result.view = std::make_unique<DashboardLive>(context.user);
  return result;
}

}  // namespace stampede::target
