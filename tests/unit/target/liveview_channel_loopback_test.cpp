// A joined LiveView's channel over a real socket, where the recordings are silent: the
// socket-level frames (heartbeat, unmatched topics, leave, duplicate joins), crashes, live
// navigation from a link, patches that leave the view, the flash, component bookkeeping, and
// the ways an upload goes wrong.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <memory>
#include <string>

#include "target/liveview_browser.hpp"
#include "target/target_server.hpp"

namespace stampede::target {
namespace {

namespace json = boost::json;
using testing::LivePage;
using testing::LiveViewBrowser;
using testing::next_frame;
using testing::Received;
using testing::WsTestClient;

std::unique_ptr<TargetServer> start_channel_server(LiveViewDialect dialect) {
  TargetOptions options;
  options.listen.port = 0;
  options.seed = 11;
  options.liveview = dialect;
  auto server = std::make_unique<TargetServer>(options);
  server->start();
  return server;
}

// One browser tab on one page: the page, its socket, the view joined with join_ref "1".
struct Tab {
  Tab(TargetServer& server, std::string_view path) : browser(server.port()) {
    page = browser.load(path);
    topic = "lv:" + page.id;
    socket = browser.connect(page.csrf);
    socket->send_text(R"(["1","1",")" + topic + R"(","phx_join",)" +
                      LiveViewBrowser::join_payload(page, browser.origin() + std::string(path), page.csrf) + "]");
    join_reply = next_frame(*socket);
  }

  // Pushes `event` with `payload` on the view's topic, ref `ref`, and returns the next frame.
  json::array push(std::string_view ref, std::string_view event, std::string_view payload) {
    socket->send_text(R"(["1",")" + std::string(ref) + R"(",")" + topic + R"(",")" + std::string(event) + R"(",)" +
                      std::string(payload) + "]");
    return next_frame(*socket);
  }

  bool quiet() { return socket->next(std::chrono::milliseconds(100)).kind == Received::Kind::Timeout; }

  LiveViewBrowser browser;
  LivePage page;
  std::string topic;
  std::unique_ptr<WsTestClient> socket;
  json::array join_reply;
};

std::string status_of(const json::array& frame) {
  return std::string(frame.at(4).as_object().at("status").as_string());
}

class LiveViewChannel : public ::testing::TestWithParam<LiveViewDialect> {
 protected:
  void SetUp() override { server_ = start_channel_server(GetParam()); }
  bool v1() const { return GetParam() == LiveViewDialect::V1; }
  std::unique_ptr<TargetServer> server_;
};

TEST_P(LiveViewChannel, HeartbeatsAndUnknownTopicsAreAnsweredByTheSocket) {
  Tab tab(*server_, "/counter");
  ASSERT_EQ(status_of(tab.join_reply), "ok");
  tab.socket->send_text(R"([null,"5","phoenix","heartbeat",{}])");
  EXPECT_EQ(json::serialize(next_frame(*tab.socket)),
            R"([null,"5","phoenix","phx_reply",{"status":"ok","response":{}}])");
  tab.socket->send_text(R"(["1","6","lv:phx-AAAAAAAAAAAAAAAA","event",{"type":"click","event":"inc","value":{}}])");
  EXPECT_EQ(
      json::serialize(next_frame(*tab.socket)),
      R"([null,"6","lv:phx-AAAAAAAAAAAAAAAA","phx_reply",{"status":"error","response":{"reason":"unmatched topic"}}])");
  tab.socket->send_text(R"(["7","7","room:lobby","phx_join",{}])");
  EXPECT_EQ(testing::frame_response(next_frame(*tab.socket)), R"({"reason":"unmatched topic"})");
}

TEST_P(LiveViewChannel, AnEventWithoutAClauseCrashesTheViewAndOnlyIt) {
  Tab tab(*server_, "/counter");
  const auto error = tab.push("2", "event", R"({"type":"click","event":"nope","value":{}})");
  EXPECT_EQ(error.at(3), "phx_error");
  EXPECT_EQ(error.at(0), "1");
  EXPECT_EQ(error.at(1), "1");
  // Phoenix 1.7 sends {}, 1.8.10 and later say why.
  EXPECT_EQ(json::serialize(error.at(4)), v1() ? R"({"reason":"channel_crash"})" : "{}");
  // The view is gone: its topic is unmatched now; the socket still answers.
  const auto after = tab.push("3", "event", R"({"type":"click","event":"inc","value":{}})");
  EXPECT_EQ(testing::frame_response(after), R"({"reason":"unmatched topic"})");
}

TEST_P(LiveViewChannel, LeavingClosesBeforeTheReplyAndADuplicateJoinRepliesFirst) {
  Tab tab(*server_, "/counter");
  tab.socket->send_text(R"(["1","2",")" + tab.topic + R"(","phx_leave",{}])");
  const auto close = next_frame(*tab.socket);
  EXPECT_EQ(close.at(3), "phx_close");
  const auto reply = next_frame(*tab.socket);
  EXPECT_EQ(reply.at(3), "phx_reply");
  EXPECT_EQ(reply.at(1), "2");

  const auto join = R"(",")" + tab.topic + R"(","phx_join",)" +
                    LiveViewBrowser::join_payload(tab.page, tab.browser.origin() + "/counter", tab.page.csrf) + "]";
  tab.socket->send_text(R"(["3","3)" + join);
  EXPECT_EQ(status_of(next_frame(*tab.socket)), "ok");
  tab.socket->send_text(R"(["4","4)" + join);
  const auto second = next_frame(*tab.socket);
  EXPECT_EQ(second.at(0), "4");
  EXPECT_EQ(status_of(second), "ok");
  const auto old_close = next_frame(*tab.socket);
  EXPECT_EQ(old_close.at(3), "phx_close");
  EXPECT_EQ(old_close.at(0), "3");
}

TEST_P(LiveViewChannel, ALinkNavigationRejoinsTheSameTopicWithRedirect) {
  Tab tab(*server_, "/posts");
  // <.link navigate="/posts/new">: leave, then join the same topic with "redirect" and the
  // old tokens (§5.8).
  tab.socket->send_text(R"(["1","2",")" + tab.topic + R"(","phx_leave",{}])");
  EXPECT_EQ(next_frame(*tab.socket).at(3), "phx_close");
  EXPECT_EQ(next_frame(*tab.socket).at(3), "phx_reply");
  json::object payload{{"redirect", tab.browser.origin() + "/posts/new"},
                       {"params", json::object{{"_csrf_token", tab.page.csrf}, {"_mounts", 0}}},
                       {"session", tab.page.session},
                       {"static", tab.page.static_token}};
  tab.socket->send_text(R"(["3","3",")" + tab.topic + R"(","phx_join",)" + json::serialize(payload) + "]");
  const auto reply = next_frame(*tab.socket);
  ASSERT_EQ(status_of(reply), "ok");
  const auto& response = reply.at(4).as_object().at("response").as_object();
  EXPECT_EQ(json::serialize(response.at("container")), R"(["div",{}])");
  EXPECT_EQ(response.at("rendered").as_object().at("t"), "New post");
  // Another live_session is out of reach.
  payload["redirect"] = tab.browser.origin() + "/dashboard";
  tab.socket->send_text(R"(["4","4",")" + tab.topic + R"(","phx_join",)" + json::serialize(payload) + "]");
  EXPECT_EQ(testing::frame_response(next_frame(*tab.socket)), R"({"reason":"unauthorized"})");
}

TEST_P(LiveViewChannel, APatchToAnotherViewAsksForANavigationAndAPatchToTheSamePageChangesNothing) {
  Tab tab(*server_, "/posts");
  const auto same = tab.push("2", "live_patch", R"({"url":")" + tab.browser.origin() + R"(/posts?page=1"})");
  EXPECT_EQ(testing::frame_response(same), "{}");
  const auto other = tab.push("3", "live_patch", R"({"url":")" + tab.browser.origin() + R"(/counter"})");
  EXPECT_EQ(testing::frame_response(other), R"({"link_redirect":true})");
  // Past the last page: an empty list, the Prev link appears.
  const auto empty = tab.push("4", "live_patch", R"({"url":")" + tab.browser.origin() + R"(/posts?page=9"})");
  const auto diff = json::serialize(empty.at(4).as_object().at("response").as_object().at("diff"));
  EXPECT_NE(diff.find(v1() ? R"("1":{"k":{"kc":0}})" : R"("1":{"d":[]})"), std::string::npos) << diff;
  EXPECT_NE(diff.find("/posts?page=8"), std::string::npos) << diff;
}

TEST_P(LiveViewChannel, TheFlashOfANavigationCanBeCleared) {
  Tab tab(*server_, "/posts/new");
  const auto diff =
      tab.push("2", "event", R"({"type":"form","event":"save","value":"post%5Btitle%5D=Hi&post%5Bbody%5D=x"})");
  EXPECT_EQ(json::serialize(diff.at(4)), R"({"e":[]})");
  const auto navigate = next_frame(*tab.socket);
  const auto& live_redirect = navigate.at(4).as_object().at("response").as_object().at("live_redirect").as_object();
  EXPECT_EQ(live_redirect.at("to"), "/posts");
  EXPECT_EQ(live_redirect.at("kind"), "push");
  EXPECT_EQ(next_frame(*tab.socket).at(3), "phx_close");

  json::object payload{{"redirect", tab.browser.origin() + "/posts"},
                       {"params", json::object{{"_csrf_token", tab.page.csrf}, {"_mounts", 0}}},
                       {"session", tab.page.session},
                       {"static", tab.page.static_token},
                       {"flash", live_redirect.at("flash")}};
  tab.socket->send_text(R"(["5","5",")" + tab.topic + R"(","phx_join",)" + json::serialize(payload) + "]");
  const auto rendered =
      json::serialize(next_frame(*tab.socket).at(4).as_object().at("response").as_object().at("rendered"));
  EXPECT_NE(rendered.find("Post created"), std::string::npos);
  tab.socket->send_text(R"(["5","6",")" + tab.topic +
                        R"(","event",{"type":"click","event":"lv:clear-flash","value":{"key":"info"}}])");
  EXPECT_EQ(testing::frame_response(next_frame(*tab.socket)), R"({"diff":{"0":""}})");
}

TEST_P(LiveViewChannel, TheParentOfAComponentHasItsOwnEventsAndComponentsStay) {
  Tab tab(*server_, "/components");
  EXPECT_EQ(testing::frame_response(
                tab.push("2", "event", R"({"type":"click","event":"parent_click","value":{"value":""}})")),
            R"({"diff":{"2":{"0":"1"}}})");
  // A cid that is not rendered: {} (the component is gone), no crash.
  EXPECT_EQ(testing::frame_response(tab.push("3", "event", R"({"type":"click","event":"bump","value":{},"cid":7})")),
            "{}");
  EXPECT_EQ(testing::frame_response(tab.push("4", "cids_will_destroy", R"({"cids":[1]})")), "{}");
  EXPECT_EQ(testing::frame_response(tab.push("5", "cids_destroyed", R"({"cids":[1]})")), R"({"cids":[]})");
  EXPECT_EQ(json::parse(testing::frame_response(
                tab.push("6", "event", R"({"type":"click","event":"bump","value":{},"cid":1})"))),
            json::parse(R"({"diff":{"c":{"1":{"3":"1"}},"r":{"clicks":1}}})"));
}

TEST_P(LiveViewChannel, AFormValueThatIsNotUtf8CrashesTheView) {
  Tab tab(*server_, "/posts/new");
  EXPECT_EQ(tab.push("2", "event", R"({"type":"form","event":"validate","value":"post%5Btitle%5D=%FF"})").at(3),
            "phx_error");
}

// allow_upload for one entry of `size` bytes; returns the reply.
json::array preflight(Tab& tab, std::uint64_t size) {
  const auto ref = std::string(tab.join_reply.at(4)
                                   .as_object()
                                   .at("response")
                                   .as_object()
                                   .at("rendered")
                                   .as_object()
                                   .at("2")
                                   .as_object()
                                   .at("0")
                                   .as_object()
                                   .at("0")
                                   .as_string());
  const auto upload_ref = ref.substr(5, 20);  // ` id="phx-..."`
  const std::string entry =
      R"({"path":"avatar","ref":"0","name":"f.bin","relative_path":"","type":"application/octet-stream","size":)" +
      std::to_string(size) + "}";
  tab.push("2", "event",
           R"({"type":"form","event":"validate","value":"","uploads":{")" + upload_ref + R"(":[)" + entry + "]}}");
  return tab.push("3", "allow_upload", R"({"ref":")" + upload_ref + R"(","entries":[)" + entry + "]}");
}

std::string chunk(std::string_view join_ref, std::string_view ref, std::string_view topic, std::size_t bytes) {
  std::string frame;
  frame.push_back(0);
  frame.push_back(static_cast<char>(join_ref.size()));
  frame.push_back(static_cast<char>(ref.size()));
  frame.push_back(static_cast<char>(topic.size()));
  frame.push_back(5);
  frame += std::string(join_ref) + std::string(ref) + std::string(topic) + "chunk";
  return frame + std::string(bytes, 'x');
}

TEST_P(LiveViewChannel, UploadsRefuseWhatTheConfigDoesNotAllow) {
  Tab tab(*server_, "/upload");
  const auto too_large = preflight(tab, 6'000'000);
  const auto& response = too_large.at(4).as_object().at("response").as_object();
  EXPECT_EQ(json::serialize(response.at("error")), R"([["0","too_large"]])");
  EXPECT_FALSE(response.contains("entries"));

  Tab other(*server_, "/upload");
  const auto ok = preflight(other, 10);
  const auto token =
      std::string(ok.at(4).as_object().at("response").as_object().at("entries").as_object().at("0").as_string());
  // A token for another socket's view is no token here.
  tab.socket->send_text(R"(["9","9","lvu:0","phx_join",{"token":")" + token + R"("}])");
  EXPECT_EQ(testing::frame_response(next_frame(*tab.socket)), R"({"reason":"invalid_token"})");

  other.socket->send_text(R"(["9","9","lvu:0","phx_join",{"token":")" + token + R"("}])");
  EXPECT_EQ(status_of(next_frame(*other.socket)), "ok");
  EXPECT_EQ(next_frame(*other.socket).at(3), "diff");
  other.socket->send_text(R"(["10","10","lvu:again","phx_join",{"token":")" + token + R"("}])");
  EXPECT_EQ(testing::frame_response(next_frame(*other.socket)), R"({"reason":"already_registered"})");

  // Saving before the entry is complete raises in consume_uploaded_entries: the view
  // crashes, and its upload channel stops with it.
  EXPECT_EQ(other.push("11", "event", R"({"type":"form","event":"save","value":""})").at(3), "phx_error");
  const auto close = next_frame(*other.socket);
  EXPECT_EQ(close.at(3), "phx_close");
  EXPECT_EQ(close.at(2), "lvu:0");
}

TEST_P(LiveViewChannel, AnUploadChannelTakesNoMoreThanTheDeclaredSize) {
  Tab tab(*server_, "/upload");
  const auto ok = preflight(tab, 10);
  const auto token =
      std::string(ok.at(4).as_object().at("response").as_object().at("entries").as_object().at("0").as_string());
  tab.socket->send_text(R"(["9","9","lvu:0","phx_join",{"token":")" + token + R"("}])");
  EXPECT_EQ(status_of(next_frame(*tab.socket)), "ok");
  EXPECT_EQ(next_frame(*tab.socket).at(3), "diff");
  tab.socket->send_binary(chunk("9", "10", "lvu:0", 6));
  EXPECT_EQ(status_of(next_frame(*tab.socket)), "ok");
  tab.socket->send_binary(chunk("9", "11", "lvu:0", 6));
  const auto refused = next_frame(*tab.socket);
  EXPECT_EQ(status_of(refused), "error");
  EXPECT_EQ(testing::frame_response(refused), R"({"limit":10,"reason":"file_size_limit_exceeded"})");
  EXPECT_EQ(next_frame(*tab.socket).at(3), "phx_close");
  // A text "chunk" has no clause: the upload channel crashes.
  tab.socket->send_text(R"(["12","12","lvu:1","phx_join",{"token":")" + token + R"("}])");
  EXPECT_EQ(status_of(next_frame(*tab.socket)), "ok");
  EXPECT_EQ(next_frame(*tab.socket).at(3), "diff");
  tab.socket->send_text(R"(["12","13","lvu:1","chunk",{}])");
  EXPECT_EQ(next_frame(*tab.socket).at(3), "phx_error");
  EXPECT_TRUE(tab.quiet());
}

INSTANTIATE_TEST_SUITE_P(BothDialects, LiveViewChannel, ::testing::Values(LiveViewDialect::V0_20, LiveViewDialect::V1),
                         [](const auto& param_info) {
                           return param_info.param == LiveViewDialect::V0_20 ? std::string("LiveView020")
                                                                             : std::string("LiveView1x");
                         });

}  // namespace
}  // namespace stampede::target
