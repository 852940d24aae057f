#include "record/recording_proxy.hpp"

#include <boost/asio/basic_waitable_timer.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <algorithm>
#include <array>
#include <stdexcept>
#include <vector>

#include "proto/duration.hpp"
#include "transport/errors.hpp"
#include "transport/resolve.hpp"
#include "transport/stream.hpp"

namespace stampede::record {

namespace asio = boost::asio;
using asio::ip::tcp;

namespace {

using Timer = asio::basic_waitable_timer<std::chrono::steady_clock, asio::wait_traits<std::chrono::steady_clock>,
                                         asio::io_context::executor_type>;
using Acceptor = asio::basic_socket_acceptor<tcp, asio::io_context::executor_type>;

// How long a closed connection keeps reading (and discarding) what the browser still sends,
// so that closing never resets a connection whose last answer the browser is still reading.
constexpr Nanos kLingerTime = 2 * kSecond;
// After a failed accept (out of file descriptors), the next attempt waits this long.
constexpr Nanos kAcceptRetry = 100 * kMilli;

std::chrono::nanoseconds chrono(Nanos n) { return std::chrono::nanoseconds(n); }

}  // namespace

struct RecordingProxy::Impl {
  Impl(asio::io_context& io, ProxyConfig config, ExchangeLog& log, const Clock& clock)
      : io(io), config(std::move(config)), log(log), clock(clock), acceptor(io.get_executor()),
        accept_retry(io.get_executor()) {}

  asio::io_context& io;
  ProxyConfig config;
  ExchangeLog& log;
  const Clock& clock;
  Acceptor acceptor;
  Timer accept_retry;
  Nanos zero = 0;
  bool stopped = false;
  std::vector<std::weak_ptr<Connection>> connections;
  // One read buffer for every connection: a read is handed to its session before the next.
  std::array<char, 64 * 1024> buffer{};

  double now_ms() const { return static_cast<double>(clock.now() - zero) / 1e6; }
  void accept();
};

// One browser connection and its connection to the app.
class RecordingProxy::Connection : public std::enable_shared_from_this<Connection> {
 public:
  explicit Connection(Impl& proxy)
      : proxy_(proxy),
        browser_(proxy.io, nullptr),
        app_(proxy.io, nullptr),
        session_(proxy.config.endpoints, proxy.log, proxy.config.limits),
        timer_(proxy.io.get_executor()) {}

  transport::Stream& browser() { return browser_; }
  bool open() const { return !closed_; }

  void start() {
    boost::system::error_code ignored;
    browser_.socket().non_blocking(true, ignored);  // read_available() must never block
    browser_.socket().set_option(tcp::no_delay(true), ignored);
    after();
  }

  // The proxy stops: what is open is recorded, and the sockets close at once.
  void stop() {
    if (closed_) return;
    session_.stop(proxy_.now_ms());
    close_now();
  }

 private:
  enum class AppState { None, Connecting, Open, Closed };

  double now_ms() const { return proxy_.now_ms(); }

  // Everything that follows an event: pass held bytes on, send what the session produced,
  // connect when needed, run the answer timer, read on, or close once finished.
  void after() {
    if (closed_ || lingering_) return;
    while (!browser_held_.empty() && !session_.browser_paused() && !session_.finished()) {
      std::string held = std::move(browser_held_);
      browser_held_.clear();
      const auto used = session_.from_browser(held, now_ms());
      if (used < held.size()) browser_held_ = held.substr(used);
      if (used == 0) break;
    }
    move_output(session_.to_app(), app_queue_);
    move_output(session_.to_browser(), browser_dead_ ? discarded_ : browser_queue_);
    discarded_.clear();
    if (session_.needs_app() && app_state_ == AppState::None && !session_.finished()) connect_app();
    flush_app();
    flush_browser();
    if (session_.finished()) {
      if (browser_writing_.empty() && browser_queue_.empty()) close();
      return;
    }
    watch_answer();
    read_browser();
    read_app();
  }

  static void move_output(std::string& from, std::string& to) {
    if (from.empty()) return;
    if (to.empty()) {
      to.swap(from);
    } else {
      to += from;
    }
    from.clear();
  }

  // ---- reading -------------------------------------------------------------------------

  // The browser is read when the app has taken what it sent before (flow control) and the
  // session takes more (not while an upgrade awaits its answer).
  void read_browser() {
    if (browser_reading_ || browser_eof_ || !browser_held_.empty() || session_.browser_paused()) return;
    if (!app_writing_.empty() || !app_queue_.empty()) return;
    browser_reading_ = true;
    browser_.async_wait_readable([self = shared_from_this()](const boost::system::error_code& ec) {
      self->browser_reading_ = false;
      self->on_browser_readable(ec);
    });
  }

  void on_browser_readable(boost::system::error_code ec) {
    if (closed_) return;
    if (lingering_) return linger_read(ec);
    std::size_t n = 0;
    if (!ec) n = browser_.read_available(asio::buffer(proxy_.buffer), ec);
    if (ec == asio::error::would_block) return after();
    if (ec || n == 0) {
      browser_eof_ = true;
      session_.browser_closed(now_ms());
      return after();
    }
    const std::string_view bytes(proxy_.buffer.data(), n);
    const auto used = session_.from_browser(bytes, now_ms());
    if (used < bytes.size()) browser_held_.assign(bytes.substr(used));
    after();
  }

  // The app is read when the browser has taken what it sent before.
  void read_app() {
    if (app_reading_ || app_state_ != AppState::Open) return;
    if (!browser_writing_.empty() || !browser_queue_.empty()) return;
    app_reading_ = true;
    app_.async_wait_readable([self = shared_from_this()](const boost::system::error_code& ec) {
      self->app_reading_ = false;
      self->on_app_readable(ec);
    });
  }

  void on_app_readable(boost::system::error_code ec) {
    if (closed_ || lingering_ || app_state_ != AppState::Open) return;
    std::size_t n = 0;
    if (!ec) n = app_.read_available(asio::buffer(proxy_.buffer), ec);
    if (ec == asio::error::would_block) return after();
    if (ec || n == 0) {
      app_state_ = AppState::Closed;
      session_.app_closed(now_ms());
      return after();
    }
    last_from_app_ = proxy_.clock.now();
    session_.from_app(std::string_view(proxy_.buffer.data(), n), now_ms());
    after();
  }

  // ---- writing -------------------------------------------------------------------------

  void flush_browser() {
    if (!browser_writing_.empty() || browser_queue_.empty()) return;
    browser_writing_.swap(browser_queue_);
    browser_.async_write(asio::buffer(browser_writing_),
                         [self = shared_from_this()](const boost::system::error_code& ec, std::size_t) {
                           if (self->closed_) return;
                           self->browser_writing_.clear();
                           if (ec) self->browser_gone();
                           self->after();
                         });
  }

  void flush_app() {
    if (app_state_ != AppState::Open || !app_writing_.empty() || app_queue_.empty()) return;
    app_writing_.swap(app_queue_);
    app_.async_write(asio::buffer(app_writing_), [self = shared_from_this()](const boost::system::error_code& ec,
                                                                            std::size_t) {
      if (self->closed_ || self->app_state_ != AppState::Open) return;
      self->app_writing_.clear();
      if (ec) {
        self->app_state_ = AppState::Closed;
        self->app_queue_.clear();
        self->session_.app_closed(self->now_ms());
      }
      self->after();
    });
  }

  // The browser cannot be written to any more: what it is sent from now on is discarded.
  void browser_gone() {
    browser_dead_ = true;
    browser_eof_ = true;
    browser_queue_.clear();
    session_.browser_closed(now_ms());
  }

  // ---- the app's connection ------------------------------------------------------------

  void connect_app() {
    app_state_ = AppState::Connecting;
    auto& resolver = transport::Resolver::of(proxy_.io);
    const auto& config = proxy_.config;
    if (auto endpoints = resolver.find(config.app_host, config.app_port)) return connect_to(std::move(endpoints));
    resolver.async_resolve(config.app_host, config.app_port,
                           [self = shared_from_this()](const boost::system::error_code& ec,
                                                       transport::Resolver::Endpoints endpoints) {
                             if (self->closed_) return;
                             if (ec) {
                               self->app_state_ = AppState::Closed;
                               self->session_.app_unreachable(
                                   "cannot resolve " + self->proxy_.config.app_host + ": " + ec.message(), self->now_ms());
                               return self->after();
                             }
                             self->connect_to(std::move(endpoints));
                           });
  }

  void connect_to(transport::Resolver::Endpoints endpoints) {
    app_.async_connect(std::move(endpoints), {}, [self = shared_from_this()](const transport::Failure* failure) {
      if (self->closed_) return;
      if (failure != nullptr) {
        self->app_state_ = AppState::Closed;
        self->session_.app_unreachable(transport::describe_failure(*failure), self->now_ms());
      } else {
        self->app_state_ = AppState::Open;
      }
      self->after();
    });
  }

  // ---- the answer timer ----------------------------------------------------------------

  // While the app owes an answer, nothing from it for answer_timeout ends the wait.
  void watch_answer() {
    const bool awaiting = session_.awaiting_app();
    if (awaiting && !awaiting_) waiting_since_ = proxy_.clock.now();
    awaiting_ = awaiting;
    if (!awaiting || timer_armed_) return;
    arm_timer(std::max(waiting_since_, last_from_app_) + proxy_.config.answer_timeout);
  }

  void arm_timer(Nanos deadline) {
    timer_armed_ = true;
    const auto generation = ++timer_generation_;
    timer_.expires_after(chrono(std::max<Nanos>(0, deadline - proxy_.clock.now())));
    timer_.async_wait([self = shared_from_this(), generation](const boost::system::error_code& ec) {
      if (ec == asio::error::operation_aborted || generation != self->timer_generation_ || self->closed_) return;
      self->timer_armed_ = false;
      if (self->lingering_) return self->close_now();
      self->on_answer_timer();
    });
  }

  void on_answer_timer() {
    if (!session_.awaiting_app()) return after();
    const Nanos deadline = std::max(waiting_since_, last_from_app_) + proxy_.config.answer_timeout;
    if (proxy_.clock.now() < deadline) {
      arm_timer(deadline);
      return;
    }
    session_.app_timed_out("within " + proto::format_duration(proxy_.config.answer_timeout), now_ms());
    after();
  }

  // ---- closing -------------------------------------------------------------------------

  // Finished and everything written: the app's side closes now, the browser's after a FIN
  // and a short linger that drains what it still sends (closing with unread bytes would
  // reset the connection, and a reset can cost the browser the answer it was reading).
  void close() {
    if (lingering_ || closed_) return;
    lingering_ = true;
    app_.close();
    boost::system::error_code ec;
    browser_.socket().shutdown(tcp::socket::shutdown_send, ec);
    if (ec || browser_eof_) return close_now();
    arm_timer(proxy_.clock.now() + kLingerTime);
    if (!browser_reading_) {
      browser_reading_ = true;
      browser_.async_wait_readable([self = shared_from_this()](const boost::system::error_code& error) {
        self->browser_reading_ = false;
        self->on_browser_readable(error);
      });
    }
  }

  void linger_read(boost::system::error_code ec) {
    std::size_t n = 0;
    while (!ec) n = browser_.read_available(asio::buffer(proxy_.buffer), ec);
    if (ec == asio::error::would_block && n == 0) {
      browser_reading_ = true;
      browser_.async_wait_readable([self = shared_from_this()](const boost::system::error_code& error) {
        self->browser_reading_ = false;
        self->on_browser_readable(error);
      });
      return;
    }
    close_now();  // the browser closed (or failed): done
  }

  void close_now() {
    if (closed_) return;
    closed_ = true;
    timer_.cancel();
    app_.close();
    browser_.close();
  }

  Impl& proxy_;
  transport::Stream browser_;
  transport::Stream app_;
  ProxySession session_;
  Timer timer_;
  AppState app_state_ = AppState::None;
  std::string browser_held_;     // browser bytes the session did not take yet
  std::string browser_writing_;  // being written to the browser
  std::string browser_queue_;    // to write to the browser next
  std::string app_writing_;
  std::string app_queue_;
  std::string discarded_;        // output for a browser that is gone
  bool browser_reading_ = false;
  bool app_reading_ = false;
  bool browser_eof_ = false;
  bool browser_dead_ = false;
  bool awaiting_ = false;
  bool timer_armed_ = false;
  std::uint64_t timer_generation_ = 0;
  Nanos waiting_since_ = 0;
  Nanos last_from_app_ = 0;
  bool lingering_ = false;
  bool closed_ = false;
};

void RecordingProxy::Impl::accept() {
  if (stopped) return;
  auto connection = std::make_shared<Connection>(*this);
  acceptor.async_accept(connection->browser().socket(), [this, connection](const boost::system::error_code& ec) {
    if (stopped || ec == asio::error::operation_aborted) return;
    if (ec) {
      // Out of file descriptors, most likely: say so once, and try again shortly rather
      // than spin on an acceptor that fails at once.
      log.warn("cannot accept a connection: " + ec.message());
      accept_retry.expires_after(chrono(kAcceptRetry));
      accept_retry.async_wait([this](const boost::system::error_code& error) {
        if (!error) accept();
      });
      return;
    }
    std::erase_if(connections, [](const std::weak_ptr<Connection>& weak) {
      const auto c = weak.lock();
      return !c || !c->open();
    });
    connections.push_back(connection);
    connection->start();
    accept();
  });
}

RecordingProxy::RecordingProxy(asio::io_context& io, ProxyConfig config, ExchangeLog& log, const Clock& clock)
    : impl_(std::make_unique<Impl>(io, std::move(config), log, clock)) {}

RecordingProxy::~RecordingProxy() { stop(); }

void RecordingProxy::start() {
  Impl& s = *impl_;
  boost::system::error_code ec;
  const auto address = asio::ip::make_address(s.config.listen_host, ec);
  if (ec) throw std::runtime_error("\"" + s.config.listen_host + "\" is not an IP address");
  const tcp::endpoint endpoint(address, s.config.listen_port);
  s.acceptor.open(endpoint.protocol(), ec);
  if (!ec) s.acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) s.acceptor.bind(endpoint, ec);
  if (!ec) s.acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    throw std::runtime_error("cannot listen on " + s.config.listen_host + ":" + std::to_string(s.config.listen_port) +
                             ": " + ec.message());
  }
  port_ = s.acceptor.local_endpoint().port();
  const bool v6 = address.is_v6();
  if (s.config.endpoints.proxy_origin.empty())
    s.config.endpoints.proxy_origin = "http://" + (v6 ? "[" + s.config.listen_host + "]" : s.config.listen_host) + ":" +
                                      std::to_string(port_);
  s.zero = started_at_ = s.clock.now();
  s.accept();
}

void RecordingProxy::stop() {
  Impl& s = *impl_;
  if (s.stopped) return;
  s.stopped = true;
  boost::system::error_code ignored;
  s.acceptor.close(ignored);
  s.accept_retry.cancel();
  for (const auto& weak : s.connections)
    if (auto connection = weak.lock()) connection->stop();
  s.connections.clear();
}

std::size_t RecordingProxy::open_connections() const {
  return static_cast<std::size_t>(std::count_if(impl_->connections.begin(), impl_->connections.end(),
                                                [](const std::weak_ptr<Connection>& weak) {
                                                  const auto c = weak.lock();
                                                  return c && c->open();
                                                }));
}

}  // namespace stampede::record
