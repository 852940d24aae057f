// The LiveView session against what real browsers did (liveview_capture_flows.hpp): a
// loopback server serves the recorded page, then plays the recorded server frames, and checks
// that every frame the client sends equals the browser's, field by field (refs aside: they are
// mapped), from the socket URL's query to the rejoin after a live navigation. Both dialects.
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "clients/http_fixture.hpp"
#include "clients/liveview_capture_flows.hpp"
#include "clients/liveview_session.hpp"
#include "clients/websocket_test_server.hpp"
#include "proto/form.hpp"

namespace stampede::testing {
namespace {

using clients::LiveOutcome;
using clients::LiveViewSession;
using lv_capture::CaptureFlow;

std::string replace_all(std::string text, std::string_view from, std::string_view to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

// What the server side saw, read by the test once the client is done.
struct Observed {
  std::mutex mutex;
  std::vector<std::string> mismatches;
  std::string socket_target;
  std::string cookie;
  bool origin_sent = false;
  int frames_checked = 0;
  void mismatch(std::string what) {
    std::lock_guard lock(mutex);
    mismatches.push_back(std::move(what));
  }
};

class LiveViewCaptureTest : public HttpFixture {
 protected:
  // Serves `flow`: its page for every plain GET, its frames on the LiveView socket.
  void start(const CaptureFlow& flow) {
    flow_ = &flow;
    server_ = std::make_unique<WsTestServer>([this](WsServerConnection& conn) { serve(conn); });
    host_ = "127.0.0.1:" + std::to_string(server_->port());
  }

  void serve(WsServerConnection& conn) {
    for (;;) {
      auto request = conn.read_request();
      if (!request) return;
      if (request->target.rfind("/live/websocket", 0) == 0) {
        {
          std::lock_guard lock(observed_.mutex);
          observed_.socket_target = request->target;
          if (const auto* c = request->header("cookie")) observed_.cookie = *c;
          observed_.origin_sent = request->header("origin") != nullptr;
        }
        conn.accept(*request);
        replay(conn);
        conn.wait_for_close(std::chrono::seconds(5));
        return;
      }
      const std::string page(flow_->page);
      conn.send("HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: " +
                std::to_string(page.size()) + "\r\nset-cookie: _demo_key=recorded; path=/; HttpOnly\r\n\r\n" + page);
    }
  }

  std::string localize(std::string_view recorded) const {
    std::string text = replace_all(std::string(recorded), flow_->host, host_);
    return replace_all(std::move(text), replace_all(std::string(flow_->host), ":", "%3A"),
                       replace_all(host_, ":", "%3A"));
  }

  // Walks the recorded frames: reads and checks what the browser sent, sends what the server
  // sent with the refs the client chose.
  void replay(WsServerConnection& conn) {
    std::map<std::string, std::string> refs;  // recorded ref -> the client's
    for (const auto& frame : flow_->frames) {
      const auto recorded = boost::json::parse(localize(frame.data)).as_array();
      if (frame.from_browser) {
        boost::json::array sent;
        for (;;) {
          const ClientFrame f = conn.read_frame(std::chrono::seconds(5));
          if (f.kind != ClientFrame::Kind::Message) {
            observed_.mismatch(std::string(frame.step) + ": the client sent nothing where the browser sent " +
                               std::string(frame.data.substr(0, 120)));
            return;
          }
          sent = boost::json::parse(f.payload).as_array();
          if (sent.at(2) != "phoenix") break;  // heartbeats are not part of the comparison
        }
        const auto describe = [&] {
          return std::string(frame.step) + ": browser " + boost::json::serialize(recorded) + "\n   client  " +
                 boost::json::serialize(sent);
        };
        if (sent.at(2) != recorded.at(2) || sent.at(3) != recorded.at(3) || sent.at(4) != recorded.at(4)) {
          observed_.mismatch(describe());
        }
        // The same ref structure: a join's join_ref is its ref, a push carries its join's.
        for (int i : {0, 1}) {
          if (recorded.at(i).is_null() != sent.at(i).is_null()) {
            observed_.mismatch("refs differ: " + describe());
          } else if (!recorded.at(i).is_null()) {
            const std::string from(recorded.at(i).as_string());
            const std::string to(sent.at(i).as_string());
            auto [it, inserted] = refs.emplace(from, to);
            if (!inserted && it->second != to) observed_.mismatch("ref mapping broken: " + describe());
          }
        }
        std::lock_guard lock(observed_.mutex);
        ++observed_.frames_checked;
      } else {
        boost::json::array out = recorded;
        for (int i : {0, 1}) {
          if (out.at(i).is_string()) {
            const auto it = refs.find(std::string(out.at(i).as_string()));
            if (it != refs.end()) out.at(i) = it->second.c_str();
          }
        }
        conn.send_message(proto::ws::Opcode::Text, boost::json::serialize(out));
      }
    }
  }

  std::shared_ptr<LiveViewSession> make_session() {
    clients::LiveViewOptions options;
    options.heartbeat_interval = 0;
    return std::make_shared<LiveViewSession>(ctx, http_, std::move(options));
  }

  template <typename Start>
  LiveOutcome call(Start start) {
    std::optional<LiveOutcome> outcome;
    start([&](const LiveOutcome& o) { outcome = o; });
    EXPECT_TRUE(run_until([&] { return outcome.has_value(); })) << "no outcome";
    return outcome.value_or(LiveOutcome::fail("test", "no outcome"));
  }

  void expect_browser_exact() {
    std::lock_guard lock(observed_.mutex);
    for (const auto& m : observed_.mismatches) ADD_FAILURE() << m;
    EXPECT_EQ(observed_.cookie, "_demo_key=recorded");
    EXPECT_FALSE(observed_.origin_sent) << "no Origin by default (phoenix-protocol.md §1.4)";
    const std::string target = observed_.socket_target;
    ASSERT_NE(target.find('?'), std::string::npos);
    EXPECT_EQ(proto::decode_form(target.substr(target.find('?') + 1)), proto::decode_form(localize(flow_->socket_query)))
        << target;
  }

  std::string url(std::string_view path) const { return "http://" + host_ + std::string(path); }

  clients::HttpSession http_{ctx};
  const CaptureFlow* flow_ = nullptr;
  std::string host_;
  Observed observed_;
  std::unique_ptr<WsTestServer> server_;  // last: its threads use the members above until it is gone
};

std::string dialect_name(const ::testing::TestParamInfo<const CaptureFlow*>& param) {
  return param.param->host == "127.0.0.1:4001" ? "lv1x" : "lv020";
}

class CounterCapture : public LiveViewCaptureTest, public ::testing::WithParamInterface<const CaptureFlow*> {};

TEST_P(CounterCapture, JoinAndClicksAreTheBrowsersFrames) {
  start(*GetParam());
  auto session = make_session();
  ASSERT_TRUE(call([&](auto done) { session->connect(url("/counter"), done); }).ok());
  EXPECT_EQ(session->text("#count"), "0");

  clients::LiveEvent inc;
  inc.type = "click";
  inc.event = "inc";
  const LiveOutcome replied = call([&](auto done) { session->event(inc, done); });
  ASSERT_TRUE(replied.ok()) << replied.message;
  EXPECT_EQ(boost::json::parse(replied.response_json), boost::json::parse(R"({"count":1})"));
  EXPECT_EQ(session->text("#count"), "1");

  clients::LiveEvent noreply = inc;
  noreply.event = "inc_noreply";
  const LiveOutcome plain = call([&](auto done) { session->event(noreply, done); });
  ASSERT_TRUE(plain.ok()) << plain.message;
  EXPECT_EQ(plain.response_json, "");
  EXPECT_EQ(session->text("#count"), "3");  // the recorded reply: the server had counted a second click

  session->close();
  run_for(std::chrono::milliseconds(20));
  expect_browser_exact();
  EXPECT_EQ(observed_.frames_checked, 3);
}

INSTANTIATE_TEST_SUITE_P(BothDialects, CounterCapture,
                         ::testing::Values(&lv_capture::counter("lv-1.x"), &lv_capture::counter("lv-0.20")),
                         dialect_name);

class PostsNewCapture : public LiveViewCaptureTest, public ::testing::WithParamInterface<const CaptureFlow*> {};

TEST_P(PostsNewCapture, ValidateSubmitAndLiveNavigationAreTheBrowsersFrames) {
  start(*GetParam());
  auto session = make_session();
  ASSERT_TRUE(call([&](auto done) { session->connect(url("/posts/new"), done); }).ok());

  clients::LiveForm blank;
  blank.event = "validate";
  blank.fields = {{"post[title]", " "}};
  ASSERT_TRUE(call([&](auto done) { session->change(blank, done); }).ok());
  EXPECT_EQ(session->text(".error"), "can't be blank");

  clients::LiveForm save;
  save.event = "save";
  save.fields = {{"post[title]", "Golden post"}};
  const LiveOutcome saved = call([&](auto done) { session->submit(save, done); });
  ASSERT_EQ(saved.failure, "live_redirect") << saved.message;
  EXPECT_EQ(saved.navigation.to, "/posts");
  EXPECT_EQ(saved.to, url("/posts"));
  EXPECT_FALSE(saved.navigation.flash.empty());

  const LiveOutcome navigated =
      call([&](auto done) { session->navigate(saved.navigation.to, saved.navigation.flash, done); });
  ASSERT_TRUE(navigated.ok()) << navigated.message;
  EXPECT_EQ(session->url(), url("/posts"));
  EXPECT_EQ(session->text("#flash-info"), "Post created");

  session->close();
  run_for(std::chrono::milliseconds(20));
  expect_browser_exact();
  EXPECT_EQ(observed_.frames_checked, 5);  // join, validate, save, phx_leave, rejoin
}

INSTANTIATE_TEST_SUITE_P(BothDialects, PostsNewCapture,
                         ::testing::Values(&lv_capture::posts_new("lv-1.x"), &lv_capture::posts_new("lv-0.20")),
                         dialect_name);

}  // namespace
}  // namespace stampede::testing
