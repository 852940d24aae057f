#include "target/connection.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <exception>

#include "proto/http2_server_codec.hpp"
#include "target/channels_hub.hpp"
#include "target/h2_connection.hpp"
#include "target/longpoll_request.hpp"
#include "target/response_writer.hpp"
#include "target/route_table.hpp"
#include "target/target_metrics.hpp"
#include "target/truth.hpp"
#include "target/truth_collector.hpp"
#include "target/worker.hpp"
#include "target/ws_connection.hpp"
#include "transport/kernel_receive_time.hpp"

namespace stampede::target {
namespace {

// A client that pipelines without reading answers could make us queue without bound:
// past this many owed responses we stop reading until they drain.
constexpr std::size_t kMaxOwedResponses = 1024;
constexpr std::size_t kResumeOwedResponses = 256;
constexpr auto kLingerTime = std::chrono::seconds(2);
// An output buffer grown by a large body is released after the write instead of kept.
constexpr std::size_t kKeptOutputCapacity = 256 * 1024;

}  // namespace

Connection::Connection(Worker& worker, Socket socket)
    : worker_(worker),
      socket_(std::move(socket)),
      linger_timer_(socket_.get_executor()) {}

Connection::~Connection() { worker_.server_stats().connections_ended.add(); }

void Connection::start() {
  boost::system::error_code ec;
  socket_.set_option(asio::ip::tcp::no_delay(true), ec);
  if (!ec) socket_.non_blocking(true, ec);
  if (ec) {
    close();
    return;
  }
  transport::enable_receive_timestamps(socket_.native_handle());
  read_available();
}

void Connection::read_available() {
  auto& buffer = worker_.read_buffer();
  while (reading_ && !paused_ && !closed_) {
    boost::system::error_code ec;
    const auto n = transport::read_available_stamped(socket_.native_handle(), asio::buffer(buffer), ec, received_at_);
    if (would_block(ec)) {
      wait_readable();
      break;
    }
    if (ec == asio::error::eof) {
      peer_closed_sending();
      break;
    }
    if (ec) {
      close();  // reset by the peer, or worse: nobody to answer
      return;
    }
    // Every read ends the worker's holds that are due (on any connection), so while
    // requests keep coming the hold timer rarely has to wake the loop (HoldQueue).
    worker_.requests_read();
    consume(std::string_view(buffer.data(), n));
    // A short read drained the socket: wait for the next edge rather than paying for a
    // read that would only say EAGAIN.
    if (n < buffer.size() && reading_ && !paused_) {
      wait_readable();
      break;
    }
  }
  flush();
}

void Connection::wait_readable() {
  socket_.async_wait(Socket::wait_read, [self = shared_from_this()](const boost::system::error_code& ec) {
    if (self->closed_) return;
    if (ec) {
      self->close();
      return;
    }
    self->read_available();
  });
}

bool Connection::sort_out_first_bytes(std::string_view& bytes) {
  if (!first_bytes_.empty()) {
    first_bytes_.append(bytes);
    bytes = first_bytes_;  // lives until the connection ends: the parser copies what it keeps
  }
  const std::string_view preface = proto::kHttp2Preface;
  if (bytes.size() < preface.size() && preface.substr(0, bytes.size()) == bytes) {
    if (first_bytes_.empty()) first_bytes_.assign(bytes);
    return false;  // "PRI * HT...": wait for the rest
  }
  first_read_ = false;
  if (bytes.substr(0, preface.size()) == preface) {
    hand_over_to_http2(bytes);
    return false;
  }
  return true;
}

void Connection::hand_over_to_http2(std::string_view bytes) {
  // As for a WebSocket: the socket lives on in the HTTP/2 connection, this one is over (and
  // has no operation pending on it: it is reading, in this very handler).
  closed_ = true;
  reading_ = false;
  linger_timer_.cancel();
  auto http2 = std::make_shared<H2Connection>(worker_, nullptr);
  // Posted: the HTTP/2 connection reads into the same scratch buffer `bytes` may be in.
  asio::post(worker_.io(), [http2, socket = std::move(socket_), early = std::string(bytes),
                            received_at = received_at_]() mutable {
    http2->start(std::move(socket), std::move(early), received_at);
  });
}

void Connection::consume(std::string_view bytes) {
  if (first_read_ && !sort_out_first_bytes(bytes)) return;
  while (!bytes.empty() && reading_) {
    bytes.remove_prefix(parser_.feed(bytes));
    if (parser_.done()) {
      dispatch(received_at_);
      parser_.reset();
      // What follows an accepted upgrade is the client's first WebSocket bytes.
      if (upgrade_) {
        upgrade_->early_bytes.assign(bytes.data(), bytes.size());
        return;
      }
    } else if (parser_.failed()) {
      answer_bad_request();
      return;
    } else if (parser_.head_complete() && !continue_sent_ && parser_.request().expects_continue()) {
      auto& interim = queue_.push_back();
      interim.interim = true;
      interim.ready = true;
      continue_sent_ = true;
    }
  }
  if (queue_.size() >= kMaxOwedResponses) paused_ = true;
}

void Connection::dispatch(Nanos received_at) {
  const auto& request = parser_.request();
  auto& slot = queue_.push_back();
  slot.received_at = received_at;
  slot.version_minor = request.version_minor;
  slot.head_request = request.method == "HEAD";
  slot.keep_alive = request.keep_alive();
  continue_sent_ = false;
  if (!slot.keep_alive) reading_ = false;  // whatever follows a "close" request is not read

  std::string_view path;
  std::string_view query;
  split_target(request.target, path, query);
  if (path.substr(0, 3) == "/__") {
    answer_control(slot, path, request.method);
    return;
  }
  if (path == "/metrics" && (request.method == "GET" || request.method == "HEAD") && worker_.shared().metrics) {
    answer_metrics(slot);
    return;
  }
  worker_.server_stats().http_requests.add();
  if (worker_.shared().longpoll != nullptr && is_longpoll_path(path, worker_.shared().liveview_dialect)) {
    answer_longpoll(slot, path, query);
    return;
  }
  if (wants_websocket(request, path)) {
    answer_websocket(slot, path, query);
    return;
  }
  if (path == kEventStreamPath && (request.method == "GET" || request.method == "POST")) {
    answer_event_stream(slot, query);
    return;
  }

  const auto match = worker_.shared().routes->find(request.method, path);
  slot.measured = match.route == nullptr || match.route->measured;
  // Drawn for every measured request, even one that overrides it, so a seeded run draws
  // the same sequence whatever routes it hits (and whatever unmeasured ones it hits too).
  const Nanos drawn = slot.measured ? worker_.sampler().next() : 0;
  try {
    if (match.route) {
      match.route->handler(RouteRequest{request, path, query, worker_.route_state()}, slot.response);
    } else if (match.path_known) {
      slot.response.set_static(405, kJson, R"({"error":"method not allowed"})");
    } else {
      slot.response.set_static(404, kJson, R"({"error":"not found"})");
    }
  } catch (const std::exception&) {
    slot.response.clear();
    slot.response.set_static(500, kJson, R"({"error":"internal error"})");
  }
  Nanos held = slot.measured ? slot.response.delay.value_or(drawn) : 0;
  if (slot.measured) {
    slot.in_flight = true;
    held += worker_.in_flight().enter();  // --capacity: longer past N requests in flight
  }
  hold(slot, held);
}

void Connection::answer_control(PendingResponse& slot, std::string_view path, std::string_view method) {
  // Control endpoints are neither held nor counted: asking for the truth must not change it.
  slot.measured = false;
  if (path == "/__truth" && (method == "GET" || method == "HEAD")) {
    worker_.shared().truth->collect(worker_.io(), [self = shared_from_this(), &slot](const Truth& truth) {
      if (self->closed_) return;
      slot.response.set_owned(200, kJson, truth_to_json(truth));
      slot.ready = true;
      self->flush();
    });
    return;
  }
  if (path == "/__reset" && (method == "POST" || method == "GET")) {
    worker_.shared().truth->reset(worker_.io(), [self = shared_from_this(), &slot] {
      if (self->closed_) return;
      slot.response.set_static(200, kJson, R"({"reset":true})");
      slot.ready = true;
      self->flush();
    });
    return;
  }
  if (path == "/__channels" && (method == "GET" || method == "HEAD")) {
    slot.response.set_owned(200, kJson, worker_.shared().channels->stats_json());
    slot.ready = true;
    return;
  }
  slot.response.set_static(404, kJson,
                           R"({"error":"unknown control endpoint; try GET /__truth, POST /__reset or GET /__channels"})");
  slot.ready = true;
}

void Connection::answer_metrics(PendingResponse& slot) {
  // Like the control endpoints: neither held nor counted, so watching does not change it.
  slot.measured = false;
  TargetMetrics& metrics = *worker_.shared().metrics;
  slot.response.set_owned(200, kPrometheusTextType, metrics.render());
  slot.ready = true;
  metrics.start_lag_probes();
}

void Connection::answer_websocket(PendingResponse& slot, std::string_view path, std::string_view query) {
  // WebSocket traffic is not part of the HTTP truth, and neither is the handshake.
  slot.measured = false;
  slot.ready = true;
  auto answer =
      answer_upgrade(parser_.request(), path, query, worker_.shared().ws_compress, worker_.shared().liveview_dialect);
  if (answer.status != 101) {
    slot.response.set_owned(answer.status, answer.status == 404 ? kJson : kText, std::move(answer.body));
    slot.response.headers = std::move(answer.headers);
    return;
  }
  slot.upgrade = true;
  slot.response.body = std::move(answer.head);
  upgrade_ = std::make_unique<WsPlan>(std::move(answer.plan));
  reading_ = false;  // the rest of the input is WebSocket frames
}

void Connection::hand_over_to_websocket() {
  // The socket lives on in the WebSocket; this HTTP connection is over (and has no
  // operation pending on it: it stopped reading at the upgrade, and the 101 is written).
  closed_ = true;
  linger_timer_.cancel();
  auto websocket = std::make_shared<WsConnection>(worker_, std::move(socket_), std::move(*upgrade_));
  upgrade_.reset();
  // Posted: the WebSocket reads into the same scratch buffer this read may still be using.
  asio::post(worker_.io(), [websocket] { websocket->start(); });
}

void Connection::answer_event_stream(PendingResponse& slot, std::string_view query) {
  // A stream is not a calibrated request: neither held nor counted in the truth.
  slot.measured = false;
  slot.ready = true;
  auto answer = plan_event_stream(parser_.request(), query);
  if (!answer.plan) {
    slot.response.set_owned(400, kText, std::move(answer.error));
    return;
  }
  // Written like an upgrade's 101: the head goes out as it is, then the socket is handed over.
  slot.upgrade = true;
  slot.response.body = event_stream_head(*answer.plan);
  event_stream_ = std::make_unique<EventStreamPlan>(std::move(*answer.plan));
  reading_ = false;  // nothing after this request is read as HTTP
}

void Connection::hand_over_to_event_stream() {
  closed_ = true;
  linger_timer_.cancel();
  auto stream = std::make_shared<EventStreamConnection>(worker_, std::move(socket_), std::move(*event_stream_));
  event_stream_.reset();
  asio::post(worker_.io(), [stream] { stream->start(); });
}

void Connection::hold(PendingResponse& slot, Nanos delay) {
  if (delay <= 0) {
    slot.ready = true;
    return;
  }
  // Measured from when the request was received, so time spent parsing counts toward the hold.
  worker_.hold(slot.received_at + delay, shared_from_this(), slot);
}

void Connection::end_hold(PendingResponse& slot) {
  if (closed_) return;
  slot.ready = true;
  flush();
}

void Connection::answer_bad_request() {
  reading_ = false;
  auto& slot = queue_.push_back();
  slot.keep_alive = false;
  slot.ready = true;
  slot.response.set_owned(parser_.error_status(), kText, parser_.error() + "\n");
}

void Connection::peer_closed_sending() {
  // The client half-closed. Whatever it sent completely is still answered (it may be
  // reading); a request it cut off half-way is dropped.
  peer_done_sending_ = true;
  reading_ = false;
}

void Connection::flush() {
  while (!writing_ && !closed_ && !lingering_) {
    std::size_t ready = 0;
    while (ready < queue_.size() && queue_.at(ready).ready) {
      const auto& slot = queue_.at(ready);
      if (slot.interim) {
        append_continue(out_);
      } else if (slot.upgrade) {
        out_ += slot.response.body;
      } else {
        append_response(out_, slot.response, {slot.version_minor, slot.head_request, slot.keep_alive},
                        worker_.date_line());
      }
      ++ready;
    }
    if (ready == 0) {
      if (queue_.empty() && peer_done_sending_) close();
      return;
    }
    in_flight_ = ready;
    // Try the write right here: usually the socket takes it all, the held times are recorded
    // by this same handler (so a truth collected afterwards includes them) and no completion
    // has to go through the loop. A hold ends when its response is handed to the kernel, read
    // before the write: after it, a thread preempted on its way back from the system call
    // would count time the client already spent holding the answer.
    const Nanos handed_at = SteadyClock::monotonic_now();
    boost::system::error_code ec;
    const auto written = socket_.write_some(asio::buffer(out_), ec);
    if (ec && !would_block(ec)) {
      close();
      return;
    }
    if (!ec && written == out_.size()) {
      finish_write(handed_at);
      continue;  // once more: a half-closed client owed nothing more is closed there
    }
    writing_ = true;
    const auto rest = asio::buffer(out_) + (ec ? 0 : written);
    asio::async_write(socket_, rest,
                      [self = shared_from_this(), handed_at](const boost::system::error_code& write_ec, std::size_t) {
                        self->writing_ = false;
                        if (write_ec || self->closed_) {
                          self->close();
                          return;
                        }
                        self->finish_write(handed_at);
                        self->flush();
                      });
    return;
  }
}

void Connection::finish_write(Nanos handed_at) {
  auto& held = worker_.held_times();
  bool last = false;
  bool upgraded = false;
  for (std::size_t i = 0; i < in_flight_; ++i) {
    const auto& slot = queue_.at(0);
    if (slot.measured) held.push_back(handed_at - slot.received_at);
    if (slot.in_flight) worker_.in_flight().leave();
    last = last || !slot.keep_alive;
    upgraded = upgraded || slot.upgrade;
    queue_.pop_front();
  }
  in_flight_ = 0;
  out_.clear();
  if (out_.capacity() > kKeptOutputCapacity) std::string().swap(out_);

  if (upgraded && event_stream_) {
    hand_over_to_event_stream();
    return;
  }
  if (upgraded) {
    hand_over_to_websocket();
    return;
  }
  if (last) {
    linger_then_close();
    return;
  }
  if (paused_ && queue_.size() <= kResumeOwedResponses) {
    paused_ = false;
    // Posted, not called: reading from inside a write would nest read -> write -> read.
    asio::post(socket_.get_executor(), [self = shared_from_this()] {
      if (!self->closed_) self->read_available();
    });
  }
}

void Connection::linger_then_close() {
  lingering_ = true;
  reading_ = false;
  boost::system::error_code ec;
  socket_.shutdown(Socket::shutdown_send, ec);
  if (ec || peer_done_sending_) {
    close();
    return;
  }
  linger_timer_.expires_after(kLingerTime);
  linger_timer_.async_wait([self = shared_from_this()](const boost::system::error_code&) { self->close(); });
  drain_until_closed();
}

void Connection::drain_until_closed() {
  auto& buffer = worker_.read_buffer();
  while (!closed_) {
    boost::system::error_code ec;
    socket_.read_some(asio::buffer(buffer), ec);
    if (would_block(ec)) {
      socket_.async_wait(Socket::wait_read, [self = shared_from_this()](const boost::system::error_code& wait_ec) {
        if (self->closed_) return;
        if (wait_ec) {
          self->close();
          return;
        }
        self->drain_until_closed();
      });
      return;
    }
    if (ec) {
      close();  // EOF: the client has read everything and closed too
      return;
    }
  }
}

void Connection::close() {
  if (closed_) return;
  closed_ = true;
  boost::system::error_code ec;
  socket_.close(ec);
  linger_timer_.cancel();
  for (std::size_t i = 0; i < queue_.size(); ++i) {
    PendingResponse& slot = queue_.at(i);
    if (slot.in_flight) worker_.in_flight().leave();  // never to be answered
    slot.in_flight = false;
  }
}

}  // namespace stampede::target
