// The pushes a LiveView sends by itself, kept for await: bounded, read in order, one waiter.
#include "clients/liveview_pushes.hpp"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>

namespace stampede::clients {
namespace {

class LivePushBufferTest : public ::testing::Test {
 protected:
  void drain() {
    io.restart();
    io.poll();
  }
  boost::asio::io_context io;
};

TEST_F(LivePushBufferTest, KeepsPushesInOrderAndDropsTheOldestPastTheLimit) {
  LivePushBuffer buffer(io, 2);
  buffer.add("v", "diff", "", R"({"0":"1"})");
  buffer.add("v", "event", "ping", "{}");
  buffer.add("v", "diff", "", R"({"0":"2"})");
  ASSERT_EQ(buffer.size(), 2u);
  const LivePush* first = buffer.find(0);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->kind, "event");
  EXPECT_EQ(first->event, "ping");
  const LivePush* second = buffer.find(first->seq);
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(second->payload_json, R"({"0":"2"})");
  const auto second_seq = second->seq;
  buffer.consume(first->seq);
  ASSERT_NE(buffer.find(0), nullptr);
  EXPECT_EQ(buffer.find(0)->seq, second_seq);
}

TEST_F(LivePushBufferTest, AWaitIsAnsweredByWhatIsThereOnlyFromTheLoop) {
  LivePushBuffer buffer(io, 10);
  buffer.add("v", "diff", "", "{}");
  const LivePush* got = nullptr;
  bool called = false;
  buffer.wait(0, kSecond, [&](const LivePush* p) {
    called = true;
    got = p;
  });
  EXPECT_FALSE(called);
  drain();
  ASSERT_TRUE(called);
  EXPECT_NE(got, nullptr);
}

TEST_F(LivePushBufferTest, AWaitIsAnsweredByTheNextPush) {
  LivePushBuffer buffer(io, 10);
  std::string kind;
  buffer.wait(0, kSecond, [&](const LivePush* p) { kind = p ? p->kind : "none"; });
  buffer.add("v", "live_patch", "http://h/x?page=2", R"({"to":"/x?page=2","kind":"push"})");
  EXPECT_EQ(kind, "live_patch");
}

TEST_F(LivePushBufferTest, InterruptAndTimeoutEndAWaitWithNothing) {
  LivePushBuffer buffer(io, 10);
  int nothing = 0;
  buffer.wait(0, kSecond, [&](const LivePush* p) { nothing += p == nullptr; });
  buffer.interrupt();
  EXPECT_EQ(nothing, 1);
  buffer.wait(0, kMilli, [&](const LivePush* p) { nothing += p == nullptr; });
  io.restart();
  io.run_for(std::chrono::seconds(30));  // returns once nothing is armed: a hang guard, not a bound
  EXPECT_EQ(nothing, 2);
}

TEST_F(LivePushBufferTest, ALimitOfZeroKeepsNothing) {
  LivePushBuffer buffer(io, 0);
  buffer.add("v", "diff", "", "{}");
  EXPECT_EQ(buffer.find(0), nullptr);
}

}  // namespace
}  // namespace stampede::clients
