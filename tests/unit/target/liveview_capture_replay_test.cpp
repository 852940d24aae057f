// Replays the recorded browser sessions (tests/vectors/liveview-captures/, both dialects)
// against the target over real sockets: every page the browser fetched is fetched (status,
// cookie, redirect, headers and the whole HTML compared, ids and tokens aside), then every
// frame the browser sent is sent, with the target's ids and tokens in place of the recorded
// app's, and every frame the app sent must come back from the target, in the same order and
// with the same JSON tree: the same "rendered" statics and dynamics, "p" tables, "d" lists or
// keyed "k" comprehensions, components under "c", replies, navigation and upload frames.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <functional>
#include <memory>
#include <set>
#include <string>

#include "proto/form.hpp"
#include "target/liveview_browser.hpp"
#include "target/liveview_capture.hpp"
#include "target/target_server.hpp"

namespace stampede::target {
namespace {

namespace json = boost::json;
using testing::LiveViewBrowser;
using testing::Received;
using testing::Substitutions;
using testing::WsTestClient;

std::unique_ptr<TargetServer> start_replay_server(LiveViewDialect dialect) {
  TargetOptions options;
  options.listen.port = 0;
  options.seed = 3;
  options.liveview = dialect;
  auto server = std::make_unique<TargetServer>(options);
  server->start();
  return server;
}

std::string_view folder(LiveViewDialect dialect) { return dialect == LiveViewDialect::V0_20 ? "lv-0.20" : "lv-1.x"; }

std::string from_base64(std::string_view text) {
  static constexpr std::string_view kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string bytes;
  std::uint32_t bits = 0;
  int count = 0;
  for (const char c : text) {
    if (c == '=') break;
    bits = (bits << 6) | static_cast<std::uint32_t>(kAlphabet.find(c));
    count += 6;
    if (count >= 8) {
      count -= 8;
      bytes.push_back(static_cast<char>((bits >> count) & 0xFF));
    }
  }
  return bytes;
}

// What /posts/new's save does, so that /posts shows the posts the recorded app had.
void create_post(TargetServer& server, std::string_view title, std::string_view body) {
  LiveViewBrowser browser(server.port());
  const auto page = browser.load("/posts/new");
  auto socket = browser.connect(page.csrf);
  socket->send_text(R"(["1","1","lv:)" + page.id + R"(","phx_join",)" +
                    LiveViewBrowser::join_payload(page, browser.origin() + "/posts/new", page.csrf) + "]");
  ASSERT_EQ(testing::next_frame(*socket).at(4).as_object().at("status"), "ok");
  const auto form = "post%5Btitle%5D=" + proto::form_encode_component(title) +
                    "&post%5Bbody%5D=" + proto::form_encode_component(body);
  socket->send_text(R"(["1","2","lv:)" + page.id + R"(","event",{"type":"form","event":"save","value":")" + form +
                    R"("}])");
  EXPECT_EQ(testing::next_frame(*socket).at(3), "diff");
  EXPECT_TRUE(testing::frame_response(testing::next_frame(*socket)).find("live_redirect") != std::string::npos);
}

bool is_document(std::string_view url) { return url.substr(0, 8) != "/assets/" && url != "/favicon.ico"; }

std::string header_value(const json::array& headers, std::string_view name) {
  for (const auto& header : headers) {
    if (header.as_array().at(0).as_string() == name) return std::string(header.as_array().at(1).as_string());
  }
  return {};
}

// One page request of the recording, made by our browser and compared.
void compare_http(const json::object& recorded, LiveViewBrowser& browser, Substitutions& substitutions,
                  const std::string& step) {
  const std::string url(recorded.at("url").as_string());
  SCOPED_TRACE("step " + step + ": GET " + url);
  const auto ours = browser.get(url);
  EXPECT_EQ(ours.status, recorded.at("status").as_int64());

  const auto& set_cookies = recorded.at("set_cookie").as_array();
  if (set_cookies.empty()) {
    EXPECT_FALSE(ours.has_header("set-cookie"));
  } else {
    EXPECT_EQ(testing::normalize(ours.header("set-cookie")),
              testing::normalize(std::string(set_cookies[0].as_string())));
    substitutions.learn(std::string(set_cookies[0].as_string()), ours.header("set-cookie"));
  }
  if (recorded.at("location").is_string()) {
    EXPECT_EQ(ours.header("location"), recorded.at("location").as_string());
  }
  EXPECT_EQ(ours.header("content-type"), recorded.at("content_type").as_string());
  // Every header the app sent (but those of its HTTP server and gzip) is there.
  static const std::set<std::string> transport{"date", "content-length", "content-encoding", "vary"};
  for (const auto& header : recorded.at("response_headers").as_array()) {
    const std::string name(header.as_array().at(0).as_string());
    if (transport.count(name) == 0) {
      EXPECT_TRUE(ours.has_header(name)) << "no " << name << " header";
    }
  }
  EXPECT_EQ(ours.header("x-request-id").size(),
            header_value(recorded.at("response_headers").as_array(), "x-request-id").size());

  const std::string body(recorded.at("body").as_string());
  EXPECT_EQ(testing::normalize(ours.body), testing::normalize(body));
  substitutions.learn(body, ours.body);
}

// The recorded flow, step by step, against a target of its own (prepared by `prepare`).
void replay(LiveViewDialect dialect, std::string_view flow, const std::function<void(TargetServer&)>& prepare = {}) {
  const auto capture = stampede::testing::read_liveview_capture(folder(dialect), flow);
  auto server = start_replay_server(dialect);
  if (prepare) prepare(*server);
  LiveViewBrowser browser(server->port());
  Substitutions substitutions;
  substitutions.add(std::string(capture.at("app").as_object().at("url").as_string()), browser.origin());
  std::string csrf;  // the token of the last page, for the socket's URL
  std::unique_ptr<WsTestClient> socket;
  int compared = 0;

  for (const auto& step_value : capture.at("steps").as_array()) {
    const auto& step = step_value.as_object();
    const std::string name(step.at("name").as_string());
    for (const auto& http : step.at("http").as_array()) {
      if (!is_document(http.as_object().at("url").as_string())) continue;
      compare_http(http.as_object(), browser, substitutions, name);
      const auto& body = http.as_object().at("body");
      if (body.is_string()) {
        const auto page = testing::scan_page({200, {}, std::string(body.as_string())});
        if (!page.csrf.empty()) csrf = substitutions.apply(page.csrf);
      }
    }
    const auto& frames = step.at("frames").as_array();
    for (std::size_t i = 0; i < frames.size(); ++i) {
      const auto& frame = frames[i].as_object();
      SCOPED_TRACE("step " + name + ", frame " + std::to_string(i));
      if (!socket) socket = browser.connect(csrf);
      const std::string data(frame.at("data").as_string());
      const bool binary = frame.at("kind").as_string() == "binary";
      if (frame.at("dir").as_string() == "out") {
        if (binary) {
          // The LV client's binary chunks: refs and topic only, replayed as recorded.
          const auto bytes = from_base64(data);
          ASSERT_EQ(bytes.size(), frame.at("byte_length").as_int64());
          socket->send_binary(bytes);
        } else {
          socket->send_text(substitutions.apply(data));
        }
        continue;
      }
      const auto received = socket->next(std::chrono::milliseconds(3000));
      ASSERT_EQ(received.kind, Received::Kind::Message) << "expected " << data;
      std::string where;
      EXPECT_TRUE(testing::same_tree(json::parse(data), json::parse(received.payload), substitutions, where))
          << where << "\n  recorded: " << data << "\n  target:   " << received.payload;
      ++compared;
    }
    // The step is over: nothing more is on its way.
    if (socket) {
      EXPECT_EQ(socket->next(std::chrono::milliseconds(100)).kind, Received::Kind::Timeout) << name;
    }
  }
  EXPECT_GT(compared, 0);
  ::testing::Test::RecordProperty("server_frames_compared", compared);
}

class LiveViewCaptureReplay : public ::testing::TestWithParam<LiveViewDialect> {};

TEST_P(LiveViewCaptureReplay, Counter) { replay(GetParam(), "counter"); }
TEST_P(LiveViewCaptureReplay, PostsNew) { replay(GetParam(), "posts_new"); }
TEST_P(LiveViewCaptureReplay, Posts) {
  // Page 2 shows the third seeded post and the one saved before the recording.
  const auto dialect = GetParam();
  replay(dialect, "posts", [dialect](TargetServer& server) {
    if (dialect == LiveViewDialect::V0_20) {
      create_post(server, "Golden post", "");
    } else {
      create_post(server, "t1", "b1");
    }
  });
}
TEST_P(LiveViewCaptureReplay, Components) { replay(GetParam(), "components"); }
TEST_P(LiveViewCaptureReplay, Upload) { replay(GetParam(), "upload"); }
TEST_P(LiveViewCaptureReplay, Login) { replay(GetParam(), "login"); }

INSTANTIATE_TEST_SUITE_P(BothDialects, LiveViewCaptureReplay,
                         ::testing::Values(LiveViewDialect::V0_20, LiveViewDialect::V1), [](const auto& param_info) {
                           return param_info.param == LiveViewDialect::V0_20 ? std::string("LiveView020")
                                                                             : std::string("LiveView1x");
                         });

}  // namespace
}  // namespace stampede::target
