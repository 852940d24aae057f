#include "engine/asio_scheduler.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

namespace stampede::engine {

namespace {

// Tells the core this is a busy wait (x86 PAUSE), so a sibling hyperthread gets the cycles.
inline void spin_pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

class AsioTimer final : public Timer {
 public:
  explicit AsioTimer(boost::asio::io_context& io) : timer_(io) {}

  void arm(Nanos at, std::function<void()> fn) override {
    // Setting the expiry cancels the wait already pending: its handler sees the error.
    timer_.expires_at(time_point_at(at));
    timer_.async_wait([fn = std::move(fn)](const boost::system::error_code& ec) {
      if (!ec) fn();
    });
  }
  void cancel() override { timer_.cancel(); }

 private:
  boost::asio::steady_timer timer_;
};

}  // namespace

std::unique_ptr<Timer> AsioScheduler::make_timer() { return std::make_unique<AsioTimer>(io_); }

void AsioScheduler::post(std::function<void()> fn) { boost::asio::post(io_, std::move(fn)); }

void AsioScheduler::wait_until(Nanos t) {
  while (clock_.now() < t) spin_pause();
}

}  // namespace stampede::engine
