// The inbox the streaming clients keep for await: numbering, filters, the one-await-per-message
// rule, deadlines on the worker's timers (a manual clock), the size limit and closing.
#include "clients/message_inbox.hpp"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <optional>
#include <string>

namespace stampede::clients {
namespace {

struct Note {
  std::uint64_t seq = 0;
  std::string topic;
};

class MessageInboxTest : public ::testing::Test {
 protected:
  MessageInboxTest() : sink(registry), ctx(io, sink, clock) {}

  // Runs what is ready, a bounded number of handlers: with a manual clock the worker's Asio
  // timer is always due, and it re-arms itself while a WorkerTimer waits.
  void drain() {
    io.restart();
    for (int i = 0; i < 100 && io.poll_one() > 0; ++i) {
    }
  }
  static MessageInbox<Note>::Filter topic(std::string t) {
    return [t](const Note& n) { return n.topic == t; };
  }

  boost::asio::io_context io;
  ManualClock clock;
  metrics::Registry registry;
  metrics::MetricSink sink;
  ClientContext ctx;
};

TEST_F(MessageInboxTest, NumbersFindsByFilterAndConsumes) {
  MessageInbox<Note> inbox(ctx, 10);
  inbox.push({0, "a"});
  inbox.push({0, "b"});
  inbox.push({0, "a"});
  const Note* first_b = inbox.find(0, topic("b"));
  ASSERT_NE(first_b, nullptr);
  EXPECT_EQ(first_b->seq, 2u);
  const Note* second_a = inbox.find(1, topic("a"));  // after the first a: a match function skipped it
  ASSERT_NE(second_a, nullptr);
  EXPECT_EQ(second_a->seq, 3u);
  inbox.consume(1);
  EXPECT_EQ(inbox.find(0, topic("a"))->seq, 3u);
  EXPECT_EQ(inbox.size(), 2u);
}

TEST_F(MessageInboxTest, AWaitForWhatIsKeptCompletesFromTheLoopNotInsideTheCall) {
  MessageInbox<Note> inbox(ctx, 10);
  inbox.push({0, "a"});
  std::optional<std::uint64_t> got;
  inbox.wait(0, topic("a"), kSecond, [&](const Note* n) { got = n ? n->seq : 0; });
  EXPECT_FALSE(got);
  drain();
  ASSERT_TRUE(got);
  EXPECT_EQ(*got, 1u);
}

TEST_F(MessageInboxTest, AnArrivalWakesTheFirstAwaitItMatchesAndOnlyThatOne) {
  MessageInbox<Note> inbox(ctx, 10);
  std::vector<std::string> woken;
  inbox.wait(0, topic("a"), 5 * kSecond, [&](const Note* n) { woken.push_back("a1:" + (n ? n->topic : "-")); });
  inbox.wait(0, topic("a"), 5 * kSecond, [&](const Note* n) { woken.push_back("a2:" + (n ? n->topic : "-")); });
  inbox.wait(0, topic("b"), 5 * kSecond, [&](const Note* n) { woken.push_back("b:" + (n ? n->topic : "-")); });
  inbox.push({0, "b"});
  inbox.push({0, "a"});
  EXPECT_EQ(woken, (std::vector<std::string>{"b:b", "a1:a"}));
  inbox.push({0, "a"});
  EXPECT_EQ(woken.back(), "a2:a");
}

TEST_F(MessageInboxTest, TheDeadlinePassesOnTheWorkersClock) {
  MessageInbox<Note> inbox(ctx, 10);
  int calls = 0;
  static const Note kUnset;
  const Note* got = &kUnset;  // anything but nullptr
  inbox.wait(0, topic("a"), 5 * kSecond, [&](const Note* n) {
    ++calls;
    got = n;
  });
  inbox.push({0, "b"});  // does not match: the wait goes on
  clock.advance(5 * kSecond - 1);
  drain();
  EXPECT_EQ(calls, 0);
  clock.advance(1);
  drain();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(got, nullptr);
  inbox.push({0, "a"});  // after the deadline: kept for the next await, nobody woken
  drain();
  EXPECT_EQ(calls, 1);
  EXPECT_NE(inbox.find(0, topic("a")), nullptr);
}

TEST_F(MessageInboxTest, TheOldestGoWhenFull) {
  MessageInbox<Note> inbox(ctx, 2);
  EXPECT_TRUE(inbox.push({0, "a"}));
  EXPECT_TRUE(inbox.push({0, "b"}));
  EXPECT_FALSE(inbox.push({0, "c"}));
  EXPECT_EQ(inbox.find(0, nullptr)->topic, "b");
  EXPECT_EQ(inbox.size(), 2u);
}

TEST_F(MessageInboxTest, ClosingWakesEveryAwaitWithNothingAndLaterOnesAtOnce) {
  MessageInbox<Note> inbox(ctx, 10);
  inbox.push({0, "kept"});
  int nothing = 0;
  inbox.wait(0, topic("a"), 5 * kSecond, [&](const Note* n) { nothing += n == nullptr; });
  inbox.wait(0, topic("b"), 5 * kSecond, [&](const Note* n) { nothing += n == nullptr; });
  inbox.close();
  EXPECT_EQ(nothing, 2);
  inbox.wait(0, topic("a"), 5 * kSecond, [&](const Note* n) { nothing += n == nullptr; });
  drain();
  EXPECT_EQ(nothing, 3);
  // What arrived before the end stays readable.
  const Note* kept = nullptr;
  inbox.wait(0, topic("kept"), 5 * kSecond, [&](const Note* n) { kept = n; });
  drain();
  ASSERT_NE(kept, nullptr);
  EXPECT_EQ(kept->topic, "kept");
}

TEST_F(MessageInboxTest, ACompletionQueuedForAnInboxThatIsGoneIsDropped) {
  bool called = false;
  {
    MessageInbox<Note> inbox(ctx, 10);
    inbox.push({0, "a"});
    inbox.wait(0, topic("a"), kSecond, [&](const Note*) { called = true; });
  }
  drain();
  EXPECT_FALSE(called);
}

TEST_F(MessageInboxTest, DestroyingTheInboxDisarmsItsDeadlines) {
  {
    MessageInbox<Note> inbox(ctx, 10);
    inbox.wait(0, topic("a"), kSecond, [](const Note*) { FAIL() << "called after the inbox was destroyed"; });
    EXPECT_EQ(ctx.timers().armed(), 1u);
  }
  EXPECT_EQ(ctx.timers().armed(), 0u);
  clock.advance(2 * kSecond);
  drain();
}

}  // namespace
}  // namespace stampede::clients
