// Joining a LiveView over a real socket, and every way a join is refused (§5.4 of
// ../shared/phoenix-protocol.md): a socket without the session cookie, a CSRF token that does
// not match it (in the socket URL or in the join), a session token that is forged, made for
// another container or of the other dialect's format, a relative URL: "stale". A URL of
// another view: "unauthorized". /stale and /crash refuse on purpose. /dashboard without a
// user: a redirect to /login.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <memory>
#include <string>

#include "target/liveview_browser.hpp"
#include "target/liveview_tokens.hpp"
#include "target/target_server.hpp"

namespace stampede::target {
namespace {

namespace json = boost::json;
using testing::LivePage;
using testing::LiveViewBrowser;
using testing::WsTestClient;

std::unique_ptr<TargetServer> start_join_server(LiveViewDialect dialect = LiveViewDialect::V1) {
  TargetOptions options;
  options.listen.port = 0;
  options.seed = 9;
  options.liveview = dialect;
  auto server = std::make_unique<TargetServer>(options);
  server->start();
  return server;
}

std::string join_frame(const LivePage& page, std::string_view url, std::string_view csrf,
                       std::string_view topic_id = {}) {
  return R"(["1","1","lv:)" + std::string(topic_id.empty() ? page.id : topic_id) + R"(","phx_join",)" +
         LiveViewBrowser::join_payload(page, url, csrf) + "]";
}

json::array join(WsTestClient& socket, const std::string& frame) {
  socket.send_text(frame);
  return testing::next_frame(socket);
}

void expect_refused(const json::array& reply, std::string_view response) {
  EXPECT_EQ(reply.at(3), "phx_reply");
  EXPECT_EQ(reply.at(0), "1");  // the join_ref is echoed, unlike "unmatched topic"
  EXPECT_EQ(reply.at(4).as_object().at("status"), "error");
  EXPECT_EQ(testing::frame_response(reply), response);
}

constexpr std::string_view kStale = R"({"reason":"stale"})";

class LiveViewJoin : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = start_join_server();
    browser_ = std::make_unique<LiveViewBrowser>(server_->port());
    page_ = browser_->load("/counter");
    url_ = browser_->origin() + "/counter";
  }

  std::unique_ptr<TargetServer> server_;
  std::unique_ptr<LiveViewBrowser> browser_;
  LivePage page_;
  std::string url_;
};

TEST_F(LiveViewJoin, ABrowserLikeJoinMountsTheView) {
  auto socket = browser_->connect(page_.csrf);
  const auto reply = join(*socket, join_frame(page_, url_, page_.csrf));
  EXPECT_EQ(reply.at(4).as_object().at("status"), "ok");
  const auto& response = reply.at(4).as_object().at("response").as_object();
  EXPECT_EQ(response.at("liveview_version"), "1.2.10");
  EXPECT_EQ(response.at("rendered").as_object().at("t"), "Counter");
  EXPECT_FALSE(response.contains("container"));  // only navigation joins carry it
}

TEST_F(LiveViewJoin, WithoutTheSessionCookieTheJoinIsStale) {
  auto socket = browser_->connect(page_.csrf, "/live/websocket", false);
  expect_refused(join(*socket, join_frame(page_, url_, page_.csrf)), kStale);
}

TEST_F(LiveViewJoin, ACsrfTokenOfAnotherSessionIsStale) {
  LiveViewBrowser other(server_->port());
  const auto other_page = other.load("/counter");
  // In the socket URL: Phoenix does not load the session.
  auto socket = browser_->connect(other_page.csrf);
  expect_refused(join(*socket, join_frame(page_, url_, page_.csrf)), kStale);
  // In the join's params.
  socket = browser_->connect(page_.csrf);
  expect_refused(join(*socket, join_frame(page_, url_, other_page.csrf)), kStale);
  // Another masking of the right secret is fine (every page render masks anew).
  const auto again = browser_->load("/counter");
  socket = browser_->connect(again.csrf);
  EXPECT_EQ(join(*socket, join_frame(page_, url_, page_.csrf)).at(4).as_object().at("status"), "ok");
}

TEST_F(LiveViewJoin, ASessionTokenForAnotherContainerOrForgedIsStale) {
  auto socket = browser_->connect(page_.csrf);
  const auto other = browser_->load("/counter");
  // The token of `page_`, on the topic of another container.
  expect_refused(join(*socket, join_frame(page_, url_, page_.csrf, other.id)), kStale);
  auto forged = page_;
  auto& flipped = forged.session[forged.session.size() - 10];
  flipped = flipped == 'A' ? 'B' : 'A';
  expect_refused(join(*socket, join_frame(forged, url_, page_.csrf)), kStale);
  auto expired = page_;
  expired.session = sign_view_session(LiveViewDialect::V1, {page_.id, "Elixir.DemoWeb.CounterLive", "default"},
                                      wall_clock_ms() - 15LL * 24 * 3600 * 1000);
  expect_refused(join(*socket, join_frame(expired, url_, page_.csrf)), kStale);
}

TEST_F(LiveViewJoin, ATokenOfTheOtherDialectIsStale) {
  // A 0.20 page (token format 5) joined on the 1.x socket (format 6), and the other way round.
  const auto old_page = browser_->load("/lv020/counter");
  auto socket = browser_->connect(old_page.csrf);
  expect_refused(join(*socket, join_frame(old_page, url_, old_page.csrf)), kStale);
  auto old_socket = browser_->connect(page_.csrf, "/lv020/live/websocket");
  expect_refused(join(*old_socket, join_frame(page_, browser_->origin() + "/lv020/counter", page_.csrf)), kStale);
  // Its own socket takes it, and answers as LiveView 0.20.17.
  old_socket = browser_->connect(old_page.csrf, "/lv020/live/websocket");
  const auto reply = join(*old_socket, join_frame(old_page, browser_->origin() + "/lv020/counter", old_page.csrf));
  EXPECT_EQ(reply.at(4).as_object().at("response").as_object().at("liveview_version"), "0.20.17");
}

TEST_F(LiveViewJoin, TheUrlMustBeAbsoluteAndRouteToTheSameView) {
  auto socket = browser_->connect(page_.csrf);
  expect_refused(join(*socket, join_frame(page_, "/counter", page_.csrf)), kStale);
  expect_refused(join(*socket, join_frame(page_, browser_->origin() + "/posts", page_.csrf)),
                 R"({"reason":"unauthorized"})");
  expect_refused(join(*socket, join_frame(page_, browser_->origin() + "/lv020/counter", page_.csrf)),
                 R"({"reason":"unauthorized"})");
}

TEST_F(LiveViewJoin, StaleAndCrashPagesRefuseEveryJoin) {
  const auto stale = browser_->load("/stale");
  auto socket = browser_->connect(stale.csrf);
  expect_refused(join(*socket, join_frame(stale, browser_->origin() + "/stale", stale.csrf)), kStale);
  const auto crash = browser_->load("/crash");
  expect_refused(join(*socket, join_frame(crash, browser_->origin() + "/crash", crash.csrf)),
                 R"({"reason":"join crashed"})");
  // The socket lives on.
  socket->send_text(R"([null,"9","phoenix","heartbeat",{}])");
  EXPECT_EQ(testing::frame_response(testing::next_frame(*socket)), "{}");
}

TEST(LiveViewJoinDashboard, ASessionWithoutAUserIsRedirectedToLogin) {
  for (const auto dialect : {LiveViewDialect::V1, LiveViewDialect::V0_20}) {
    auto server = start_join_server(dialect);
    LiveViewBrowser browser(server->port());
    browser.load("/counter");  // a session with a CSRF secret, no user
    const auto anonymous = browser.cookies;
    browser.get("/login?user=alice");
    const auto dashboard = browser.load("/dashboard");  // the same secret, and the user
    browser.cookies = anonymous;
    auto socket = browser.connect(dashboard.csrf);
    const auto reply = join(*socket, join_frame(dashboard, browser.origin() + "/dashboard", dashboard.csrf));
    expect_refused(reply, dialect == LiveViewDialect::V1 ? R"({"redirect":{"status":302,"to":"/login"}})"
                                                         : R"({"redirect":{"to":"/login"}})");
  }
}

}  // namespace
}  // namespace stampede::target
