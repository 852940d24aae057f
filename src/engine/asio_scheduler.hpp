#pragma once
// The Scheduler of a worker's event loop: its monotonic clock and Asio steady timers.
#include <boost/asio/io_context.hpp>

#include "engine/scheduler.hpp"

namespace stampede::engine {

class AsioScheduler final : public Scheduler {
 public:
  AsioScheduler(boost::asio::io_context& io, const Clock& clock) : io_(io), clock_(clock) {}

  Nanos now() const override { return clock_.now(); }
  std::unique_ptr<Timer> make_timer() override;
  void post(std::function<void()> fn) override;
  void wait_until(Nanos t) override;

 private:
  boost::asio::io_context& io_;
  const Clock& clock_;
};

// Absolute time point for an Asio steady_timer from monotonic ns.
inline std::chrono::steady_clock::time_point time_point_at(Nanos t) {
  return std::chrono::steady_clock::time_point(std::chrono::nanoseconds(t));
}

}  // namespace stampede::engine
