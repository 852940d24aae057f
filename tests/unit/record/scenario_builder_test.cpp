#include "record/scenario_builder.hpp"

#include <gtest/gtest.h>

#include <cstdio>

#include "har_fixtures.hpp"
#include "record/har_reader.hpp"
#include "record/lua_writer.hpp"

namespace stampede::record {
namespace {

using namespace testing;

std::string at(double seconds) {
  // kStart + seconds as ISO (whole milliseconds)
  const auto ms = static_cast<long long>(seconds * 1000);
  char text[64];
  std::snprintf(text, sizeof text, "2025-03-01T10:00:%02lld.%03lldZ", ms / 1000, ms % 1000);
  return text;
}

BuildResult build(const std::string& har_text, ConvertOptions options = {}) {
  const auto read = read_har_text(har_text);
  EXPECT_TRUE(read.ok()) << read.error;
  return build_scenario(read.recording, options);
}

std::string lua(const std::string& har_text, ConvertOptions options = {}) {
  const auto built = build(har_text, options);
  EXPECT_EQ(built.error, "");
  return write_lua(built.scenario, {});
}

const std::string kPage = "<div data-phx-main data-phx-session=\"SFMyNTY.x\"></div>";

TEST(ScenarioBuilder, RefusesALiveViewHarWithoutFrames) {
  auto page = har_entry("GET", "http://127.0.0.1:4000/counter", 200, "text/html", kPage);
  auto socket = ws_entry("ws://127.0.0.1:4000/live/websocket?vsn=2.0.0", at(0.1), json::array{});
  const auto built = build(har(json::array{page, socket}));
  EXPECT_NE(built.error.find("this HAR has no WebSocket frames: export it with content, from the tab that had the LiveView open"),
            std::string::npos)
      << built.error;
}

TEST(ScenarioBuilder, RefusesAHarFromAnotherSite) {
  auto page = har_entry("GET", "https://example.com/", 200, "text/html", "<html></html>");
  ConvertOptions options;
  options.origin = "http://127.0.0.1:4000";
  const auto built = build(har(json::array{page}), options);
  EXPECT_NE(built.error.find("nothing from http://127.0.0.1:4000"), std::string::npos) << built.error;
}

TEST(ScenarioBuilder, ChannelsFramesBecomeJoinPushCastAwait) {
  const std::string url = "ws://127.0.0.1:4000/socket/websocket?token=SFMyNTY.abc&user_id=7&vsn=2.0.0";
  auto socket = ws_entry(url, at(0.1), json::array{
      ws_message(true, kStart + 0.2, R"(["3","3","room:lobby","phx_join",{"token":"eyJa.b.c","nick":"al"}])"),
      ws_message(false, kStart + 0.21, R"(["3","3","room:lobby","phx_reply",{"status":"ok","response":{}}])"),
      ws_message(true, kStart + 1.2, R"(["3","4","room:lobby","new_msg",{"body":"hi"}])"),
      ws_message(false, kStart + 1.21, R"([null,null,"room:lobby","new_msg",{"body":"hi"}])"),
      ws_message(false, kStart + 1.22, R"(["3","4","room:lobby","phx_reply",{"status":"ok","response":{}}])"),
      ws_message(true, kStart + 1.3, R"(["3","5","room:lobby","shout",{"n":1}])"),
      ws_message(true, kStart + 31, R"([null,"6","phoenix","heartbeat",{}])"),
      // A V2 binary push: kind 0, join_ref "3", ref "7", topic, event, bytes 01 02.
      ws_message(true, kStart + 32, "AAEBCgVyb29tOmxvYmJ5cGluZzMHAQI=", 2),
  });
  auto page = har_entry("GET", "http://127.0.0.1:4000/", 200, "text/html", "<html></html>");
  const auto text = lua(har(json::array{page, socket}));
  EXPECT_NE(text.find("local socket = channels.connect(BASE .. \"/socket\", { params = { user_id = \"7\" } })"),
            std::string::npos) << text;
  EXPECT_NE(text.find("left out of params: token"), std::string::npos) << text;
  EXPECT_NE(text.find("socket:join(\"room:lobby\", { nick = \"al\" })"), std::string::npos) << text;
  EXPECT_NE(text.find("socket:push(\"room:lobby\", \"new_msg\", { body = \"hi\" })"), std::string::npos) << text;
  EXPECT_NE(text.find("socket:await(\"room:lobby\", \"new_msg\")"), std::string::npos) << text;
  EXPECT_NE(text.find("socket:cast(\"room:lobby\", \"shout\", { n = 1 })"), std::string::npos) << text;
  EXPECT_EQ(text.find("\"heartbeat\""), std::string::npos) << text;
  EXPECT_EQ(text.find("eyJa"), std::string::npos) << text;
  EXPECT_EQ(text.find("SFMyNTY"), std::string::npos) << text;
}

TEST(ScenarioBuilder, KeepsFramesItDoesNotUnderstandAsComments) {
  auto page = har_entry("GET", "http://127.0.0.1:4000/", 200, "text/html", "<html></html>");
  auto plain = ws_entry("ws://127.0.0.1:4000/ws", at(0.1), json::array{
      ws_message(true, kStart + 0.2, "hello"), ws_message(false, kStart + 0.3, "hello"),
      ws_message(true, kStart + 0.4, "//79", 2)});
  auto live = ws_entry("ws://127.0.0.1:4000/live/websocket?vsn=2.0.0", at(0.5), json::array{
      ws_message(true, kStart + 0.6, R"(["4","4","lv:phx-1","phx_join",{"url":"http://127.0.0.1:4000/","params":{},"session":"s"}])"),
      ws_message(true, kStart + 0.7, "not phoenix at all")});
  const auto built = build(har(json::array{page, plain, live}));
  ASSERT_EQ(built.error, "");
  const auto text = write_lua(built.scenario, {});
  EXPECT_NE(text.find("-- local ws = websocket.connect((BASE:gsub(\"^http\", \"ws\")) .. \"/ws\")"), std::string::npos) << text;
  EXPECT_NE(text.find("-- ws:send(\"hello\")"), std::string::npos) << text;
  EXPECT_NE(text.find("-- ws:send_binary(...)  -- <3 bytes: ff fe fd>"), std::string::npos) << text;
  EXPECT_NE(text.find("a LiveView frame not understood (sent): not phoenix at all"), std::string::npos) << text;
  EXPECT_NE(text.find("not understood: they are kept below as comments"), std::string::npos) << text;
  EXPECT_EQ(built.scenario.summary.not_understood, 4u);
}

TEST(ScenarioBuilder, CorrelatesIdsAndReadsCsrfTokensAtRunTime) {
  auto form_page = har_entry("GET", "http://127.0.0.1:4000/users/log_in", 200, "text/html", "<form></form>");
  auto login = har_entry("POST", "http://127.0.0.1:4000/users/log_in", 302, "text/html", "", at(1));
  login["request"].as_object()["postData"] = json::object{
      {"mimeType", "application/x-www-form-urlencoded"}, {"text", "_csrf_token=abc123&user%5Bemail%5D=a%40b.c"}};
  login["response"].as_object()["headers"] = json::array{json::object{{"name", "location"}, {"value", "/"}}};
  auto home = har_entry("GET", "http://127.0.0.1:4000/", 200, "text/html", "<html></html>", at(1.01));
  auto create = har_entry("POST", "http://127.0.0.1:4000/api/posts", 201, "application/json",
                          R"({"data":{"id":42,"title":"t"}})", at(2), "fetch");
  create["request"].as_object()["postData"] = json::object{{"mimeType", "application/json"}, {"text", R"({"title":"t"})"}};
  create["request"].as_object()["headers"] = json::array{
      json::object{{"name", "Cookie"}, {"value", "_app_key=SFMyNTY.zzz"}},
      json::object{{"name", "Authorization"}, {"value", "Bearer abc"}},
      json::object{{"name", "X-Client"}, {"value", "web"}}};
  auto read = har_entry("GET", "http://127.0.0.1:4000/api/posts/42?post_id=42", 200, "application/json", "{}", at(9), "fetch");
  ConvertOptions options;
  options.think_time_cap_ms = 2000;
  const auto text = lua(har(json::array{form_page, login, home, create, read}), options);
  EXPECT_NE(text.find("local res1 = http.get(BASE .. \"/users/log_in\")"), std::string::npos) << text;
  EXPECT_NE(text.find("form = { _csrf_token = csrf_token(res1.body), user = { email = \"a@b.c\" } }"), std::string::npos) << text;
  EXPECT_NE(text.find("stampede.check(\"POST /users/log_in is 200\", res.status == 200)"), std::string::npos) << text;
  EXPECT_NE(text.find("json = { title = \"t\" }, headers = { [\"x-client\"] = \"web\" }"), std::string::npos) << text;
  EXPECT_NE(text.find("left out: the authorization header"), std::string::npos) << text;
  EXPECT_NE(text.find("local post_id = res2:json().data.id"), std::string::npos) << text;
  EXPECT_NE(text.find("http.get(BASE .. \"/api/posts/\" .. post_id .. \"?post_id=\" .. post_id)"), std::string::npos) << text;
  EXPECT_NE(text.find("stampede.sleep(\"2s\")"), std::string::npos) << text;  // 7 s capped at 2 s
  EXPECT_EQ(text.find("abc123"), std::string::npos) << text;
  EXPECT_EQ(text.find("Bearer"), std::string::npos) << text;
}

TEST(ScenarioBuilder, DropsStaticAssetsOtherOriginsAndLongPoll) {
  auto page = har_entry("GET", "http://127.0.0.1:4000/", 200, "text/html", "<html></html>");
  auto script = har_entry("GET", "http://127.0.0.1:4000/assets/app.js", 200, "text/javascript", "", at(0.1), "script");
  auto analytics = har_entry("GET", "https://analytics.example.com/collect", 204, "", "", at(0.2), "xhr");
  auto longpoll = har_entry("GET", "http://127.0.0.1:4000/live/longpoll?vsn=2.0.0", 200, "application/json", "{}", at(0.3), "xhr");
  const auto built = build(har(json::array{page, script, analytics, longpoll}));
  ASSERT_EQ(built.error, "");
  const auto& s = built.scenario.summary;
  EXPECT_EQ(s.dropped_static, 1u);
  EXPECT_EQ(s.dropped_other_origins, 1u);
  EXPECT_EQ(s.dropped_longpoll, 1u);
  const auto text = describe(built.scenario);  // the header says the same, wrapped
  EXPECT_NE(text.find("left out:  1 static asset (--keep-static), 1 request to other origins (--origin), 1 LongPoll request"),
            std::string::npos) << text;
  ConvertOptions keep;
  keep.keep_static = true;
  EXPECT_NE(lua(har(json::array{page, script}), keep).find("/assets/app.js"), std::string::npos);
}

}  // namespace
}  // namespace stampede::record
