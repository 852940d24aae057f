// A page that is not a LiveView page says why, in words a scenario author can act on.
#include "clients/liveview_page_load.hpp"

#include <gtest/gtest.h>

namespace stampede::clients {
namespace {

constexpr const char* kLivePage = R"(<html><head><meta name="csrf-token" content="tok">
<script defer phx-track-static src="/assets/app.js"></script></head><body>
<div id="phx-A" data-phx-main data-phx-session="S" data-phx-static="T"><main>hi</main></div></body></html>)";

HttpResponse response(int status, std::string body, std::string url, std::string type = "text/html") {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  r.url = std::move(url);
  r.headers.push_back({"content-type", std::move(type)});
  return r;
}

TEST(LiveViewPageLoad, ALiveViewPageGivesItsTokensAndAbsoluteTrackedAssets) {
  LiveViewPage page;
  const auto o = read_page("http://h/counter", response(200, kLivePage, "http://h/counter"), page);
  ASSERT_TRUE(o.ok()) << o.message;
  EXPECT_EQ(page.url, "http://h/counter");
  EXPECT_EQ(page.scan.csrf_token, "tok");
  ASSERT_EQ(page.scan.views.size(), 1u);
  EXPECT_EQ(page.scan.views[0].id, "phx-A");
  EXPECT_EQ(page.track_static, std::vector<std::string>{"http://h/assets/app.js"});
}

TEST(LiveViewPageLoad, JsonIsNotALiveView) {
  LiveViewPage page;
  const auto o = read_page("http://h/api/posts", response(200, "[]", "http://h/api/posts", "application/json"), page);
  EXPECT_EQ(o.failure, "page_error");
  EXPECT_EQ(o.reason, "no liveview");
  EXPECT_NE(o.message.find("http://h/api/posts has no LiveView"), std::string::npos) << o.message;
  EXPECT_NE(o.message.find("application/json"), std::string::npos) << o.message;
  EXPECT_NE(o.message.find("Pages behind a login"), std::string::npos) << o.message;
}

TEST(LiveViewPageLoad, ALoginPageSaysSoAndWhereItCameFrom) {
  LiveViewPage page;
  const auto o = read_page("http://h/dashboard",
                           response(200, "<form><input type=password name=pw></form>", "http://h/users/log_in"), page);
  EXPECT_EQ(o.reason, "login page");
  EXPECT_NE(o.message.find("http://h/dashboard (redirected to http://h/users/log_in)"), std::string::npos) << o.message;
  EXPECT_NE(o.message.find("Pages behind a login"), std::string::npos) << o.message;
}

TEST(LiveViewPageLoad, ALoginLiveViewReachedByARedirectIsNotTheLiveViewAskedFor) {
  // phx.gen.auth's login page is a LiveView: joining it would measure the wrong page.
  LiveViewPage page;
  const auto o = read_page("http://h/dashboard", response(200, kLivePage, "http://h/users/log_in"), page);
  EXPECT_EQ(o.reason, "login page");
  EXPECT_NE(o.message.find("Pages behind a login"), std::string::npos) << o.message;
  // Asked for directly, it is a page like any other; a query that mentions login is not a login page.
  EXPECT_TRUE(read_page("http://h/users/log_in", response(200, kLivePage, "http://h/users/log_in"), page).ok());
  EXPECT_TRUE(read_page("http://h/a", response(200, kLivePage, "http://h/b?from=login"), page).ok());
}

TEST(LiveViewPageLoad, NoCsrfMetaIsNamed) {
  LiveViewPage page;
  const auto o = read_page("http://h/x",
                           response(200, R"(<div id="phx-A" data-phx-main data-phx-session="S"></div>)", "http://h/x"),
                           page);
  EXPECT_EQ(o.reason, "no csrf token");
  EXPECT_NE(o.message.find("csrf-token"), std::string::npos);
}

TEST(LiveViewPageLoad, HttpErrorsAndRedirectLoops) {
  LiveViewPage page;
  EXPECT_EQ(read_page("http://h/x", response(404, "nope", "http://h/x"), page).reason, "status 404");
  HttpResponse loop = response(302, "", "http://h/b");
  loop.error = "stopped after 10 redirects (the request allows 10)";
  loop.error_reason = "redirects";
  loop.headers.push_back({"location", "/a"});
  const auto o = read_page("http://h/a", loop, page);
  EXPECT_EQ(o.reason, "redirects");
  EXPECT_NE(o.message.find("redirect loop"), std::string::npos) << o.message;
  HttpResponse refused;
  refused.error = "connection refused";
  refused.error_reason = "refused";
  EXPECT_EQ(read_page("http://h/x", refused, page).reason, "refused");
}

}  // namespace
}  // namespace stampede::clients
