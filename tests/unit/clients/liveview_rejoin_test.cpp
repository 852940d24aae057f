// A LiveView's rejoin after its socket reconnected (clients/liveview_rejoin.hpp), without a
// socket: the payload phoenix_live_view's View sends again (its channel's params closure run
// once more) and the join reply's rendered tree replacing the view's, in both wire dialects.
#include "clients/liveview_rejoin.hpp"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include <string>

namespace stampede::clients {
namespace {

namespace lv = proto::lv;
namespace json = boost::json;

lv::LiveViewRoot root(std::string id = "phx-F1", std::string parent = "") {
  lv::LiveViewRoot r;
  r.id = std::move(id);
  r.session = "SESSION." + r.id;
  r.static_token = "STATIC." + r.id;
  r.parent_id = std::move(parent);
  return r;
}

lv::JoinParams page_params(lv::Version version) {
  lv::JoinParams p;
  p.version = version;
  p.csrf_token = "CSRF";
  p.extra_params["locale"] = "fr";
  p.track_static = {"http://h/assets/app.js"};
  return p;
}

json::object payload(const lv::JoinParams& p) { return json::parse(lv::join_payload(p)).as_object(); }

constexpr lv::Version kV1{1, 2, 10};
constexpr lv::Version kV020{0, 20, 17};

TEST(LiveViewRejoin, TheMainViewRejoinsWithItsTokensThePageUrlNowAndOneMoreMount) {
  LiveViewTopic view(root());
  lv::JoinParams first = page_params(kV1);
  first.url = "http://h/counter";
  first.session = view.root.session;
  first.static_token = view.root.static_token;
  remember_join(view, first);
  count_mount(view);  // the first join's reply: mounts 1

  // A live_patch moved the page meanwhile: the rejoin asks for where the page is now.
  const json::object rejoin = payload(next_rejoin_params(view, page_params(kV1), "http://h/counter?page=2"));
  EXPECT_EQ(rejoin.at("url"), "http://h/counter?page=2");
  EXPECT_FALSE(rejoin.contains("redirect"));
  EXPECT_EQ(rejoin.at("session"), "SESSION.phx-F1");
  EXPECT_EQ(rejoin.at("static"), "STATIC.phx-F1");
  EXPECT_FALSE(rejoin.contains("flash"));
  const json::object& params = rejoin.at("params").as_object();
  EXPECT_EQ(params.at("_csrf_token"), "CSRF");
  EXPECT_EQ(params.at("locale"), "fr");
  EXPECT_EQ(params.at("_mounts"), 1);
  EXPECT_EQ(params.at("_mount_attempts"), 0);
  EXPECT_EQ(params.at("_track_static").as_array().size(), 1u);

  // Refused or unanswered, the next try counts the attempt; a success starts over.
  const json::object again = payload(next_rejoin_params(view, page_params(kV1), "http://h/counter?page=2"));
  EXPECT_EQ(again.at("params").at("_mount_attempts"), 1);
  count_mount(view);
  const json::object third = payload(next_rejoin_params(view, page_params(kV1), "http://h/counter?page=2"));
  EXPECT_EQ(third.at("params").at("_mounts"), 2);
  EXPECT_EQ(third.at("params").at("_mount_attempts"), 0);
}

TEST(LiveViewRejoin, AViewALiveNavigationJoinedKeepsSendingRedirectAndItsRefererButNoFlash) {
  LiveViewTopic view(root());
  lv::JoinParams nav = page_params(kV1);
  nav.url = "http://h/posts/1";
  nav.redirect = true;
  nav.live_referer = "http://h/posts";
  nav.flash = "FLASH";
  remember_join(view, nav);
  count_mount(view);
  const json::object rejoin = payload(next_rejoin_params(view, page_params(kV1), "http://h/posts/1"));
  EXPECT_EQ(rejoin.at("redirect"), "http://h/posts/1");
  EXPECT_FALSE(rejoin.contains("url"));
  EXPECT_FALSE(rejoin.contains("flash"));
  EXPECT_EQ(rejoin.at("params").at("_live_referer"), "http://h/posts");
  EXPECT_EQ(rejoin.at("params").at("_mounts"), 1);
}

TEST(LiveViewRejoin, ANestedViewSendsNoUrlNorTrackStaticAndTheOldDialectNoAttempts) {
  LiveViewTopic child(root("phx-child", "phx-F1"));
  lv::JoinParams first = page_params(kV020);
  first.track_static.clear();  // as the first join of a child went
  remember_join(child, first);
  count_mount(child);
  const json::object rejoin = payload(next_rejoin_params(child, page_params(kV020), "http://h/page"));
  EXPECT_FALSE(rejoin.contains("url"));
  EXPECT_FALSE(rejoin.contains("redirect"));
  EXPECT_EQ(rejoin.at("session"), "SESSION.phx-child");
  const json::object& params = rejoin.at("params").as_object();
  EXPECT_FALSE(params.contains("_track_static"));
  EXPECT_EQ(params.at("_mounts"), 1);
  EXPECT_FALSE(params.contains("_mount_attempts"));  // sent from LiveView 1.0 on
}

// The view's tree after some diffs, then a rejoin reply: what the page shows is the new mount.
void expect_replaced(const std::string& version, const std::string& first, const std::string& diff,
                     const std::string& rejoin, const std::string& after_diff, const std::string& after_rejoin) {
  LiveViewTopic view(root());
  lv::DiffResult result;
  ASSERT_EQ(view.rendered.merge_join(R"({"liveview_version":")" + version + R"(","rendered":)" + first + "}", result), "");
  ASSERT_EQ(view.rendered.merge_diff(diff, result), "");
  EXPECT_EQ(view.rendered.to_html(), after_diff);
  const json::value reply = json::parse(R"({"liveview_version":")" + version + R"(","rendered":)" + rejoin + "}");
  lv::DiffResult rejoined;
  ASSERT_EQ(replace_rendered(view, reply, rejoined), "");
  EXPECT_EQ(view.rendered.to_html(), after_rejoin);
  // Later diffs merge into the new tree.
  ASSERT_EQ(view.rendered.merge_diff(R"({"0":"1"})", result), "");
}

TEST(LiveViewRejoin, TheRejoinReplysTreeReplacesTheViewsInLiveView1) {
  // Components and the title of the old mount go: the new server process rendered anew.
  expect_replaced("1.2.10",
                  R"({"0":"7","1":1,"s":["<p>","</p>","</div>"],"c":{"1":{"0":"old","s":["<i>","</i>"]}},"t":"Old","r":1})",
                  R"({"0":"8"})",
                  R"({"0":"0","1":"","s":["<p>","</p>","</div>"],"r":1})",
                  "<p>8</p><i>old</i></div>", "<p>0</p></div>");
}

TEST(LiveViewRejoin, TheRejoinReplysTreeReplacesTheViewsInLiveView020) {
  expect_replaced("0.20.17", R"({"0":"7","1":{"d":[["a"],["b"]],"s":["<li>","</li>"]},"s":["<p>","</p>",""],"r":1})",
                  R"({"0":"8"})", R"({"0":"0","1":{"d":[],"s":["<li>","</li>"]},"s":["<p>","</p>",""],"r":1})",
                  "<p>8</p><li>a</li><li>b</li>", "<p>0</p>");
}

TEST(LiveViewRejoin, ARejoinReplyThatCannotBeReadLeavesTheTreeAsItWas) {
  LiveViewTopic view(root());
  lv::DiffResult result;
  ASSERT_EQ(view.rendered.merge_join(R"({"liveview_version":"1.2.10","rendered":{"0":"7","s":["<p>","</p>"]}})", result),
            "");
  EXPECT_NE(replace_rendered(view, json::parse(R"({"liveview_version":"1.2.10"})"), result), "");
  EXPECT_NE(replace_rendered(view, json::parse(R"({"rendered":{"0":{"s":5}}})"), result), "");
  EXPECT_EQ(view.rendered.to_html(), "<p>7</p>");
}

}  // namespace
}  // namespace stampede::clients
