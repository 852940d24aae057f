// Stop signals: noted, never the process's end by the default action; a second one before any
// load ends the process at once with its documented status. Each case raises real signals, so
// each runs in a child process of its own (a death test): what it notes, installs and marks
// is process-wide, and the other tests of this executable must not inherit it.
#include "engine/stop_signals.hpp"

#include <boost/asio/io_context.hpp>
#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <memory>

namespace stampede::engine {
namespace {

class StopSignalsTest : public ::testing::Test {
 protected:
  // A fresh process per case, not a fork of this one (which may have threads).
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

// The child's verdict as its exit status: 0 when `ok`.
[[noreturn]] void exit_with(bool ok) { std::exit(ok ? 0 : 1); }

TEST_F(StopSignalsTest, AStopIsNotedAndKeepsTheLoadFromStarting) {
  EXPECT_EXIT(
      {
        note_stop_signals();
        bool threw_before = false;
        try {
          stop_if_noted();
        } catch (const StoppedBeforeTheLoad&) {
          threw_before = true;
        }
        std::raise(SIGINT);  // delivered before raise() returns: to this thread, which does not block it
        bool threw_after = false;
        try {
          stop_if_noted();
        } catch (const StoppedBeforeTheLoad&) {
          threw_after = true;
        }
        exit_with(!threw_before && threw_after && stops_noted() == 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST_F(StopSignalsTest, ASecondStopBeforeAnyLoadEndsTheProcessAtOnceWithOneLine) {
  EXPECT_EXIT(
      {
        note_stop_signals();
        std::raise(SIGUSR1);
        std::raise(SIGTERM);
        exit_with(false);  // not reached
      },
      ::testing::ExitedWithCode(kStoppedBeforeTheLoad),
      "^interrupted again before the load started: stopped at once, nothing was measured\n$");
}

TEST_F(StopSignalsTest, OnceALoadHasStartedEveryStopIsNotedWhatWasMeasuredIsKept) {
  EXPECT_EXIT(
      {
        note_stop_signals();
        load_started();
        for (int i = 0; i < 3; ++i) std::raise(SIGINT);
        exit_with(stops_noted() == 3);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST_F(StopSignalsTest, AWatchHearsThemOnItsLoopAndWhenItGoesTheyAreNotedAgain) {
  EXPECT_EXIT(
      {
        note_stop_signals();
        load_started();
        boost::asio::io_context io;
        int heard = 0;
        {
          StopSignalWatch watch(io, [&](int signal) { heard = signal; });
          std::raise(SIGUSR1);
          // Delivered before raise() returns; asio hands it over through its loop (its own read
          // of the signal, then the watch's handler), which poll() runs without waiting.
          io.poll();
        }
        std::raise(SIGINT);  // the watch is gone: noted, not the default action
        exit_with(heard == SIGUSR1 && stops_noted() == 2);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST_F(StopSignalsTest, TwoWatchesHearEachStopAndTheFirstToGoLeavesTheOtherHearing) {
  EXPECT_EXIT(
      {
        note_stop_signals();
        load_started();
        boost::asio::io_context io;
        int first = 0;
        int second = 0;
        auto watch = std::make_unique<StopSignalWatch>(io, [&](int) { ++first; });
        {
          StopSignalWatch other(io, [&](int) { ++second; });
          std::raise(SIGINT);
          io.poll();
        }
        // note_stop_signals() while a watch lives must not take the signals from it.
        note_stop_signals();
        std::raise(SIGTERM);
        io.poll();
        watch.reset();
        exit_with(first == 2 && second == 1);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace stampede::engine
