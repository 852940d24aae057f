#include "target/worker.hpp"

#include <fmt/format.h>
#include <sys/prctl.h>

#include <atomic>
#include <boost/asio/socket_base.hpp>
#include <memory>

#include "target/channels_hub.hpp"
#include "target/connection.hpp"
#include "target/h2_connection.hpp"
#include "target/longpoll_sessions.hpp"
#include "transport/kernel_receive_time.hpp"

namespace stampede::target {
namespace {

using ReusePort = asio::detail::socket_option::boolean<SOL_SOCKET, SO_REUSEPORT>;

// Room for 8M held times per worker up front (a minute at 130k/s), so the record does not
// reallocate, and stall the loop copying it, while requests are being timed. It costs
// address space only: the kernel backs the pages when they are first written.
constexpr std::size_t kHeldTimesReserve = 8 << 20;
constexpr std::size_t kReadBufferBytes = 64 * 1024;
constexpr auto kAcceptBackoff = std::chrono::milliseconds(50);
// Spare output buffers kept per worker, and the largest one worth keeping.
constexpr std::size_t kSpareOutputBuffers = 64;
constexpr std::size_t kSpareOutputCapacity = 64 * 1024;

// Out of descriptors or memory: retrying at once would spin. Said once per process.
void report_accept_trouble(const boost::system::error_code& ec) {
  static std::atomic<bool> reported{false};
  if (!reported.exchange(true)) {
    fmt::print(stderr, "stampede target: accepting connections failed ({}); retrying every 50 ms\n", ec.message());
  }
}

}  // namespace

Worker::Worker(const WorkerShared& shared, unsigned index, std::uint64_t seed)
    : shared_(shared),
      index_(index),
      sampler_(shared.delay, seed),
      in_flight_(shared.capacity),
      read_buffer_(kReadBufferBytes, '\0'),
      io_(1),
      acceptor_(io_.get_executor()),
      tls_acceptor_(io_.get_executor()),
      accept_backoff_(io_.get_executor()),
      tls_accept_backoff_(io_.get_executor()),
      hold_timer_(io_.get_executor()),
      lag_timer_(io_.get_executor()),
      longpoll_timer_(io_.get_executor()) {
  held_.reserve(kHeldTimesReserve);
  // Ids 1-3 are the fixed posts; then each worker takes every worker_count-th id.
  route_state_.next_post_id = 4 + index;
  route_state_.post_id_step = shared.worker_count;
  // Apart from the delay sampler's sequence: ids and tokens never shift the seeded delays.
  route_state_.random.seed(seed ^ 0x4c69766556696577ULL);
  route_state_.liveview_posts = shared.liveview_posts;
  if (shared.channels != nullptr) channels_ = &shared.channels->bus(index);
}

std::string Worker::take_output_buffer() {
  if (spare_output_.empty()) return {};
  std::string buffer = std::move(spare_output_.back());
  spare_output_.pop_back();
  return buffer;
}

void Worker::return_output_buffer(std::string& buffer) {
  buffer.clear();
  if (buffer.capacity() > 0 && buffer.capacity() <= kSpareOutputCapacity && spare_output_.size() < kSpareOutputBuffers) {
    spare_output_.push_back(std::move(buffer));
  }
  std::string().swap(buffer);
}

ChannelsBus& Worker::channels() { return *channels_; }

const ChannelStats* Worker::channel_stats() const { return channels_ != nullptr ? &channels_->stats() : nullptr; }

void Worker::start_lag_probe() {
  if (lag_due_ != 0) return;
  lag_due_ = SteadyClock::monotonic_now() + kLagProbePeriod;
  arm_lag_timer();
}

void Worker::arm_lag_timer() {
  lag_timer_.expires_at(Timer::time_point(std::chrono::nanoseconds(lag_due_)));
  lag_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;
    const Nanos now = SteadyClock::monotonic_now();
    server_stats_.loop_lag.record(now - lag_due_);
    lag_due_ = next_probe_due(lag_due_, now);
    arm_lag_timer();
  });
}

void Worker::listen(const asio::ip::tcp::endpoint& endpoint, bool share_port) {
  acceptor_.open(endpoint.protocol());
  acceptor_.set_option(asio::socket_base::reuse_address(true));
  // Only when several workers listen: otherwise a second target started by mistake on the
  // same port would silently share it instead of failing with "address in use".
  if (share_port) acceptor_.set_option(ReusePort(true));
  acceptor_.bind(endpoint);
  acceptor_.listen(asio::socket_base::max_listen_connections);
  // Accepted connections inherit it, and the kernel starts stamping a moment after the first
  // socket asks (it turns stamping on machine-wide from a work queue): asked here, at start,
  // the first requests are stamped too (docs/design/053).
  transport::enable_receive_timestamps(acceptor_.native_handle());
}

std::uint16_t Worker::port() const { return acceptor_.local_endpoint().port(); }

void Worker::listen_tls(const asio::ip::tcp::endpoint& endpoint, bool share_port) {
  tls_acceptor_.open(endpoint.protocol());
  tls_acceptor_.set_option(asio::socket_base::reuse_address(true));
  if (share_port) tls_acceptor_.set_option(ReusePort(true));
  tls_acceptor_.bind(endpoint);
  tls_acceptor_.listen(asio::socket_base::max_listen_connections);
}

std::uint16_t Worker::tls_port() const { return tls_acceptor_.local_endpoint().port(); }

void Worker::run() {
  // Linux lets a timer fire up to 50 us late by default so wake-ups can be batched; holds
  // should end when they are due.
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  accept_next();
  if (tls_acceptor_.is_open()) accept_next_tls();
  io_.run();
}

void Worker::stop() { io_.stop(); }

void Worker::hold(Nanos due, std::shared_ptr<HeldResponder> connection, PendingResponse& slot) {
  holds_.push(due, HeldResponse{std::move(connection), &slot});
  arm_hold_timer();
}

void Worker::requests_read() {
  const Nanos now = SteadyClock::monotonic_now();
  holds_.note_read(now);
  end_due_holds(now);
  arm_hold_timer();
}

std::size_t Worker::end_due_holds(Nanos now) {
  return holds_.release_due(now, [](HeldResponse& held) { held.connection->end_hold(*held.slot); });
}

// Re-arming costs a timer re-program (~10 µs here), so the timer moves only to wake earlier;
// a wake-up it brings too early (for holds that reads ended meanwhile) re-arms it then.
void Worker::arm_hold_timer() {
  const auto wake = holds_.wake_at();
  if (!wake || *wake >= hold_timer_at_) return;
  hold_timer_at_ = *wake;
  hold_timer_.expires_at(Timer::time_point(std::chrono::nanoseconds(*wake)));
  hold_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;  // moved earlier: a newer wait took over
    hold_timer_at_ = kNotArmed;
    holds_.timer_fired(end_due_holds(SteadyClock::monotonic_now()));
    arm_hold_timer();
  });
}

void Worker::accept_next() {
  acceptor_.async_accept([this](const boost::system::error_code& ec, Socket socket) {
    if (ec) return accept_failed(ec, &Worker::accept_next);
    server_stats_.connections_accepted.add();
    std::make_shared<Connection>(*this, std::move(socket))->start();
    accept_next();
  });
}

void Worker::accept_next_tls() {
  tls_acceptor_.async_accept([this](const boost::system::error_code& ec, Socket socket) {
    if (ec) return accept_failed(ec, &Worker::accept_next_tls);
    server_stats_.connections_accepted.add();
    std::make_shared<H2Connection>(*this, shared_.tls)->start(std::move(socket));
    accept_next_tls();
  });
}

void Worker::accept_failed(const boost::system::error_code& ec, void (Worker::*again)()) {
  if (ec == asio::error::operation_aborted || ec == asio::error::bad_descriptor) return;
  // The peer gave up while still queued: nothing wrong with the next one.
  if (ec == asio::error::connection_aborted || ec == asio::error::connection_reset ||
      ec == asio::error::interrupted) {
    return (this->*again)();
  }
  // EMFILE, ENFILE, ENOBUFS, ENOMEM, ...
  report_accept_trouble(ec);
  Timer& backoff = again == &Worker::accept_next ? accept_backoff_ : tls_accept_backoff_;
  backoff.expires_after(kAcceptBackoff);
  backoff.async_wait([this, again](const boost::system::error_code& wait_ec) {
    if (!wait_ec) (this->*again)();
  });
}

}  // namespace stampede::target
