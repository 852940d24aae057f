#pragma once
// Runs a test's loop until `done` holds, for at most five seconds (then the test fails).
// Shared by the transport tests that drive real sockets on one io_context.
#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <functional>

namespace stampede::transport::testing {

inline void run_until(boost::asio::io_context& io, const std::function<bool()>& done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!done() && std::chrono::steady_clock::now() < deadline) {
    io.run_one_for(std::chrono::milliseconds(5));
    if (io.stopped()) io.restart();
  }
  ASSERT_TRUE(done());
}

}  // namespace stampede::transport::testing
