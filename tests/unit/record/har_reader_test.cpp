#include "record/har_reader.hpp"

#include <gtest/gtest.h>

#include "har_fixtures.hpp"

namespace stampede::record {
namespace {

using namespace testing;

TEST(HarReader, ReadsChromiumEntriesAndWebSocketFrames) {
  auto page = har_entry("GET", "http://127.0.0.1:4000/counter", 200, "text/html", "<html>hi</html>");
  auto socket = ws_entry("ws://127.0.0.1:4000/live/websocket?vsn=2.0.0", "2025-03-01T10:00:00.100Z",
                         json::array{ws_message(true, kStart + 0.2, "[\"4\",\"4\",\"lv:x\",\"phx_join\",{}]"),
                                     ws_message(false, kStart + 0.25, "AAEC", 2)});
  const auto result = read_har_text(har(json::array{page, socket}));
  ASSERT_TRUE(result.ok()) << result.error;
  const auto& r = result.recording;
  EXPECT_EQ(r.source, "HAR 1.2 from WebInspector 537.36");
  EXPECT_EQ(r.started_at, "2025-03-01T10:00:00.000Z");
  ASSERT_EQ(r.exchanges.size(), 2u);
  EXPECT_EQ(r.exchanges[0].url, "http://127.0.0.1:4000/counter");
  EXPECT_EQ(r.exchanges[0].response_body, "<html>hi</html>");
  EXPECT_TRUE(r.exchanges[0].response_body_kept);
  EXPECT_FALSE(r.exchanges[0].websocket);
  const auto& ws = r.exchanges[1];
  EXPECT_TRUE(ws.websocket);
  EXPECT_DOUBLE_EQ(ws.started_ms, 100);
  ASSERT_EQ(ws.frames.size(), 2u);
  EXPECT_TRUE(ws.frames[0].sent);
  EXPECT_NEAR(ws.frames[0].at_ms, 200, 0.01);
  EXPECT_TRUE(ws.frames[1].binary);
  EXPECT_EQ(ws.frames[1].data, std::string("\x00\x01\x02", 3));  // base64 decoded
}

TEST(HarReader, ReadsFirefoxForms) {
  // Firefox: a local time with an offset, a form given as params only, no _resourceType.
  json::object entry = har_entry("POST", "http://127.0.0.1:4000/login", 302, "text/html", "", "2025-03-01T11:00:00.250+01:00", "");
  entry.erase("_resourceType");
  entry["request"].as_object()["postData"] = json::object{
      {"mimeType", "application/x-www-form-urlencoded"},
      {"params", json::array{json::object{{"name", "user"}, {"value", "a b"}}}}};
  const auto result = read_har_text(har(json::array{entry}));
  ASSERT_TRUE(result.ok()) << result.error;
  EXPECT_EQ(result.recording.exchanges[0].request_body, "user=a+b");
  EXPECT_EQ(result.recording.started_at, "2025-03-01T11:00:00.250+01:00");
}

TEST(HarReader, DropsBodiesThatAreNotText) {
  auto script = har_entry("GET", "http://127.0.0.1:4000/app.js", 200, "text/javascript", "var a = 1;");
  auto image = har_entry("GET", "http://127.0.0.1:4000/a.png", 200, "image/png", "iVBORw0KGgo=");
  const auto result = read_har_text(har(json::array{script, image}));
  ASSERT_TRUE(result.ok()) << result.error;
  EXPECT_TRUE(result.recording.exchanges[0].response_body.empty());
  EXPECT_TRUE(result.recording.exchanges[1].response_body.empty());
  EXPECT_EQ(result.recording.dropped_bodies, 2u);
}

TEST(HarReader, GivesTheSameRecordingWhateverThePieces) {
  auto page = har_entry("GET", "http://127.0.0.1:4000/p?q=\\u00e9", 200, "application/json", "{\"id\":7}");
  const auto text = har(json::array{page, page});
  const auto whole = read_har_text(text);
  HarReader reader;
  for (const char c : text) reader.feed(std::string_view(&c, 1));
  const auto bytewise = reader.finish();
  ASSERT_TRUE(whole.ok() && bytewise.ok()) << whole.error << bytewise.error;
  ASSERT_EQ(bytewise.recording.exchanges.size(), 2u);
  EXPECT_EQ(bytewise.recording.exchanges[1].url, whole.recording.exchanges[1].url);
  EXPECT_EQ(bytewise.recording.exchanges[1].response_body, "{\"id\":7}");
}

TEST(HarReader, CutsStringsPastTheLimitInsteadOfHoldingThem) {
  HarLimits limits;
  limits.max_string = 64;
  auto big = har_entry("GET", "http://127.0.0.1:4000/", 200, "text/html", std::string(1000, 'x'));
  const auto result = read_har_text(har(json::array{big}), limits);
  ASSERT_TRUE(result.ok()) << result.error;
  EXPECT_TRUE(result.recording.exchanges[0].response_body.empty());
  EXPECT_EQ(result.recording.dropped_bodies, 1u);
}

TEST(HarReader, StopsWhenTooMuchWouldBeKept) {
  HarLimits limits;
  limits.max_kept_total = 100;
  auto socket = ws_entry("ws://h/socket/websocket", "2025-03-01T10:00:00.100Z",
                         json::array{ws_message(true, kStart, std::string(200, 'a'))});
  const auto result = read_har_text(har(json::array{socket}), limits);
  EXPECT_NE(result.error.find("record a shorter session"), std::string::npos) << result.error;
}

TEST(HarReader, ExplainsBadInput) {
  const auto text = har(json::array{har_entry("GET", "http://h/", 200)});
  EXPECT_NE(read_har_text(text.substr(0, text.size() / 2)).error.find("ends early"), std::string::npos);
  EXPECT_NE(read_har_text("").error.find("empty"), std::string::npos);
  EXPECT_NE(read_har_text("{\"log\": nope}").error.find("not valid JSON"), std::string::npos);
  EXPECT_NE(read_har_text("[1,2]").error.find("not a HAR"), std::string::npos);
  EXPECT_NE(read_har_text("{\"other\": {}}").error.find("no \"log\""), std::string::npos);
  EXPECT_NE(read_har_text("{\"log\": {\"version\": \"1.2\"}}").error.find("no \"entries\""), std::string::npos);
  EXPECT_NE(read_har_text(har(json::array{}, "1.1")).error.find("HAR 1.1"), std::string::npos);
  EXPECT_NE(read_har_text(text + " {}").error.find("more after"), std::string::npos);
  auto no_time = har_entry("GET", "http://h/", 200);
  no_time["startedDateTime"] = "yesterday";
  EXPECT_NE(read_har_text(har(json::array{no_time})).error.find("startedDateTime"), std::string::npos);
  EXPECT_NE(read_har_file("/nonexistent/x.har").error.find("cannot open"), std::string::npos);
}

TEST(HarReader, ParsesIsoTimes) {
  double ms = 0;
  ASSERT_TRUE(parse_iso8601_ms("1970-01-01T00:00:01.5Z", ms));
  EXPECT_DOUBLE_EQ(ms, 1500);
  ASSERT_TRUE(parse_iso8601_ms("2025-03-01T11:00:00+01:00", ms));
  EXPECT_DOUBLE_EQ(ms, kStart * 1000);
  EXPECT_FALSE(parse_iso8601_ms("2025-13-01T00:00:00Z", ms));
  EXPECT_FALSE(parse_iso8601_ms("2025-03-01T00:00:00Q", ms));
  EXPECT_FALSE(parse_iso8601_ms("2025", ms));
}

}  // namespace
}  // namespace stampede::record
