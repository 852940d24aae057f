// One WebSocket client connection, followed top to bottom: parse the ws(s) URL -> resolve ->
// connect (TCP, TLS) -> write the upgrade request -> read the answer with the HTTP response
// parser -> check the 101 (accept value, subprotocol, permessage-deflate) -> Open: wait until
// readable, read into the worker's shared buffer, feed the frame reader, deliver messages,
// answer pings and the peer's close -> Closed. Writes go through a queue that one socket
// write drains. Everything runs on the worker's one thread: no locks.
#include "clients/websocket_session.hpp"

#include <openssl/rand.h>

#include <boost/asio/error.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <algorithm>
#include <array>
#include <chrono>
#include <optional>
#include <stdexcept>
#include <utility>

#include "clients/borrowed_read_buffer.hpp"
#include "clients/client_context.hpp"
#include "clients/url_target.hpp"
#include "proto/duration.hpp"
#include "proto/http_text.hpp"
#include "proto/permessage_deflate.hpp"
#include "proto/websocket_handshake.hpp"
#include "transport/errors.hpp"
#include "transport/resolve.hpp"
#include "transport/stream.hpp"

namespace stampede::clients {

namespace {

namespace asio = boost::asio;
namespace ws = proto::ws;
using boost::system::error_code;
using proto::http_text::iequals;
using ws::Opcode;

// A refusal's body is read for its first words; a longer one is not worth waiting for.
constexpr std::size_t kHandshakeBodyLimit = 64 * 1024;
// The per-thread compression buffers keep their capacity up to this size.
constexpr std::size_t kKeptScratchBytes = 1024 * 1024;

// ---------------------------------------------------------------------------------------
// Per-thread helpers: one worker runs on one thread, so these are per-worker, and every
// use is synchronous (fill, copy out, done), so connections can share them.

// Masking keys. RFC 6455 wants them unpredictable so that a hostile script in a browser
// cannot steer the bytes on the wire towards a proxy; a load generator runs no such script,
// and a CSPRNG call per frame would cost more than the frame. splitmix64, seeded once.
std::uint32_t next_mask_key() {
  thread_local std::uint64_t state = [] {
    std::uint64_t seed = 0;
    if (RAND_bytes(reinterpret_cast<unsigned char*>(&seed), sizeof seed) != 1) {
      seed = static_cast<std::uint64_t>(SteadyClock::monotonic_now());
    }
    return seed;
  }();
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return static_cast<std::uint32_t>((z ^ (z >> 31)) >> 32);
}

// A compressed message on its way into a frame, and an inflated message on its way to
// on_message. Two buffers: a callback may send while it holds an inflated payload.
std::string& deflate_scratch() {
  thread_local std::string buffer;
  return buffer;
}
std::string& inflate_scratch() {
  thread_local std::string buffer;
  return buffer;
}
void trim_scratch(std::string& buffer) {
  buffer.clear();
  if (buffer.capacity() > kKeptScratchBytes) std::string().swap(buffer);
}

std::string seconds_text(Nanos d) { return proto::format_duration(d); }

// The ws.disconnects reason of a close code that says the peer broke the protocol; empty for
// the others.
std::string protocol_reason(std::uint16_t code) {
  if (code == ws::close_code::kTooBig) return "too big";
  if (code == ws::close_code::kProtocolError || code == ws::close_code::kInvalidPayload) return "protocol";
  return {};
}

}  // namespace

// ---------------------------------------------------------------------------------------
// The connection. The session object owns it; pending operations hold it too, so it
// outlives the session while its socket operations finish.

class WebSocketSession::Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(ClientContext& ctx, Callbacks callbacks)
      : ctx_(ctx),
        callbacks_(std::move(callbacks)),
        connect_metric_(ctx.sink.id("ws.connect", metrics::Kind::Timing)),
        connect_errors_(ctx.sink.id("ws.connect.errors", metrics::Kind::Counter)),
        disconnects_(ctx.sink.id("ws.disconnects", metrics::Kind::Counter)),
        messages_(ctx.sink.id("ws.messages", metrics::Kind::Counter)),
        messages_sent_(ctx.sink.id("ws.messages.sent", metrics::Kind::Counter)),
        timer_(ctx.io.get_executor()),
        reader_(ws::Role::Client) {}

  State state() const { return state_; }

  void connect(std::string url, ConnectOptions options, std::function<void(ConnectResult)> done) {
    if (state_ != State::Idle) {
      throw std::logic_error("a WebSocketSession connects once; make a new session to connect again");
    }
    state_ = State::Connecting;
    done_ = std::move(done);
    handshake_ = std::make_unique<Handshake>();
    handshake_->url = std::move(url);
    handshake_->timeout = options.timeout;
    handshake_->insecure = options.insecure;
    handshake_->local_addresses = options.local_addresses;
    max_message_bytes_ = options.max_message_bytes;
    close_timeout_ = options.close_timeout;
    arm_timer(options.timeout, &Connection::on_connect_timeout);

    std::string why;
    if (!parse_url_target(handshake_->url, UrlSchemes::websocket, handshake_->target, why)) {
      return fail_connect("url", why);
    }
    if (!prepare_request(options, why)) return fail_connect("protocol", "the upgrade request cannot be sent: " + why);
    const UrlTarget& target = handshake_->target;
    auto& resolver = transport::Resolver::of(ctx_.io);
    if (auto endpoints = resolver.find(target.host, target.port)) return open_tcp(std::move(endpoints));
    resolver.async_resolve(target.host, target.port,
                           [self = shared_from_this()](const error_code& ec, transport::Resolver::Endpoints endpoints) {
                             if (self->state_ != State::Connecting) return;
                             if (ec) {
                               return self->fail_connect(
                                   transport::Failure{transport::Step::resolve, ec, self->handshake_->target.host});
                             }
                             self->open_tcp(std::move(endpoints));
                           });
  }

  bool send(Opcode opcode, std::string_view payload) {
    if (state_ != State::Open) return false;
    if (deflate_) {
      if (!deflater_) deflater_ = std::make_unique<ws::Deflater>(*deflate_, ws::Role::Client);
      std::string& compressed = deflate_scratch();
      compressed.clear();
      deflater_->compress(payload, compressed);
      queue_frame(opcode, compressed, /*rsv1=*/true);
      trim_scratch(compressed);
    } else {
      queue_frame(opcode, payload);
    }
    ctx_.sink.add(messages_sent_);
    return true;
  }

  void close(std::uint16_t code, std::string_view reason, std::string_view disconnect_reason,
             bool count_protocol_codes) {
    if (code != ws::close_code::kNoStatus && !ws::is_valid_close_code(code)) {
      throw std::invalid_argument("a WebSocket close code is 1000-1003, 1007-1014 or 3000-4999, not " +
                                  std::to_string(code));
    }
    if (state_ == State::Connecting) {
      // Cut off, like an HTTP request cut off: it stays in flight in the tally.
      return end_connect("closed", "the connection was closed before the handshake finished", /*count=*/false);
    }
    if (state_ != State::Open) return;
    state_ = State::Closing;
    local_disconnect_reason_ = std::string(disconnect_reason);
    // A close with a code that says the peer broke the protocol (a Phoenix frame that cannot
    // be decoded) is a disconnect as much as a bad WebSocket frame is: the same reason words.
    if (local_disconnect_reason_.empty() && count_protocol_codes) local_disconnect_reason_ = protocol_reason(code);
    // Counted now: the owner may destroy the session before the close handshake ends
    // (a heartbeat timeout fails the VU's iteration, whose end destroys its sockets).
    if (!local_disconnect_reason_.empty()) {
      ctx_.sink.add_error(disconnects_, local_disconnect_reason_);
      disconnect_counted_ = true;
    }
    send_close(code, reason);
    arm_timer(close_timeout_, &Connection::on_close_timeout);
  }

  // The session is being destroyed: nothing is called back from now on. An open connection
  // says "going away" on its way out; the socket closes once that is written.
  void detach() {
    detached_ = true;
    callbacks_ = {};
    done_ = nullptr;
    if (state_ == State::Connecting) {
      end_connect("closed", "the session was destroyed", /*count=*/false);  // cut off: stays in flight
      return;
    }
    if (state_ == State::Open) send_close(ws::close_code::kGoingAway, {});
    state_ = State::Closed;
    draining_ = false;
    close_once_written();
  }

 private:
  using Timer = asio::basic_waitable_timer<std::chrono::steady_clock, asio::wait_traits<std::chrono::steady_clock>,
                                           asio::io_context::executor_type>;

  // Everything only the handshake needs; freed once the connection is open.
  struct Handshake {
    std::string url;
    UrlTarget target;
    Nanos timeout = 0;
    bool insecure = false;
    ws::UpgradeRequest request;
    std::string head;  // the request's bytes
    proto::HttpResponseParser parser{proto::HttpParserLimits{64 * 1024, kHandshakeBodyLimit}};
    Nanos started = 0;  // when the TCP connect began
    bool sent = false;  // counted in the sink's tally
    bool tcp_connected = false;
    std::vector<asio::ip::address> local_addresses;  // this socket's own, if any
  };

  // ---- connecting ----------------------------------------------------------------------

  bool prepare_request(const ConnectOptions& options, std::string& why) {
    Handshake& hs = *handshake_;
    ws::UpgradeRequest& request = hs.request;
    request.target = hs.target.request_target;
    request.host = hs.target.host_header;
    request.key = ws::make_key();
    request.subprotocols = options.subprotocols;
    if (options.compression) request.extensions = ws::deflate_offer();
    bool has_user_agent = false;
    for (const auto& [name, value] : options.headers) {
      if (iequals(name, "host")) {
        request.host = value;
      } else if (iequals(name, "sec-websocket-protocol")) {
        proto::http_text::for_each_list_element(
            value, [&](std::string_view protocol) { request.subprotocols.emplace_back(protocol); });
      } else {
        has_user_agent = has_user_agent || iequals(name, "user-agent");
        request.headers.emplace_back(name, value);
      }
    }
    if (!has_user_agent) request.headers.emplace_back("User-Agent", "stampede/0.1");
    try {
      ws::write_upgrade_request(hs.head, request);
    } catch (const std::invalid_argument& e) {
      why = e.what();
      return false;
    }
    return true;
  }

  void open_tcp(transport::Resolver::Endpoints endpoints) {
    Handshake& hs = *handshake_;
    asio::ssl::context* tls = hs.target.tls ? &ctx_.tls(!hs.insecure) : nullptr;
    stream_.emplace(ctx_.io, tls);
    transport::Stream::ConnectOptions options;
    if (!hs.local_addresses.empty()) {
      options.sources = transport::SourceAddresses(hs.local_addresses, ctx_.next_local_address);
    } else if (!ctx_.local_addresses.empty()) {
      options.sources = transport::SourceAddresses(ctx_.local_addresses, ctx_.next_local_address);
    }
    options.server_name = hs.target.host;
    options.verify = !hs.insecure;
    hs.started = ctx_.clock.now();
    stream_->async_connect(std::move(endpoints), std::move(options),
                           [self = shared_from_this()](const transport::Failure* failure) {
                             if (self->state_ != State::Connecting) return;
                             if (failure != nullptr) return self->fail_connect(*failure);
                             self->handshake_->tcp_connected = true;
                             self->write_upgrade_request();
                           });
  }

  void write_upgrade_request() {
    handshake_->sent = true;
    ctx_.sink.request_sent();
    stream_->async_write(asio::buffer(handshake_->head), [self = shared_from_this()](const error_code& ec, std::size_t) {
      if (self->state_ != State::Connecting) return;
      if (ec) return self->fail_connect(transport::Failure{transport::Step::write, ec, {}});
      std::string().swap(self->handshake_->head);
      self->read_or_wait();
    });
  }

  // Returns whether to keep reading.
  bool consume_handshake(std::string_view bytes) {
    Handshake& hs = *handshake_;
    const std::size_t used = hs.parser.feed(bytes);
    if (hs.parser.failed()) {
      if (hs.parser.head_complete()) return refuse_upgrade();  // a refusal with an oversized body
      fail_connect("handshake", "the server did not answer the upgrade with HTTP: " + hs.parser.error());
      return false;
    }
    if (!hs.parser.head_complete()) return true;
    if (hs.parser.head().status != 101) {
      if (!hs.parser.done()) return true;  // read the refusal's body: it may say why
      return refuse_upgrade();
    }
    return finish_handshake(bytes.substr(used));
  }

  bool refuse_upgrade() {
    Handshake& hs = *handshake_;
    const ws::UpgradeResult result = ws::check_upgrade_response(hs.request, hs.parser.head(), hs.parser.body());
    fail_connect("handshake", result.error);
    return false;
  }

  // The 101 arrived; `rest` is what the server sent after it (frames already).
  bool finish_handshake(std::string_view rest) {
    Handshake& hs = *handshake_;
    const ws::UpgradeResult result = ws::check_upgrade_response(hs.request, hs.parser.head());
    if (!result.ok) {
      fail_connect("handshake", result.error);
      return false;
    }
    for (const auto& extension : result.extensions) {
      if (extension.name != ws::kDeflateExtension) continue;
      std::string why;
      deflate_ = ws::deflate_params_from_response(extension, why);
      if (!deflate_) {
        fail_connect("handshake", why);
        return false;
      }
    }

    ConnectResult connected;
    connected.status = 101;
    connected.headers = hs.parser.head().headers;
    connected.subprotocol = result.subprotocol;
    connected.compressed = deflate_.has_value();
    connected.duration = ctx_.clock.now() - hs.started;
    ctx_.sink.record(connect_metric_, connected.duration);
    ctx_.sink.request_finished(true);
    cancel_timer();
    handshake_.reset();
    reader_.set_limits(ws::ReaderLimits{max_message_bytes_, deflate_.has_value()});
    state_ = State::Open;

    if (callbacks_.on_open) callbacks_.on_open();
    if (detached_) return false;
    if (auto done = std::exchange(done_, nullptr)) done(std::move(connected));
    if (detached_ || state_ == State::Closed) return false;
    return rest.empty() || consume_frames(rest);
  }

  void on_connect_timeout() {
    if (state_ != State::Connecting) return;
    Handshake& hs = *handshake_;
    if (hs.parser.head_complete() && hs.parser.head().status != 101) {
      refuse_upgrade();  // the refusal's body never ended; its status says enough
      return;
    }
    const char* phase = !hs.tcp_connected                   ? "connecting"
                        : !hs.parser.started()              ? "waiting for the answer to the upgrade request"
                                                            : "reading the answer to the upgrade request";
    fail_connect("timeout", std::string("no WebSocket connection within ") + seconds_text(hs.timeout) + " (stuck " +
                                phase + ")");
  }

  void fail_connect(const transport::Failure& failure) {
    end_connect(transport::failure_reason(failure), transport::describe_failure(failure), /*count=*/true,
                transport::is_local_exhaustion(failure));
  }

  void fail_connect(std::string_view reason, const std::string& what) { end_connect(reason, what, /*count=*/true); }

  // The attempt is over without a connection. `count`: a failure (counted sent and failed,
  // with its reason) rather than a cut-off.
  void end_connect(std::string_view reason, const std::string& what, bool count, bool local_exhaustion = false) {
    if (state_ != State::Connecting) return;
    state_ = State::Closed;
    Handshake& hs = *handshake_;
    if (count) {
      if (!hs.sent) ctx_.sink.request_sent();
      ctx_.sink.request_finished(false);
      ctx_.sink.add_error(connect_errors_, reason);
    }
    ConnectResult failed;
    failed.error = what;  // the caller's message names the URL (a LiveView one runs to 700 characters)
    failed.error_reason = std::string(reason);
    failed.local_exhaustion = local_exhaustion;
    if (hs.parser.head_complete()) {
      failed.status = hs.parser.head().status;
      failed.headers = hs.parser.head().headers;
    }
    shutdown_socket();
    handshake_.reset();
    if (!done_) return;
    asio::post(ctx_.io, [self = shared_from_this(), done = std::exchange(done_, nullptr),
                         failed = std::move(failed)]() mutable {
      if (!self->detached_) done(std::move(failed));
    });
  }

  // ---- reading -------------------------------------------------------------------------

  void read_or_wait() {
    // TLS may hold decrypted bytes the socket no longer shows as readable.
    if (stream_->may_hold_input()) return on_readable({});
    wait_readable();
  }

  // A plain socket waits with a read into its inbox: Asio queues a read without the
  // epoll_ctl it makes for every wait (it tries the read at once instead, an EAGAIN), and a
  // held socket's reply (a heartbeat's is ~65 bytes) is then read by the operation itself.
  // More than the inbox holds is drained through the worker's read buffer. TLS waits.
  void wait_readable() {
    if (stream_->is_tls()) {
      stream_->async_wait_readable([self = shared_from_this()](const error_code& ec) { self->on_readable(ec); });
      return;
    }
    stream_->async_receive(asio::buffer(inbox_), [self = shared_from_this()](const error_code& ec, std::size_t n) {
      self->on_received(ec, n);
    });
  }

  void on_received(const error_code& ec, std::size_t n) {
    if (!reading()) return;
    if (transport::is_end_of_stream(ec)) return on_end_of_stream();
    if (ec) return on_transport_failure(transport::Failure{transport::Step::read, ec, {}});
    if (!consume(std::string_view(inbox_.data(), n)) || !reading()) return;
    if (n == inbox_.size()) return on_readable({});  // it filled up: more may be there
    wait_readable();
  }

  bool reading() const { return state_ == State::Connecting || state_ == State::Open || state_ == State::Closing || draining_; }

  void on_readable(const error_code& ec) {
    if (!reading()) return;
    if (ec) return on_transport_failure(transport::Failure{transport::Step::read, ec, {}});
    BorrowedReadBuffer borrowed(ctx_);
    std::string& buffer = borrowed.get();
    for (int reads = 0; reads < kReadsPerTurn; ++reads) {
      error_code read_ec;
      const std::size_t n = stream_->read_available(asio::buffer(buffer), read_ec);
      if (n > 0) {
        if (!consume(std::string_view(buffer.data(), n)) || !reading()) return;
        // A short read drained a plain socket: wait (its waiting read finds bytes that came
        // meanwhile). TLS may hold decrypted bytes the socket no longer shows, so it reads
        // until EAGAIN.
        if (n < buffer.size() && !stream_->is_tls()) return wait_readable();
        continue;
      }
      if (read_ec == asio::error::would_block) return wait_readable();
      if (transport::is_end_of_stream(read_ec)) return on_end_of_stream();
      return on_transport_failure(transport::Failure{transport::Step::read, read_ec, {}});
    }
    asio::post(ctx_.io, [self = shared_from_this()] { self->on_readable({}); });
  }

  // Returns whether to keep reading.
  bool consume(std::string_view bytes) {
    switch (state_) {
      case State::Connecting: return consume_handshake(bytes);
      case State::Open:
      case State::Closing: return consume_frames(bytes);
      default: return draining_;  // after the close handshake: bytes are dropped until EOF
    }
  }

  bool consume_frames(std::string_view bytes) {
    reader_.feed(bytes);
    for (;;) {
      ws::WsEvent event = reader_.next();
      switch (event.kind) {
        case ws::WsEvent::Kind::NeedMore:
          if (reader_.buffered() == 0) reader_.shrink();
          return true;
        case ws::WsEvent::Kind::Message:
          if (!deliver(event)) return false;
          break;
        case ws::WsEvent::Kind::Ping:
          if (state_ == State::Open) queue_frame(Opcode::Pong, event.payload);
          break;
        case ws::WsEvent::Kind::Pong:
          break;
        case ws::WsEvent::Kind::Close:
          on_peer_close(event.close_code, event.reason);
          return draining_;
        case ws::WsEvent::Kind::Error:
          fail_protocol(event.error_code, event.error);
          return false;
      }
      if (detached_ || (state_ != State::Open && state_ != State::Closing)) return false;
    }
  }

  bool deliver(const ws::WsEvent& event) {
    std::string_view payload = event.payload;
    std::string* inflated = nullptr;
    if (event.compressed) {
      if (!inflater_) inflater_ = std::make_unique<ws::Inflater>(*deflate_, ws::Role::Client, max_message_bytes_);
      inflated = &inflate_scratch();
      inflated->clear();
      std::string why;
      switch (inflater_->decompress(payload, *inflated, why)) {
        case ws::Inflater::Result::Ok:
          break;
        case ws::Inflater::Result::TooBig:
          trim_scratch(*inflated);
          fail_protocol(ws::close_code::kTooBig, why);
          return false;
        case ws::Inflater::Result::Corrupt:
          trim_scratch(*inflated);
          fail_protocol(ws::close_code::kInvalidPayload, why);
          return false;
      }
      payload = *inflated;
      if (event.opcode == Opcode::Text && !ws::is_valid_utf8(payload)) {
        trim_scratch(*inflated);
        fail_protocol(ws::close_code::kInvalidPayload, "a text message is not valid UTF-8");
        return false;
      }
    }
    ctx_.sink.add(messages_);
    if (callbacks_.on_message_kept) {
      // The worker's inflate buffer is given away too: the next message starts a new one.
      callbacks_.on_message_kept(event.opcode, inflated != nullptr ? std::move(*inflated) : reader_.take_payload(event));
    } else if (callbacks_.on_message) {
      callbacks_.on_message(event.opcode, payload);
    }
    if (inflated != nullptr) trim_scratch(*inflated);
    return !detached_;
  }

  void on_end_of_stream() {
    if (draining_) return shutdown_socket();  // the server closed first, as RFC 6455 7.1.1 wants
    if (state_ == State::Connecting) {
      Handshake& hs = *handshake_;
      if (hs.parser.head_complete()) {
        hs.parser.finish_eof();
        refuse_upgrade();
        return;
      }
      return fail_connect("closed", hs.parser.started()
                                        ? "the server closed the connection in the middle of its answer to the upgrade"
                                        : "the server closed the connection without answering the upgrade");
    }
    end_open(CloseInfo{ws::close_code::kAbnormal, "closed", false,
                       "the server closed the connection without a close frame"},
             "closed");
    shutdown_socket();
  }

  void on_transport_failure(const transport::Failure& failure) {
    if (draining_ || state_ == State::Closed) return shutdown_socket();
    if (state_ == State::Connecting) return fail_connect(failure);
    const std::string reason(transport::failure_reason(failure));
    end_open(CloseInfo{ws::close_code::kAbnormal, reason, false, transport::describe_failure(failure)}, reason);
    shutdown_socket();
  }

  // ---- closing -------------------------------------------------------------------------

  void on_peer_close(std::uint16_t code, std::string_view reason) {
    const bool we_started = close_sent_;
    if (!close_sent_) send_close(code, {});  // echo the code, as RFC 6455 5.5.1 suggests
    CloseInfo info{code, std::string(reason), true, {}};
    std::string metric_reason;
    if (!we_started) {
      metric_reason = "remote " + std::to_string(code);
    } else {
      metric_reason = local_disconnect_reason_;
    }
    end_open(std::move(info), metric_reason);
    if (detached_) return;
    // The server closes the TCP connection first (its side keeps the TIME_WAIT); wait for
    // that, but not for ever.
    draining_ = true;
    arm_timer(close_timeout_, &Connection::shutdown_socket);
  }

  void on_close_timeout() {
    if (state_ != State::Closing) return;
    end_open(CloseInfo{ws::close_code::kAbnormal, "timeout", false,
                       "the server did not answer the close frame within " + seconds_text(close_timeout_)},
             "timeout");
    shutdown_socket();
  }

  // The peer broke the protocol: tell it why with a close frame, then drop the connection.
  void fail_protocol(std::uint16_t code, const std::string& why) {
    if (!close_sent_) {
      send_close(code, code == ws::close_code::kTooBig ? "message too big"
                       : code == ws::close_code::kInvalidPayload ? "invalid payload"
                                                                 : "protocol error");
    }
    const std::string reason = code == ws::close_code::kTooBig ? "too big" : "protocol";
    end_open(CloseInfo{code, reason, false, why}, reason);
    if (!detached_) close_once_written();  // (detach() has seen to it otherwise)
  }

  // Drops the connection as soon as the queued frames (a close frame) are written, or
  // after close_timeout if the peer does not take them.
  void close_once_written() {
    if (!write_in_flight_ && !flush_posted_) return shutdown_socket();
    close_after_write_ = true;
    arm_timer(close_timeout_, &Connection::shutdown_socket);
  }

  // The open (or closing) connection is over for the user: count it and say so, once.
  void end_open(CloseInfo info, const std::string& event_reason) {
    if (state_ != State::Open && state_ != State::Closing) return;
    state_ = State::Closed;
    const std::string& counted = local_disconnect_reason_.empty() ? event_reason : local_disconnect_reason_;
    if (!counted.empty() && !disconnect_counted_) ctx_.sink.add_error(disconnects_, counted);
    if (!detached_ && callbacks_.on_close) {
      auto on_close = std::move(callbacks_.on_close);  // once; and the call may destroy the session
      on_close(info);
    }
  }

  void send_close(std::uint16_t code, std::string_view reason) {
    close_sent_ = true;
    queue_frame(Opcode::Close, ws::close_payload(code, reason));
  }

  // Closes the socket and gives back everything the connection held.
  void shutdown_socket() {
    draining_ = false;
    cancel_timer();
    if (stream_) stream_->close();
    if (!write_in_flight_) {
      give_back(writing_);
      give_back(pending_);
    }
    deflater_.reset();
    inflater_.reset();
    // This may run inside on_message (a session destroyed there), whose payload can live in
    // the reader: release the reader's buffer from the loop, once that call is over.
    asio::post(ctx_.io, [self = shared_from_this()] { self->reader_.shrink(); });
  }

  // ---- writing -------------------------------------------------------------------------

  void queue_frame(Opcode opcode, std::string_view payload, bool rsv1 = false) {
    if (pending_.empty() && !owns_buffer(pending_)) pending_ = ctx_.take_text();
    ws::write_frame(pending_, opcode, payload, true, next_mask_key(), rsv1);
    schedule_flush();
  }

  // The write starts from the loop, so that the frames of one turn go out together: with
  // the worker's other plain sockets' in one system call where it batches them
  // (transport/send_batch.hpp: the frames are gathered when the batch goes), otherwise from
  // a handler posted for it.
  void schedule_flush() {
    if (write_in_flight_ || flush_posted_) return;
    if (transport::SendBatch* batch = batched_sends()) return write_batched(*batch);
    flush_posted_ = true;
    asio::post(ctx_.io, [self = shared_from_this()] {
      self->flush_posted_ = false;
      self->flush();
    });
  }

  transport::SendBatch* batched_sends() {
    return stream_ && stream_->is_open() && !stream_->is_tls() ? ctx_.send_batch() : nullptr;
  }

  void write_batched(transport::SendBatch& batch) {
    write_in_flight_ = true;
    // `this` outlives the gather: the handler, which the batch runs after it, owns it.
    stream_->async_write_gathered(
        batch,
        [this](std::array<iovec, transport::SendBatch::kMaxBuffers>& buffers) -> std::size_t {
          writing_.swap(pending_);
          buffers[0] = iovec{writing_.data(), writing_.size()};
          return writing_.empty() ? 0 : 1;
        },
        [self = shared_from_this()](const error_code& ec, std::size_t, Nanos) { self->on_written(ec); });
  }

  void flush() {
    if (write_in_flight_ || pending_.empty() || !stream_ || !stream_->is_open()) return;
    writing_.swap(pending_);
    write_in_flight_ = true;
    stream_->async_write(asio::buffer(writing_),
                         [self = shared_from_this()](const error_code& ec, std::size_t) { self->on_written(ec); });
  }

  // The output buffers come from the worker's spare strings and go back to them when the
  // connection is idle: a held socket owns none, and its heartbeat allocates none.
  static bool owns_buffer(const std::string& buffer) { return buffer.capacity() > std::string().capacity(); }

  void give_back(std::string& buffer) {
    if (owns_buffer(buffer)) ctx_.give_back_text(std::exchange(buffer, std::string()));
  }

  void on_written(const error_code& ec) {
    write_in_flight_ = false;
    writing_.clear();
    if (ec) {
      give_back(pending_);
      return on_transport_failure(transport::Failure{transport::Step::write, ec, {}});
    }
    if (!pending_.empty()) {
      if (transport::SendBatch* batch = batched_sends()) return write_batched(*batch);
      return flush();
    }
    // Idle: give the buffers back.
    give_back(writing_);
    give_back(pending_);
    if (close_after_write_) shutdown_socket();
  }

  // ---- timer ---------------------------------------------------------------------------

  // One timer, re-armed per phase (connecting, closing, lingering); the generation tells a
  // stale expiry from the current one.
  void arm_timer(Nanos after, void (Connection::*on_expiry)()) {
    const std::uint64_t generation = ++timer_generation_;
    timer_.expires_after(std::chrono::nanoseconds(std::max<Nanos>(after, 0)));
    timer_.async_wait([self = shared_from_this(), generation, on_expiry](const error_code& ec) {
      if (ec || self->timer_generation_ != generation) return;
      ((*self).*on_expiry)();
    });
  }

  void cancel_timer() {
    ++timer_generation_;
    timer_.cancel();
  }

  ClientContext& ctx_;
  Callbacks callbacks_;
  std::function<void(ConnectResult)> done_;
  const metrics::MetricId connect_metric_;
  const metrics::MetricId connect_errors_;
  const metrics::MetricId disconnects_;
  const metrics::MetricId messages_;
  const metrics::MetricId messages_sent_;

  State state_ = State::Idle;
  bool detached_ = false;
  std::unique_ptr<Handshake> handshake_;
  std::optional<transport::Stream> stream_;
  Timer timer_;
  std::uint64_t timer_generation_ = 0;
  std::size_t max_message_bytes_ = 0;
  Nanos close_timeout_ = 0;

  ws::WebSocketReader reader_;
  std::optional<ws::DeflateParams> deflate_;  // negotiated permessage-deflate
  std::unique_ptr<ws::Deflater> deflater_;    // made on the first message sent
  std::unique_ptr<ws::Inflater> inflater_;    // made on the first compressed message received

  // What a plain socket's waiting read lands in (wait_readable): small, because a held
  // socket always has one, and its usual input (a heartbeat's reply) is smaller still.
  std::array<char, 96> inbox_;
  std::string pending_;  // frames queued, not yet handed to the socket
  std::string writing_;  // frames of the write in flight
  bool write_in_flight_ = false;
  bool flush_posted_ = false;
  bool close_after_write_ = false;  // drop the connection once the queue is written

  bool close_sent_ = false;
  bool draining_ = false;                // close handshake done: reading until the server's FIN
  std::string local_disconnect_reason_;  // close()'s disconnect_reason
  bool disconnect_counted_ = false;       // close() already counted it
};

// ---------------------------------------------------------------------------------------

WebSocketSession::WebSocketSession(ClientContext& ctx, Callbacks callbacks)
    : connection_(std::make_shared<Connection>(ctx, std::move(callbacks))) {}

WebSocketSession::~WebSocketSession() { connection_->detach(); }

void WebSocketSession::connect(std::string url, ConnectOptions options, std::function<void(ConnectResult)> done) {
  connection_->connect(std::move(url), std::move(options), std::move(done));
}

bool WebSocketSession::send_text(std::string_view text) { return connection_->send(Opcode::Text, text); }

bool WebSocketSession::send_binary(std::string_view bytes) { return connection_->send(Opcode::Binary, bytes); }

void WebSocketSession::close(std::uint16_t code, std::string_view reason, std::string_view disconnect_reason) {
  connection_->close(code, reason, disconnect_reason, /*count_protocol_codes=*/true);
}

void WebSocketSession::close_by_scenario(std::uint16_t code, std::string_view reason) {
  connection_->close(code, reason, {}, /*count_protocol_codes=*/false);
}

bool WebSocketSession::is_open() const { return connection_->state() == State::Open; }

WebSocketSession::State WebSocketSession::state() const { return connection_->state(); }

}  // namespace stampede::clients
