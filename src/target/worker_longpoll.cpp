// The worker's part of the LongPoll transport: its sessions, made on first use, and the one
// timer that ends their held polls (204 after the window), drops idle sessions and runs their
// applications' timers.
#include <boost/asio/post.hpp>

#include "target/longpoll_sessions.hpp"
#include "target/worker.hpp"

namespace stampede::target {

Worker::~Worker() = default;

LongPollSessions& Worker::longpoll() {
  if (!longpoll_) {
    LongPollSessions::Services services{channels(), route_state_.random, route_state_.liveview_posts, index_, {}};
    services.lifetime = shared_.longpoll_session_lifetime;
    // A broadcast reached a session with a held poll: answer it from the loop, once the bus
    // has finished delivering.
    services.wake = [this] {
      if (longpoll_flush_posted_) return;
      longpoll_flush_posted_ = true;
      asio::post(io_, [this] {
        longpoll_flush_posted_ = false;
        longpoll_->flush();
        longpoll_touched();
      });
    };
    longpoll_ = std::make_unique<LongPollSessions>(std::move(services));
  }
  return *longpoll_;
}

void Worker::longpoll_touched() {
  const auto due = longpoll_ ? longpoll_->next_due() : std::nullopt;
  if (!due || *due >= longpoll_timer_at_) return;
  longpoll_timer_at_ = *due;
  longpoll_timer_.expires_at(Timer::time_point(std::chrono::nanoseconds(*due)));
  longpoll_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;  // cancelled: re-armed earlier, or the worker is going
    on_longpoll_timer();
  });
}

void Worker::on_longpoll_timer() {
  longpoll_timer_at_ = kNotArmed;
  longpoll_->handle_time(SteadyClock::monotonic_now());
  longpoll_touched();
}

}  // namespace stampede::target
