// The LiveView demo's pages over HTTP: the container and the CSRF meta every page carries,
// the session cookie (set once, then kept), the login and logout redirects, the assets, the
// dialect prefixes, and that none of it reaches the calibrated truth.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <memory>
#include <string>

#include "target/liveview_browser.hpp"
#include "target/liveview_tokens.hpp"
#include "target/target_server.hpp"

namespace stampede::target {
namespace {

using testing::LiveViewBrowser;
using testing::LoopbackClient;

std::unique_ptr<TargetServer> start_pages_server(LiveViewDialect dialect = LiveViewDialect::V1) {
  TargetOptions options;
  options.listen.port = 0;
  options.seed = 5;
  options.liveview = dialect;
  auto server = std::make_unique<TargetServer>(options);
  server->start();
  return server;
}

TEST(LiveViewPages, EveryPageCarriesAContainerTheCsrfMetaAndTheSessionCookie) {
  auto server = start_pages_server();
  for (const std::string path : {"/counter", "/posts/new", "/posts", "/components", "/upload", "/stale", "/crash"}) {
    SCOPED_TRACE(path);
    LiveViewBrowser browser(server->port());
    const auto page = browser.load(path);
    EXPECT_EQ(page.response.header("content-type"), "text/html; charset=utf-8");
    EXPECT_EQ(page.csrf.size(), 56u);
    EXPECT_EQ(page.id.size(), 20u);
    EXPECT_EQ(page.id.substr(0, 4), "phx-");
    EXPECT_NE(page.response.body.find("<div id=\"" + page.id + "\" data-phx-main data-phx-session=\"SFMyNTY."),
              std::string::npos);
    EXPECT_EQ(page.static_token.substr(0, 8), "SFMyNTY.");
    EXPECT_NE(page.response.body.find("phx-track-static"), std::string::npos);
    EXPECT_NE(page.response.body.find("<main>"), std::string::npos);
    const auto cookie = page.response.header("set-cookie");
    EXPECT_EQ(cookie.substr(0, 18), "_demo_key=SFMyNTY.");
    EXPECT_NE(cookie.find("; path=/; HttpOnly; SameSite=Lax"), std::string::npos);
    // The session and the page's token agree: the meta is a masked form of the session's secret.
    const auto session = decode_session_cookie(browser.cookies.at("_demo_key"));
    ASSERT_TRUE(session);
    EXPECT_TRUE(csrf_token_matches(page.csrf, session->csrf_token));

    // With the cookie, the session already has its secret: no new cookie, a fresh mask.
    const auto again = browser.load(path);
    EXPECT_FALSE(again.response.has_header("set-cookie"));
    EXPECT_NE(again.csrf, page.csrf);
    EXPECT_TRUE(csrf_token_matches(again.csrf, session->csrf_token));
    EXPECT_NE(again.id, page.id);
  }
}

TEST(LiveViewPages, DashboardNeedsALoginAndLogoutDropsTheSession) {
  auto server = start_pages_server();
  LiveViewBrowser browser(server->port());
  auto response = browser.get("/dashboard");
  EXPECT_EQ(response.status, 302);
  EXPECT_EQ(response.header("location"), "/login");
  EXPECT_EQ(response.body, "<html><body>You are being <a href=\"/login\">redirected</a>.</body></html>");

  response = browser.get("/login");
  EXPECT_EQ(response.status, 200);
  EXPECT_NE(response.body.find("href=\"/login?user=alice\""), std::string::npos);

  response = browser.get("/login?user=bob%20b");
  EXPECT_EQ(response.status, 302);
  EXPECT_EQ(response.header("location"), "/dashboard");
  const auto page = browser.load("/dashboard");
  EXPECT_NE(page.response.body.find("<h1 id=\"greeting\">Hello bob b</h1>"), std::string::npos);
  const auto session = decode_session_cookie(browser.cookies.at("_demo_key"));
  ASSERT_TRUE(session);
  EXPECT_EQ(session->user, "bob b");
  EXPECT_FALSE(session->csrf_token.empty());

  response = browser.get("/logout");
  EXPECT_EQ(response.status, 302);
  EXPECT_EQ(response.header("location"), "/login");
  EXPECT_NE(response.header("set-cookie").find("max-age=0"), std::string::npos);
  EXPECT_TRUE(browser.cookies.empty());
  EXPECT_EQ(browser.get("/dashboard").status, 302);
}

TEST(LiveViewPages, TheDialectPrefixesServeTheSamePagesInTheirDialect) {
  auto server = start_pages_server(LiveViewDialect::V1);
  LiveViewBrowser browser(server->port());
  const auto root = browser.load("/counter");
  const auto v020 = browser.load("/lv020/counter");
  const auto v1 = browser.load("/lv1x/counter");
  // 0.20's layout: no data-default on the title, the container at the start of its line.
  EXPECT_NE(root.response.body.find("<title data-default=\"Demo\""), std::string::npos);
  EXPECT_NE(v1.response.body.find("<title data-default=\"Demo\""), std::string::npos);
  EXPECT_NE(v020.response.body.find("<title data-suffix="), std::string::npos);
  EXPECT_NE(v020.response.body.find("<body>\n<div id="), std::string::npos);
  EXPECT_NE(v020.response.body.find("src=\"/lv020/assets/app.js\""), std::string::npos);
  EXPECT_TRUE(v020.response.has_header("x-frame-options"));
  EXPECT_TRUE(root.response.has_header("content-security-policy"));
  // Links stay under the prefix.
  const auto posts = browser.load("/lv020/posts");
  EXPECT_NE(posts.response.body.find("href=\"/lv020/posts?page=2\""), std::string::npos);
  EXPECT_NE(posts.response.body.find("href=\"/lv020/posts/new\""), std::string::npos);
  const auto dashboard = browser.get("/lv020/dashboard");
  EXPECT_EQ(dashboard.header("location"), "/lv020/login");

  // --liveview 0.20 serves 0.20 under "/".
  auto old = start_pages_server(LiveViewDialect::V0_20);
  LiveViewBrowser old_browser(old->port());
  EXPECT_NE(old_browser.load("/counter").response.body.find("<title data-suffix="), std::string::npos);
}

TEST(LiveViewPages, TheBootstrapScriptIsServedAndTheBundlesAreNot) {
  auto server = start_pages_server();
  LiveViewBrowser browser(server->port());
  auto script = browser.get("/assets/app.js");
  EXPECT_EQ(script.status, 200);
  EXPECT_EQ(script.header("content-type"), "text/javascript");
  EXPECT_NE(script.body.find("new LiveView.LiveSocket(\"/live\""), std::string::npos);
  EXPECT_EQ(script.body.size(), 521u);  // the recorded app's file, byte for byte
  script = browser.get("/lv020/assets/app.js");
  EXPECT_NE(script.body.find("new LiveView.LiveSocket(\"/lv020/live\""), std::string::npos);
  EXPECT_EQ(browser.get("/assets/phoenix.min.js").status, 404);
  EXPECT_EQ(browser.get("/lv1x/nothing").status, 404);
}

TEST(LiveViewPages, PagesAreNotPartOfTheTruth) {
  auto server = start_pages_server();
  LiveViewBrowser browser(server->port());
  for (int i = 0; i < 5; ++i) browser.load("/counter");
  browser.get("/login?user=alice");
  LoopbackClient http(server->port());
  EXPECT_EQ(http.get("/").status, 200);  // a calibrated endpoint, for comparison
  EXPECT_EQ(server->truth().count, 1u);
}

}  // namespace
}  // namespace stampede::target
