// The target's LongPoll sessions on a simulated clock: what each request is answered, when a
// held poll ends, when an idle session goes.
#include "target/longpoll_sessions.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "proto/phoenix_longpoll.hpp"
#include "target/channels_bus.hpp"
#include "target/presence_registry.hpp"

namespace stampede::target {
namespace {

namespace lp = proto::phx::longpoll;

lp::Response decoded(const std::string& body) {
  auto r = lp::decode_response(body);
  EXPECT_TRUE(std::holds_alternative<lp::Response>(r)) << body;
  return std::holds_alternative<lp::Response>(r) ? std::get<lp::Response>(r) : lp::Response{};
}

class LongPollSessionsTest : public ::testing::Test {
 protected:
  LongPollSessionsTest()
      : bus_(presence_, 0, 1, 1),
        random_(3),
        sessions_(LongPollSessions::Services{bus_, random_, nullptr, 0, [this] { ++wakes_; }}) {}

  std::string open(Nanos now = 0) {
    const lp::Response r = decoded(sessions_.open(LongPollSessions::Open{}, now));
    EXPECT_EQ(r.status, 410);
    EXPECT_TRUE(r.token);
    return r.token.value_or("");
  }

  // Polls; the answer, if one came by now, is in answers_.
  void poll(const std::string& token, Nanos now, std::optional<LongPollSessions::Open> open_new = std::nullopt) {
    sessions_.poll(token, std::move(open_new), now, [this](std::string body) { answers_.push_back(decoded(body)); });
  }

  std::string publish(const std::string& token, const std::string& body, Nanos now) {
    return sessions_.publish(token, body, lp::kBatchContentType, now);
  }

  PresenceRegistry presence_;
  ChannelsBus bus_;
  TokenRandom random_;
  int wakes_ = 0;
  LongPollSessions sessions_;
  std::vector<lp::Response> answers_;
};

constexpr Nanos kWindow = LongPollSessions::kDefaultWindow;
const std::string kJoin = R"(["1","1","room:lobby","phx_join",{}])";

TEST_F(LongPollSessionsTest, TheTokenNamesItsWorker) {
  const std::string token = open();
  EXPECT_EQ(LongPollSessions::owner_of(token), 0u);
  EXPECT_EQ(LongPollSessions::owner_of("12.3.abc"), 12u);
  EXPECT_FALSE(LongPollSessions::owner_of("anything"));
  EXPECT_FALSE(LongPollSessions::owner_of(".3.abc"));
  EXPECT_FALSE(LongPollSessions::owner_of("1x.3.abc"));
}

TEST_F(LongPollSessionsTest, AnEmptyPollIsHeldForTheWindowThenEndsWith204) {
  const std::string token = open();
  poll(token, 1 * kSecond);
  EXPECT_TRUE(answers_.empty());
  EXPECT_EQ(sessions_.next_due(), 1 * kSecond + kWindow);
  sessions_.handle_time(1 * kSecond + kWindow - 1);
  EXPECT_TRUE(answers_.empty());
  sessions_.handle_time(1 * kSecond + kWindow);
  ASSERT_EQ(answers_.size(), 1u);
  EXPECT_EQ(answers_[0].status, 204);
  EXPECT_EQ(answers_[0].token, token);
}

TEST_F(LongPollSessionsTest, APublishAnswersTheHeldPollWithTheReplies) {
  const std::string token = open();
  poll(token, 0);
  EXPECT_EQ(publish(token, kJoin + "\n" + R"(["1","2","room:lobby","ping",{"n":7}])", 0), R"({"status":200})");
  ASSERT_EQ(answers_.size(), 1u);  // both replies in one answer
  EXPECT_EQ(answers_[0].status, 200);
  ASSERT_EQ(answers_[0].messages.size(), 2u);
  EXPECT_NE(answers_[0].messages[0].find("phx_reply"), std::string::npos);
  EXPECT_NE(answers_[0].messages[1].find(R"("n":7)"), std::string::npos);
}

TEST_F(LongPollSessionsTest, MessagesWaitForTheNextPoll) {
  const std::string token = open();
  publish(token, kJoin, 0);
  EXPECT_TRUE(answers_.empty());
  poll(token, 1);
  ASSERT_EQ(answers_.size(), 1u);
  EXPECT_EQ(answers_[0].status, 200);
  EXPECT_EQ(answers_[0].messages.size(), 1u);
}

TEST_F(LongPollSessionsTest, ASecondPollEndsTheFirstWith204) {
  const std::string token = open();
  poll(token, 0);
  poll(token, 1);
  ASSERT_EQ(answers_.size(), 1u);
  EXPECT_EQ(answers_[0].status, 204);
  publish(token, kJoin, 2);
  ASSERT_EQ(answers_.size(), 2u);
  EXPECT_EQ(answers_[1].status, 200);
}

TEST_F(LongPollSessionsTest, ABroadcastFromAnotherSessionReachesAHeldPollInTheSameCall) {
  const std::string listener = open();
  const std::string speaker = open();
  publish(listener, kJoin, 0);
  publish(speaker, kJoin, 0);
  poll(listener, 0);  // the join's reply
  answers_.clear();
  poll(listener, 1);  // held
  EXPECT_TRUE(answers_.empty());
  publish(speaker, R"(["1","3","room:lobby","shout",{"hi":1}])", 2);
  ASSERT_EQ(answers_.size(), 1u);
  ASSERT_EQ(answers_[0].messages.size(), 1u);
  EXPECT_NE(answers_[0].messages[0].find("shout"), std::string::npos);
  EXPECT_EQ(wakes_, 0);  // answered at the end of the publish: no wake needed
}

TEST_F(LongPollSessionsTest, ABroadcastFromOutsideWakesTheOwnerAndAFlushAnswers) {
  const std::string listener = open();
  publish(listener, kJoin, 0);
  poll(listener, 0);
  answers_.clear();
  poll(listener, 1);  // held
  bus_.publish("room:lobby", "shout", R"({"from":"elsewhere"})");
  EXPECT_EQ(wakes_, 1);
  EXPECT_TRUE(answers_.empty());  // not from inside the bus's delivery
  bus_.publish("room:lobby", "shout", R"({"again":1})");
  EXPECT_EQ(wakes_, 1);  // one wake until the flush
  sessions_.flush();
  ASSERT_EQ(answers_.size(), 1u);
  EXPECT_EQ(answers_[0].messages.size(), 2u);
}

TEST_F(LongPollSessionsTest, ASessionNobodyPolledFor15SecondsEnds) {
  const std::string token = open(0);
  poll(token, 0);
  sessions_.handle_time(kWindow);  // 204
  ASSERT_EQ(answers_.size(), 1u);
  EXPECT_EQ(sessions_.size(), 1u);
  sessions_.handle_time(kWindow + kWindow + kWindow / 2);  // 1.5 windows after its last poll
  EXPECT_EQ(sessions_.size(), 0u);
  EXPECT_EQ(publish(token, kJoin, 0), R"({"status":410})");
  // A GET with the gone token opens a new session, as Phoenix does.
  poll(token, 30 * kSecond, LongPollSessions::Open{});
  ASSERT_EQ(answers_.size(), 2u);
  EXPECT_EQ(answers_[1].status, 410);
  EXPECT_TRUE(answers_[1].token);
  EXPECT_NE(*answers_[1].token, token);
}

TEST_F(LongPollSessionsTest, AnUnknownTokenWithABadVsnIs403) {
  poll("0.99.nobody", 0);
  ASSERT_EQ(answers_.size(), 1u);
  EXPECT_EQ(answers_[0].status, 403);
}

TEST_F(LongPollSessionsTest, AnUndecodableFrameEndsTheSession) {
  const std::string token = open();
  poll(token, 0);
  EXPECT_EQ(publish(token, "not a frame", 0), R"({"status":200})");
  ASSERT_EQ(answers_.size(), 1u);
  EXPECT_EQ(answers_[0].status, 410);  // the held poll learns the session is gone
  EXPECT_EQ(sessions_.size(), 0u);
}


TEST(LongPollSessionsLifetime, ASessionEndsItsLifetimeAfterItOpenedHeldPollOrNot) {
  PresenceRegistry presence;
  ChannelsBus bus(presence, 0, 1, 1);
  TokenRandom random(3);
  LongPollSessions::Services services{bus, random, nullptr, 0, {}};
  services.lifetime = 2 * kSecond;
  LongPollSessions sessions(services);
  std::vector<lp::Response> answers;
  auto poll = [&](const std::string& token, Nanos now) {
    sessions.poll(token, LongPollSessions::Open{}, now, [&](std::string body) { answers.push_back(decoded(body)); });
  };
  const std::string held = *decoded(sessions.open(LongPollSessions::Open{}, 0)).token;
  const std::string between = *decoded(sessions.open(LongPollSessions::Open{}, kSecond)).token;
  poll(held, 500 * kMilli);
  ASSERT_EQ(sessions.next_due(), 2 * kSecond);  // the first lifetime, before the poll's window
  sessions.handle_time(2 * kSecond - 1);
  EXPECT_TRUE(answers.empty());
  EXPECT_EQ(sessions.size(), 2u);
  sessions.handle_time(2 * kSecond);
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].status, 410);  // the held poll learns its session is gone
  EXPECT_FALSE(answers[0].token);
  EXPECT_EQ(sessions.size(), 1u);
  EXPECT_EQ(sessions.next_due(), 3 * kSecond);
  sessions.handle_time(3 * kSecond);
  EXPECT_EQ(sessions.size(), 0u);
  // The other one, polled after its end: a new session (410 with a new token).
  poll(between, 3 * kSecond);
  ASSERT_EQ(answers.size(), 2u);
  EXPECT_EQ(answers[1].status, 410);
  ASSERT_TRUE(answers[1].token);
  EXPECT_NE(*answers[1].token, between);
}

}  // namespace
}  // namespace stampede::target
