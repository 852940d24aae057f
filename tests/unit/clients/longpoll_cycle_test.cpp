// LongPollCycle against what phoenix.js's LongPoll (1.8.16, longpoll.js) does with each answer.
#include "clients/longpoll_cycle.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace stampede::clients {
namespace {

constexpr const char* kEndpoint = "http://h/socket/longpoll?vsn=2.0.0";

LongPollCycle opened() {
  LongPollCycle cycle(kEndpoint);
  const auto r = cycle.on_poll(200, R"({"messages":[],"status":410,"token":"T1"})");
  EXPECT_TRUE(r.opened);
  return cycle;
}

TEST(LongPollCycle, OpensOnA410WithATokenAndPollsWithIt) {
  LongPollCycle cycle(kEndpoint);
  EXPECT_EQ(cycle.state(), LongPollCycle::State::Connecting);
  EXPECT_EQ(cycle.request_url(), std::string(kEndpoint) + "&");  // phoenix.js's bare "&"
  const auto r = cycle.on_poll(200, R"({"messages":[],"status":410,"token":"a+b/c"})");
  EXPECT_TRUE(r.opened);
  EXPECT_FALSE(r.close);
  EXPECT_EQ(cycle.state(), LongPollCycle::State::Open);
  EXPECT_EQ(cycle.request_url(), std::string(kEndpoint) + "&token=a%2Bb%2Fc");
}

TEST(LongPollCycle, DeliversMessagesInOrderAndKeepsPolling) {
  LongPollCycle cycle = opened();
  auto r = cycle.on_poll(200, R"({"messages":["[\"1\",\"1\",\"room:1\",\"phx_reply\",{}]","b"],"status":200,"token":"T1"})");
  ASSERT_EQ(r.messages.size(), 2u);
  EXPECT_EQ(r.messages[0], R"(["1","1","room:1","phx_reply",{}])");
  EXPECT_EQ(r.messages[1], "b");
  EXPECT_FALSE(r.close);
  r = cycle.on_poll(200, R"({"messages":[],"status":204,"token":"T1"})");
  EXPECT_TRUE(r.messages.empty());
  EXPECT_FALSE(r.close);
  EXPECT_FALSE(r.opened);
  EXPECT_EQ(cycle.state(), LongPollCycle::State::Open);
}

TEST(LongPollCycle, A410WithATokenMeansTheSessionIsGone) {
  LongPollCycle cycle = opened();
  const auto r = cycle.on_poll(200, R"({"messages":[],"status":410,"token":"T2"})");
  ASSERT_TRUE(r.close);
  EXPECT_EQ(r.close->code, 3410);
  EXPECT_EQ(r.close->reason, "session_gone");
  EXPECT_EQ(r.close->error_reason, "session_gone");
  EXPECT_EQ(cycle.state(), LongPollCycle::State::Closed);
  // Nothing after the close counts.
  EXPECT_FALSE(cycle.on_poll(200, R"({"status":500})").close);
  EXPECT_FALSE(cycle.queue("x", false));
}

TEST(LongPollCycle, StatusesCloseAsPhoenixJsCloses) {
  struct Case {
    const char* body;
    std::uint16_t code;
    const char* error_reason;
  };
  for (const Case& c : {Case{R"({"status":403})", 1008, "forbidden"}, Case{R"({"status":500})", 1011, "server_error"},
                        Case{R"({"status":302,"token":"T1"})", 1011, "unhandled_status"},
                        Case{"<html>bad gateway</html>", 1011, "invalid_response"},
                        Case{"", 1011, "invalid_response"},
                        Case{R"({"status":200,"messages":[1]})", 1011, "invalid_response"}}) {
    LongPollCycle cycle = opened();
    const auto r = cycle.on_poll(200, c.body);
    ASSERT_TRUE(r.close) << c.body;
    EXPECT_EQ(r.close->code, c.code) << c.body;
    EXPECT_EQ(r.close->error_reason, c.error_reason) << c.body;
    EXPECT_FALSE(r.close->message.empty());
  }
}

TEST(LongPollCycle, TransportFailuresCloseWithTheirReason) {
  LongPollCycle a = opened();
  auto r = a.on_poll(0, "", "timeout");
  ASSERT_TRUE(r.close);
  EXPECT_EQ(r.close->code, 1005);
  EXPECT_EQ(r.close->error_reason, "timeout");
  LongPollCycle b = opened();
  r = b.on_poll(0, "", "reset");
  ASSERT_TRUE(r.close);
  EXPECT_EQ(r.close->code, 1011);
  EXPECT_EQ(r.close->error_reason, "reset");
}

TEST(LongPollCycle, AnOpeningWithoutATokenIsInvalid) {
  LongPollCycle cycle(kEndpoint);
  const auto r = cycle.on_poll(200, R"({"status":410})");
  EXPECT_FALSE(r.opened);
  ASSERT_TRUE(r.close);
  EXPECT_EQ(r.close->error_reason, "invalid_response");
}

TEST(LongPollCycle, ConnectFailuresCarryTheStatus) {
  LongPollCycle cycle(kEndpoint);
  const auto r = cycle.on_poll(200, R"({"status":403})");
  ASSERT_TRUE(r.close);
  EXPECT_EQ(r.close->status, 403);
  EXPECT_EQ(cycle.state(), LongPollCycle::State::Closed);
}

TEST(LongPollCycle, FramesOfOneTurnGoInOnePostAndTheRestAfterItsAnswer) {
  LongPollCycle cycle = opened();
  EXPECT_TRUE(cycle.queue("a", false));   // schedule a flush
  EXPECT_FALSE(cycle.queue("b", false));  // already scheduled
  auto body = cycle.take_batch();
  ASSERT_TRUE(body);
  EXPECT_EQ(*body, "a\nb");
  EXPECT_FALSE(cycle.take_batch());       // one POST at a time
  EXPECT_FALSE(cycle.queue("c", false));  // waits for the answer
  EXPECT_FALSE(cycle.queue("\x01\x02", true));
  EXPECT_FALSE(cycle.on_publish(200, R"({"status":200})"));
  body = cycle.take_batch();
  ASSERT_TRUE(body);
  EXPECT_EQ(*body, "c\nAQI=");  // a binary frame as base64, as phoenix.js sends an ArrayBuffer
  EXPECT_FALSE(cycle.on_publish(200, R"({"status":200})"));
  EXPECT_FALSE(cycle.take_batch());
  EXPECT_TRUE(cycle.queue("d", false));  // idle again: a new flush
}

TEST(LongPollCycle, AtMostAHundredFramesPerPost) {
  LongPollCycle cycle = opened();
  for (int i = 0; i < 250; ++i) cycle.queue(std::to_string(i), false);
  int posts = 0;
  std::size_t frames = 0;
  while (auto body = cycle.take_batch()) {
    ++posts;
    const std::size_t lines = 1 + static_cast<std::size_t>(std::count(body->begin(), body->end(), '\n'));
    EXPECT_LE(lines, 100u);
    frames += lines;
    EXPECT_FALSE(cycle.on_publish(200, R"({"status":200})"));
  }
  EXPECT_EQ(posts, 3);
  EXPECT_EQ(frames, 250u);
}

TEST(LongPollCycle, APostAnsweredWithoutStatus200Closes) {
  struct Case {
    int http;
    const char* body;
    const char* failure;
    const char* error_reason;
  };
  for (const Case& c : {Case{200, R"({"status":410})", "", "session_gone"},
                        Case{200, R"({"status":401})", "", "publish_failed"},
                        Case{500, "Internal Server Error", "", "invalid_response"},
                        Case{0, "", "timeout", "timeout"}, Case{0, "", "closed", "closed"}}) {
    LongPollCycle cycle = opened();
    cycle.queue("a", false);
    ASSERT_TRUE(cycle.take_batch());
    const auto close = cycle.on_publish(c.http, c.body, c.failure);
    ASSERT_TRUE(close) << c.body;
    EXPECT_EQ(close->error_reason, c.error_reason) << c.body;
    EXPECT_EQ(cycle.state(), LongPollCycle::State::Closed);
  }
}

TEST(LongPollCycle, NothingIsPostedBeforeTheSocketOpens) {
  LongPollCycle cycle(kEndpoint);
  cycle.queue("early", false);
  EXPECT_FALSE(cycle.take_batch());
  cycle.on_poll(200, R"({"status":410,"token":"T"})");
  const auto body = cycle.take_batch();
  ASSERT_TRUE(body);
  EXPECT_EQ(*body, "early");
}

TEST(LongPollCycle, CloseDropsWhatIsQueued) {
  LongPollCycle cycle = opened();
  cycle.queue("a", false);
  cycle.close();
  EXPECT_FALSE(cycle.take_batch());
  EXPECT_EQ(cycle.state(), LongPollCycle::State::Closed);
}


TEST(LongPollCycle, ReopeningAfterTheSessionWentAsksForANewOne) {
  LongPollCycle cycle = opened();
  cycle.queue("a", false);
  ASSERT_TRUE(cycle.on_poll(200, R"({"messages":[],"status":410,"token":"T2"})").close);
  cycle.reopen();
  // As phoenix.js's new LongPoll: no token, so the server opens a session; a 410 is "opened".
  EXPECT_EQ(cycle.state(), LongPollCycle::State::Connecting);
  EXPECT_EQ(cycle.request_url(), std::string(kEndpoint) + "&");
  EXPECT_FALSE(cycle.take_batch());  // nothing queued before carries over
  const auto r = cycle.on_poll(200, R"({"messages":[],"status":410,"token":"T3"})");
  EXPECT_TRUE(r.opened);
  EXPECT_FALSE(r.close);
  EXPECT_EQ(cycle.request_url(), std::string(kEndpoint) + "&token=T3");
  EXPECT_TRUE(cycle.queue("b", false));
  EXPECT_EQ(cycle.take_batch(), "b");
}

}  // namespace
}  // namespace stampede::clients
