#include "target/ws_connection.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <chrono>

#include "target/worker.hpp"

namespace stampede::target {
namespace {

namespace ws = proto::ws;

// websock_adapter >= 0.6 limits frames to 10,000,000 bytes (§1.7).
constexpr std::size_t kMaxMessageBytes = 10'000'000;
// How long a close frame waits for the peer's answer before the socket is simply closed.
constexpr Nanos kCloseWait = 2 * kSecond;
// A client that stops reading while the target keeps producing (broadcasts, subscription
// pushes) is cut off past this much unsent output, rather than grow without bound.
constexpr std::size_t kMaxUnsentBytes = 16 * 1024 * 1024;

Timer::time_point at_monotonic(Nanos t) {
  return Timer::time_point(std::chrono::duration_cast<Timer::duration>(std::chrono::nanoseconds(t)));
}

}  // namespace

WsConnection::WsConnection(Worker& worker, Socket socket, WsPlan plan)
    : worker_(worker),
      socket_(std::move(socket)),
      timer_(socket_.get_executor()),
      reader_(ws::Role::Server, ws::ReaderLimits{kMaxMessageBytes, plan.deflate.has_value()}),
      early_bytes_(std::move(plan.early_bytes)) {
  if (plan.deflate) {
    deflater_ = std::make_unique<ws::Deflater>(*plan.deflate, ws::Role::Server);
    inflater_ = std::make_unique<ws::Inflater>(*plan.deflate, ws::Role::Server, kMaxMessageBytes);
  }
  if (plan.application == WsApplication::Channels) {
    session_.emplace(plan.serializer, std::move(plan.user_id), worker_.channels(), static_cast<ChannelsSink&>(*this));
  } else if (plan.application == WsApplication::LiveView) {
    auto& state = worker_.route_state();
    const LiveViewServices services{worker_.channels(), state.random, *state.liveview_posts};
    liveview_ = std::make_unique<LiveViewSession>(std::move(plan.liveview), plan.serializer, services,
                                                  static_cast<ChannelsSink&>(*this));
  }
}

WsConnection::~WsConnection() {
  worker_.return_output_buffer(out_);
  worker_.return_output_buffer(next_);
}

void WsConnection::start() {
  auto& stats = worker_.channels().stats();
  stats.sockets_opened.add();
  if (session_) stats.channel_sockets_opened.add();
  if (liveview_) stats.liveview_sockets_opened.add();
  last_heard_ = SteadyClock::monotonic_now();
  if (!early_bytes_.empty()) {
    in_read_ = true;
    consume(early_bytes_, last_heard_);
    in_read_ = false;
    std::string().swap(early_bytes_);
    if (reader_.buffered() == 0) reader_.shrink();
  }
  read_available();
}

void WsConnection::read_available() {
  auto& buffer = worker_.read_buffer();
  in_read_ = true;
  while (state_ != State::Closed) {
    boost::system::error_code ec;
    const auto n = socket_.read_some(asio::buffer(buffer), ec);
    if (would_block(ec)) {
      wait_readable();
      break;
    }
    if (ec) {
      finish();  // EOF without a close frame, or a reset: nobody left to answer
      break;
    }
    last_heard_ = SteadyClock::monotonic_now();
    consume(std::string_view(buffer.data(), n), last_heard_);
    // A short read drained the socket: wait (the waiting read finds bytes that came
    // meanwhile).
    if (n < buffer.size()) {
      if (state_ != State::Closed) wait_readable();
      break;
    }
  }
  end_read();
}

void WsConnection::end_read() {
  in_read_ = false;
  // Nothing half-read: let go of the reader's buffers, so an idle socket holds none.
  if (reader_.buffered() == 0) reader_.shrink();
  flush();
  arm_timer();
}

// Waits with a read into the socket's inbox: Asio queues a read without the epoll_ctl it
// makes for every wait (it tries the read at once instead, an EAGAIN), and a held socket's
// heartbeat (~45 bytes) is then read by the operation itself. More than the inbox holds is
// drained through the worker's read buffer.
void WsConnection::wait_readable() {
  socket_.async_read_some(asio::buffer(inbox_), [self = shared_from_this()](const boost::system::error_code& ec,
                                                                            std::size_t n) {
    self->on_received(ec, n);
  });
}

void WsConnection::on_received(const boost::system::error_code& ec, std::size_t n) {
  if (state_ == State::Closed) return;
  if (ec) {
    finish();  // EOF without a close frame, or a reset: nobody left to answer
    return;
  }
  last_heard_ = SteadyClock::monotonic_now();
  in_read_ = true;
  consume(std::string_view(inbox_.data(), n), last_heard_);
  if (n == inbox_.size()) return read_available();  // it filled up: more may be there
  if (state_ != State::Closed) wait_readable();
  end_read();
}

void WsConnection::consume(std::string_view bytes, Nanos now) {
  reader_.feed(bytes);
  while (state_ != State::Closed) {
    const auto event = reader_.next();
    switch (event.kind) {
      case ws::WsEvent::Kind::NeedMore:
        return;
      case ws::WsEvent::Kind::Message:
        on_message(event, now);
        break;
      case ws::WsEvent::Kind::Ping:
        if (state_ == State::Open) queue_frame(ws::Opcode::Pong, event.payload);
        break;
      case ws::WsEvent::Kind::Pong:
        break;
      case ws::WsEvent::Kind::Close:
        on_peer_close(event.close_code);
        break;
      case ws::WsEvent::Kind::Error:
        begin_close(event.error_code, event.error);
        break;
    }
  }
}

void WsConnection::on_message(const ws::WsEvent& event, Nanos now) {
  if (state_ != State::Open) return;  // after our close frame, data is read and dropped
  std::string_view payload = event.payload;
  if (event.compressed) {
    auto& plain = worker_.inflate_buffer();
    plain.clear();
    std::string error;
    const auto result = inflater_->decompress(payload, plain, error);
    if (result != ws::Inflater::Result::Ok) {
      begin_close(result == ws::Inflater::Result::TooBig ? ws::close_code::kTooBig : ws::close_code::kInvalidPayload,
                  error);
      return;
    }
    if (event.opcode == ws::Opcode::Text && !ws::is_valid_utf8(plain)) {
      begin_close(ws::close_code::kInvalidPayload, "a text message is not valid UTF-8");
      return;
    }
    payload = plain;
  }
  if (session_) {
    session_->handle_frame(payload, event.opcode == ws::Opcode::Binary, now);
  } else if (liveview_) {
    liveview_->handle_frame(payload, event.opcode == ws::Opcode::Binary, now);
  } else {
    worker_.channels().stats().echo_messages.add();
    queue_frame(event.opcode, payload);
  }
}

void WsConnection::on_peer_close(std::uint16_t code) {
  peer_sent_close_ = true;
  if (state_ == State::Open) {
    // Answer with the same code (RFC 6455 5.5.1), then close the TCP connection: the server
    // closes first (7.1.1).
    queue_frame(ws::Opcode::Close, ws::close_payload(code, ""));
    state_ = State::Closing;
  }
  close_when_flushed_ = true;
  finish_if_closing_done();
}

void WsConnection::send(std::string_view data, bool binary) {
  if (state_ != State::Open) return;
  queue_frame(binary ? ws::Opcode::Binary : ws::Opcode::Text, data);
}

void WsConnection::close(std::uint16_t code, std::string_view reason) { begin_close(code, reason); }

void WsConnection::queue_frame(ws::Opcode opcode, std::string_view payload) {
  auto& buffer = output();
  const bool data_frame = opcode == ws::Opcode::Text || opcode == ws::Opcode::Binary;
  if (deflater_ && data_frame) {
    auto& compressed = worker_.deflate_buffer();
    compressed.clear();
    deflater_->compress(payload, compressed);
    ws::write_frame(buffer, opcode, compressed, true, std::nullopt, true);
  } else {
    ws::write_frame(buffer, opcode, payload);
  }
  if (out_.size() + next_.size() > kMaxUnsentBytes) {
    finish();
    return;
  }
  if (!in_read_) flush();
}

std::string& WsConnection::output() {
  auto& buffer = writing_ ? next_ : out_;
  if (buffer.capacity() == 0) buffer = worker_.take_output_buffer();
  return buffer;
}

void WsConnection::flush() {
  if (writing_ || out_.empty() || state_ == State::Closed) return;
  boost::system::error_code ec;
  const auto written = socket_.write_some(asio::buffer(out_), ec);
  if (ec && !would_block(ec)) {
    finish();
    return;
  }
  if (!ec && written == out_.size()) {
    wrote_all();
    return;
  }
  writing_ = true;
  const auto rest = asio::buffer(out_) + (ec ? 0 : written);
  asio::async_write(socket_, rest, [self = shared_from_this()](const boost::system::error_code& write_ec, std::size_t) {
    self->writing_ = false;
    if (write_ec || self->state_ == State::Closed) {
      self->finish();
      return;
    }
    self->wrote_all();
  });
}

void WsConnection::wrote_all() {
  out_.clear();
  std::swap(out_, next_);
  if (!out_.empty()) {
    flush();
    return;
  }
  worker_.return_output_buffer(out_);
  worker_.return_output_buffer(next_);
  finish_if_closing_done();
}

void WsConnection::begin_close(std::uint16_t code, std::string_view reason) {
  if (state_ != State::Open) return;
  queue_frame(ws::Opcode::Close, ws::close_payload(code, reason));
  if (state_ == State::Closed) return;
  state_ = State::Closing;
  closing_deadline_ = SteadyClock::monotonic_now() + kCloseWait;
  if (!in_read_) arm_timer();
}

void WsConnection::finish_if_closing_done() {
  if (state_ == State::Closing && close_when_flushed_ && out_.empty() && !writing_) finish();
}

void WsConnection::finish() {
  if (state_ == State::Closed) return;
  state_ = State::Closed;
  boost::system::error_code ec;
  socket_.shutdown(Socket::shutdown_both, ec);
  socket_.close(ec);
  timer_.cancel();
  asio::post(socket_.get_executor(), [self = shared_from_this()] {
    if (self->session_) self->session_->handle_disconnect();
    if (self->liveview_) self->liveview_->handle_disconnect();
    auto& stats = self->worker_.channels().stats();
    stats.sockets_closed.add();
    if (self->session_) stats.channel_sockets_closed.add();
    if (self->liveview_) stats.liveview_sockets_closed.add();
    self->worker_.return_output_buffer(self->out_);
    self->worker_.return_output_buffer(self->next_);
  });
}

void WsConnection::arm_timer() {
  if (state_ == State::Closed) return;
  Nanos deadline = closing_deadline_;
  if (state_ == State::Open) {
    deadline = last_heard_ + worker_.shared().ws_idle_timeout;
    if (session_) {
      if (const auto due = session_->next_due()) deadline = std::min(deadline, *due);
    }
    if (liveview_) {
      if (const auto due = liveview_->next_due()) deadline = std::min(deadline, *due);
    }
  }
  // A wake-up at or before the deadline is already set: it will look again then.
  if (timer_at_ != 0 && timer_at_ <= deadline) return;
  timer_at_ = deadline;
  timer_.expires_at(at_monotonic(deadline));
  timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
    if (ec == asio::error::operation_aborted) return;  // re-armed for an earlier time, or closed
    self->timer_at_ = 0;
    self->on_timer();
  });
}

void WsConnection::on_timer() {
  if (state_ == State::Closed) return;
  const Nanos now = SteadyClock::monotonic_now();
  if (state_ == State::Closing) {
    if (now >= closing_deadline_) {
      finish();
      return;
    }
  } else if (now - last_heard_ >= worker_.shared().ws_idle_timeout) {
    worker_.channels().stats().idle_timeouts.add();
    begin_close(ws::close_code::kNormal, "");  // what Cowboy sends on its idle timeout
  } else if (session_) {
    session_->handle_time(now);
  } else if (liveview_) {
    liveview_->handle_time(now);
  }
  arm_timer();
}

}  // namespace stampede::target
