// The recording proxy's pure helpers: the heads it rewrites (proxy_heads), the log that
// bounds what it keeps (exchange_log), and the HAR it writes with --har, read back by the
// HAR reader to the same recording (har_writer).
#include <gtest/gtest.h>

#include "record/exchange_log.hpp"
#include "record/har_reader.hpp"
#include "record/har_writer.hpp"
#include "record/proxy_heads.hpp"

namespace stampede::record {
namespace {

TEST(ProxyHeads, ReplaceOriginOnlyReplacesAWholeOrigin) {
  const std::string_view from = "http://127.0.0.1:8080";
  const std::string_view to = "http://127.0.0.1:4000";
  EXPECT_EQ(replace_origin("http://127.0.0.1:8080", from, to), "http://127.0.0.1:4000");
  EXPECT_EQ(replace_origin("http://127.0.0.1:8080/a?b#c", from, to), "http://127.0.0.1:4000/a?b#c");
  EXPECT_EQ(replace_origin("HTTP://127.0.0.1:8080?q", from, to), "http://127.0.0.1:4000?q");
  EXPECT_EQ(replace_origin("http://127.0.0.1:80801/", from, to), "http://127.0.0.1:80801/") << "another port";
  EXPECT_EQ(replace_origin("http://127.0.0.1:8080.evil.com/", from, to), "http://127.0.0.1:8080.evil.com/");
  EXPECT_EQ(replace_origin("/relative", from, to), "/relative");
  EXPECT_EQ(replace_origin("http://127.0.0.1", from, to), "http://127.0.0.1");
  EXPECT_EQ(replace_origin("x", "", to), "x");
}

TEST(ProxyHeads, TheBrowsersOriginIsTheHostItSent) {
  const ProxyEndpoints endpoints{"http://127.0.0.1:4000", "127.0.0.1:4000", "http://127.0.0.1:8080"};
  proto::HttpRequest request;
  EXPECT_EQ(browser_origin(request, endpoints), "http://127.0.0.1:8080");
  request.headers.push_back({"host", "localhost:8080"});
  EXPECT_EQ(browser_origin(request, endpoints), "http://localhost:8080");
  EXPECT_EQ(forwarded_request_value({"origin", "http://localhost:8080"}, "http://localhost:8080", endpoints),
            "http://127.0.0.1:4000");
  EXPECT_EQ(forwarded_request_value({"origin", "https://elsewhere.example"}, "http://localhost:8080", endpoints),
            "https://elsewhere.example");
  EXPECT_EQ(forwarded_request_value({"cookie", "http://localhost:8080"}, "http://localhost:8080", endpoints),
            "http://localhost:8080")
      << "only Host, Origin and Referer";
}

TEST(ProxyHeads, AProxyResponseIsComplete) {
  std::string out;
  write_proxy_response(out, 502, "Bad Gateway", "cannot reach it");
  EXPECT_EQ(out,
            "HTTP/1.1 502 Bad Gateway\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: 16\r\n"
            "connection: close\r\n\r\ncannot reach it\n");
}

TEST(ExchangeLog, KeepsWithinItsBudgetAndWarnsOnce) {
  ExchangeLog log(100);
  std::vector<std::string> warned;
  log.on_warning = [&](const std::string& text) { warned.push_back(text); };
  EXPECT_TRUE(log.keep(60));
  EXPECT_TRUE(log.keep(40));
  EXPECT_FALSE(log.keep(1));
  EXPECT_FALSE(log.keep(1));
  EXPECT_EQ(warned.size(), 1u);
  log.warn("same");
  log.warn("same");
  EXPECT_EQ(warned.size(), 2u) << "each text once";
}

TEST(ExchangeLog, TakeOrdersByStartAndCountsFromTheFirstRequest) {
  ExchangeLog log;
  std::size_t seen = 0;
  log.on_exchange = [&](const Exchange&) { ++seen; };
  Exchange later;
  later.started_ms = 1500;
  later.ended_ms = 1600;
  later.url = "b";
  later.frames.push_back({1550, true, false, "x"});
  Exchange first;
  first.started_ms = 1000;
  first.ended_ms = 1200;
  first.url = "a";
  log.add(later);
  log.add(first);
  EXPECT_EQ(seen, 2u);
  // The log's zero was at 2025-03-01T10:00:00.000Z; the first request 1 s later.
  const auto recording = log.take("stampede record", 1740823200000.0);
  ASSERT_EQ(recording.exchanges.size(), 2u);
  EXPECT_EQ(recording.started_at, "2025-03-01T10:00:01.000Z");
  EXPECT_EQ(recording.exchanges[0].url, "a");
  EXPECT_DOUBLE_EQ(recording.exchanges[0].started_ms, 0);
  EXPECT_DOUBLE_EQ(recording.exchanges[1].started_ms, 500);
  EXPECT_DOUBLE_EQ(recording.exchanges[1].frames[0].at_ms, 550);
  EXPECT_EQ(log.size(), 0u);
}

TEST(HarWriter, FormatsIso8601) {
  EXPECT_EQ(format_iso8601_ms(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(format_iso8601_ms(1740823200123.4), "2025-03-01T10:00:00.123Z");
  EXPECT_EQ(format_iso8601_ms(951782400000), "2000-02-29T00:00:00.000Z");
  EXPECT_EQ(format_iso8601_ms(-1), "1969-12-31T23:59:59.999Z");
}

TEST(HarWriter, WhatItWritesReadsBackTheSame) {
  Recording recording;
  recording.source = "stampede record";
  recording.started_at = "2025-03-01T10:00:00.000Z";
  Exchange page;
  page.method = "POST";
  page.url = "http://127.0.0.1:4000/posts";
  page.started_ms = 0;
  page.ended_ms = 12;
  page.request_headers = {{"host", "127.0.0.1:4000"}, {"content-type", "application/x-www-form-urlencoded"}};
  page.request_body = "title=%C3%A9";
  page.request_mime = "application/x-www-form-urlencoded";
  page.status = 302;
  page.response_headers = {{"location", "/posts/1"}, {"x-latin", "caf\xe9"}};
  page.response_mime = "text/html";
  page.response_body = "<p>caf\xc3\xa9</p>";
  page.response_body_kept = true;
  page.resource_type = "document";
  Exchange socket;
  socket.method = "GET";
  socket.url = "ws://127.0.0.1:4000/live/websocket?vsn=2.0.0";
  socket.started_ms = 20;
  socket.ended_ms = 40;
  socket.status = 101;
  socket.websocket = true;
  socket.resource_type = "websocket";
  socket.frames = {{25, true, false, R"(["4","4","lv:phx-1","phx_join",{}])"},
                   {30, false, true, std::string("\x00\xff\x01", 3)},
                   {40, false, false, "text"}};
  recording.exchanges = {page, socket};

  const auto text = write_har(recording, "1.2.3");
  EXPECT_NE(text.find(R"("creator":{"name":"stampede record","version":"1.2.3"})"), std::string::npos);
  const auto read = read_har_text(text);
  ASSERT_TRUE(read.ok()) << read.error;
  const auto& r = read.recording;
  EXPECT_EQ(r.started_at, "2025-03-01T10:00:00.000Z");
  ASSERT_EQ(r.exchanges.size(), 2u);
  const auto& p = r.exchanges[0];
  EXPECT_EQ(p.method, "POST");
  EXPECT_EQ(p.url, page.url);
  EXPECT_EQ(p.status, 302);
  EXPECT_EQ(p.request_body, page.request_body);
  EXPECT_EQ(p.response_body, page.response_body);
  EXPECT_EQ(p.resource_type, "document");
  EXPECT_NEAR(p.ended_ms, 12, 0.01);
  ASSERT_NE(p.response_header("x-latin"), nullptr);
  EXPECT_EQ(*p.response_header("x-latin"), "caf\xc3\xa9") << "not UTF-8: read as Latin-1";
  const auto& s = r.exchanges[1];
  EXPECT_TRUE(s.websocket);
  EXPECT_NEAR(s.started_ms, 20, 0.01);
  ASSERT_EQ(s.frames.size(), 3u);
  EXPECT_EQ(s.frames[0].data, socket.frames[0].data);
  EXPECT_TRUE(s.frames[0].sent);
  EXPECT_NEAR(s.frames[0].at_ms, 25, 0.01);
  EXPECT_TRUE(s.frames[1].binary);
  EXPECT_EQ(s.frames[1].data, socket.frames[1].data) << "binary frames go as base64";
  EXPECT_EQ(s.frames[2].data, "text");
}

}  // namespace
}  // namespace stampede::record
