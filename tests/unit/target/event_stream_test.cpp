// The target's GET /events: the plan read from the query and Last-Event-ID, and the bytes.
#include "target/event_stream.hpp"

#include <gtest/gtest.h>

#include "proto/event_stream.hpp"
#include "proto/http_request_parser.hpp"

namespace stampede::target {
namespace {

proto::HttpRequest request(std::string_view head) {
  proto::HttpRequestParser parser;
  parser.feed(head);
  EXPECT_TRUE(parser.done()) << head;
  return parser.request();
}

TEST(TargetEventStream, DefaultsAndQueryParameters) {
  const auto plain = request("GET /events HTTP/1.1\r\nHost: x\r\n\r\n");
  auto answer = plan_event_stream(plain, "");
  ASSERT_TRUE(answer.plan) << answer.error;
  EXPECT_EQ(answer.plan->interval, kSecond);
  EXPECT_EQ(answer.plan->count, 0u);
  EXPECT_FALSE(answer.plan->retry_ms);
  EXPECT_EQ(answer.plan->next_id, 1u);

  answer = plan_event_stream(plain, "rate=4&count=3&retry=250&event=price%20tick");
  ASSERT_TRUE(answer.plan) << answer.error;
  EXPECT_EQ(answer.plan->interval, kSecond / 4);
  EXPECT_EQ(answer.plan->count, 3u);
  EXPECT_EQ(answer.plan->retry_ms, 250u);
  EXPECT_EQ(answer.plan->type, "price tick");
}

TEST(TargetEventStream, LastEventIdContinuesTheNumbering) {
  auto answer = plan_event_stream(request("GET /events HTTP/1.1\r\nHost: x\r\nLast-Event-ID: 41\r\n\r\n"), "");
  ASSERT_TRUE(answer.plan);
  EXPECT_EQ(answer.plan->next_id, 42u);
  // One that is not ours starts again at 1.
  answer = plan_event_stream(request("GET /events HTTP/1.1\r\nHost: x\r\nLast-Event-ID: abc\r\n\r\n"), "");
  ASSERT_TRUE(answer.plan);
  EXPECT_EQ(answer.plan->next_id, 1u);
}

TEST(TargetEventStream, BadParametersAreA400WithAReason) {
  const auto plain = request("GET /events HTTP/1.1\r\nHost: x\r\n\r\n");
  for (const char* query : {"rate=0", "rate=5000", "rate=x", "count=-1", "retry=1.5", "event=a%0Ab", "rate=%zz"}) {
    const auto answer = plan_event_stream(plain, query);
    EXPECT_FALSE(answer.plan) << query;
    EXPECT_FALSE(answer.error.empty()) << query;
  }
}

// What the target writes parses, with our own parser, into the events it means.
TEST(TargetEventStream, TheBytesAreAnEventStream) {
  EventStreamPlan plan;
  plan.retry_ms = 100;
  plan.type = "tick";
  std::string head = event_stream_head(plan);
  const auto body_at = head.find("\r\n\r\n");
  ASSERT_NE(body_at, std::string::npos);
  EXPECT_NE(head.find("Content-Type: text/event-stream\r\n"), std::string::npos);
  std::string body = head.substr(body_at + 4);
  append_event(body, plan, 7);
  append_event(body, plan, 8);
  proto::sse::EventStreamParser parser;
  parser.feed(body);
  std::vector<std::string> seen;
  for (auto e = parser.next(); e.kind != proto::sse::SseEvent::Kind::NeedMore; e = parser.next()) {
    if (e.kind == proto::sse::SseEvent::Kind::Message) {
      seen.push_back(std::string(e.type) + " " + std::string(e.last_event_id) + " " + std::string(e.data));
    }
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"tick 7 {\"n\":7}", "tick 8 {\"n\":8}"}));
  EXPECT_EQ(parser.reconnection_time_ms(), 100u);
}

}  // namespace
}  // namespace stampede::target
