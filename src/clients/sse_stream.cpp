// One Server-Sent Events source, followed top to bottom: parse the URL -> resolve -> connect
// (TCP, TLS) -> write the request -> read the response head with the HTTP response parser ->
// check 200 and text/event-stream -> Open: wait until readable, read into the worker's shared
// buffer, let the HTTP parser undo the transfer coding, feed the decoded bytes to the
// event-stream parser, keep its events in the inbox -> the stream ends -> wait the
// reconnection time -> connect again with Last-Event-ID. Everything runs on the worker's one
// thread: no locks.
#include "clients/sse_stream.hpp"

#include <boost/asio/error.hpp>
#include <boost/asio/post.hpp>
#include <optional>
#include <stdexcept>

#include "clients/borrowed_read_buffer.hpp"
#include "clients/client_context.hpp"
#include "clients/url_target.hpp"
#include "proto/duration.hpp"
#include "proto/event_stream.hpp"
#include "proto/http_request_writer.hpp"
#include "proto/http_response_parser.hpp"
#include "proto/http_text.hpp"
#include "transport/errors.hpp"
#include "transport/resolve.hpp"
#include "transport/stream.hpp"

namespace stampede::clients {

namespace {

namespace asio = boost::asio;
using boost::system::error_code;
using proto::http_text::iequals;

// The response head; the body is taken from the parser after every read, so its limit only
// bounds what one read inflates to (a gzip-coded stream).
constexpr proto::HttpParserLimits kParserLimits{64 * 1024, 64 * 1024 * 1024};

// "text/event-stream; charset=utf-8" -> true.
bool is_event_stream(const std::string* content_type) {
  if (content_type == nullptr) return false;
  std::string_view type = *content_type;
  type = proto::http_text::trim_ows(type.substr(0, type.find(';')));
  return iequals(type, "text/event-stream");
}

}  // namespace

class SseStream::Source : public std::enable_shared_from_this<Source> {
 public:
  explicit Source(ClientContext& ctx)
      : ctx_(ctx),
        connect_metric_(ctx.sink.id("sse.connect", metrics::Kind::Timing)),
        events_metric_(ctx.sink.id("sse.events", metrics::Kind::Counter)),
        errors_metric_(ctx.sink.id("sse.errors", metrics::Kind::Counter)),
        inbox_(ctx, 1000) {}

  void open(std::string url, Options options, std::function<void(OpenResult)> done) {
    if (state_ != State::Idle) throw std::logic_error("an SseStream opens once; make a new one to open again");
    options_ = std::move(options);
    inbox_.set_limit(options_.buffer_limit);
    done_ = std::move(done);
    parser_.emplace(proto::sse::ParserLimits{options_.max_event_bytes, false});
    std::string why;
    if (!parse_url_target(url, UrlSchemes::http, target_, why)) {
      state_ = State::Connecting;
      return fail_attempt("url", why, /*count=*/true, /*retry=*/false);
    }
    for (const auto& [name, value] : options_.headers) {
      if (iequals(name, "last-event-id")) {
        state_ = State::Connecting;
        return fail_attempt("url", "Last-Event-ID is the source's own header: give it as last_event_id", true, false);
      }
    }
    last_event_id_ = options_.last_event_id;
    connect_attempt();
  }

  void close(std::string reason) {
    if (state_ == State::Closed) return;
    end_for_good(std::move(reason));
  }

  // The owner is gone: nothing is called back from now on.
  void detach() {
    detached_ = true;
    done_ = nullptr;
    if (state_ != State::Closed) end_for_good("closed by the scenario");
  }

  State state() const { return state_; }
  const std::string& closed_reason() const { return closed_reason_; }
  const std::string& last_event_id() const { return last_event_id_; }
  std::uint64_t reconnects() const { return reconnects_; }
  MessageInbox<SseEvent>& inbox() { return inbox_; }

 private:
  // ---- one attempt ---------------------------------------------------------------------

  void connect_attempt() {
    state_ = State::Connecting;
    attempt_started_ = ctx_.clock.now();
    sent_ = false;
    tcp_connected_ = false;
    http_.reset();
    ctx_.timers().schedule_after(timer_, options_.timeout, &Source::on_timer, this);
    std::string why;
    if (!write_head(why)) return fail_attempt("url", "the request cannot be sent: " + why, true, false);
    auto& resolver = transport::Resolver::of(ctx_.io);
    if (auto endpoints = resolver.find(target_.host, target_.port)) return open_tcp(std::move(endpoints));
    const std::uint64_t attempt = ++attempt_;
    resolver.async_resolve(target_.host, target_.port,
                           [self = shared_from_this(), attempt](const error_code& ec,
                                                                transport::Resolver::Endpoints endpoints) {
                             if (self->state_ != State::Connecting || self->attempt_ != attempt) return;
                             if (ec) return self->fail_attempt(transport::Failure{transport::Step::resolve, ec, self->target_.host});
                             self->open_tcp(std::move(endpoints));
                           });
  }

  bool write_head(std::string& why) {
    head_.clear();
    std::vector<proto::HeaderView> extra;
    bool has_accept = false, has_cache_control = false, has_user_agent = false;
    for (const auto& [name, value] : options_.headers) {
      has_accept = has_accept || iequals(name, "accept");
      has_cache_control = has_cache_control || iequals(name, "cache-control");
      has_user_agent = has_user_agent || iequals(name, "user-agent");
    }
    if (!has_accept) extra.emplace_back("Accept", "text/event-stream");
    if (!has_cache_control) extra.emplace_back("Cache-Control", "no-cache");
    if (!has_user_agent) extra.emplace_back("User-Agent", "stampede/0.1");
    if (!last_event_id_.empty()) extra.emplace_back("Last-Event-ID", last_event_id_);
    try {
      proto::write_request_head(head_, options_.method, target_.request_target, target_.host_header, options_.headers,
                                options_.body.size(), !options_.body.empty(), extra);
    } catch (const std::invalid_argument& e) {
      why = e.what();
      return false;
    }
    head_ += options_.body;
    return true;
  }

  void open_tcp(transport::Resolver::Endpoints endpoints) {
    asio::ssl::context* tls = target_.tls ? &ctx_.tls(!options_.insecure) : nullptr;
    stream_ = std::make_unique<transport::Stream>(ctx_.io, tls);
    transport::Stream::ConnectOptions connect;
    if (!options_.local_addresses.empty()) {
      connect.sources = transport::SourceAddresses(options_.local_addresses, ctx_.next_local_address);
    } else if (!ctx_.local_addresses.empty()) {
      connect.sources = transport::SourceAddresses(ctx_.local_addresses, ctx_.next_local_address);
    }
    connect.server_name = target_.host;
    connect.verify = !options_.insecure;
    const std::uint64_t attempt = ++attempt_;
    stream_->async_connect(std::move(endpoints), std::move(connect),
                           [self = shared_from_this(), attempt](const transport::Failure* failure) {
                             if (self->state_ != State::Connecting || self->attempt_ != attempt) return;
                             if (failure != nullptr) return self->fail_attempt(*failure);
                             self->tcp_connected_ = true;
                             self->write_request();
                           });
  }

  void write_request() {
    sent_ = true;
    ctx_.sink.request_sent();
    http_.emplace(kParserLimits);
    const std::uint64_t attempt = attempt_;
    stream_->async_write(asio::buffer(head_), [self = shared_from_this(), attempt](const error_code& ec, std::size_t) {
      if (self->state_ != State::Connecting || self->attempt_ != attempt) return;
      if (ec) return self->fail_attempt(transport::Failure{transport::Step::write, ec, {}});
      std::string().swap(self->head_);
      self->read_or_wait();
    });
  }

  // The response head arrived: a stream, or the end of the source.
  bool accept_head(std::string_view rest) {
    const auto& head = http_->head();
    if (head.status != 200) {
      fail_attempt("status", "the server answered " + std::to_string(head.status) +
                                 (head.reason.empty() ? "" : " " + head.reason) + " instead of 200 and an event stream",
                   true, false);
      return false;
    }
    if (!is_event_stream(proto::find_header(head.headers, "content-type"))) {
      const std::string* type = proto::find_header(head.headers, "content-type");
      fail_attempt("content-type",
                   "the response is " + (type ? "\"" + *type + "\"" : std::string("without a Content-Type")) +
                       ", not text/event-stream",
                   true, false);
      return false;
    }
    ctx_.sink.record(connect_metric_, ctx_.clock.now() - attempt_started_);
    ctx_.sink.request_finished(true);
    timer_.cancel();
    state_ = State::Open;
    parser_->start_stream();
    http_->take_headers();  // not needed any more: an idle source keeps no header strings
    if (auto done = std::exchange(done_, nullptr)) {
      OpenResult opened;
      opened.status = 200;
      done(std::move(opened));
      if (state_ != State::Open) return false;
    }
    // The parser read on past the head: what it decoded of the body is taken now.
    (void)rest;  // bytes after a complete response: the stream is over, they are ignored
    return after_feed();
  }

  // ---- reading -------------------------------------------------------------------------

  void read_or_wait() {
    if (stream_->may_hold_input()) return on_readable({});
    wait_readable();
  }

  void wait_readable() {
    const std::uint64_t attempt = attempt_;
    stream_->async_wait_readable([self = shared_from_this(), attempt](const error_code& ec) {
      if (self->attempt_ != attempt) return;
      self->on_readable(ec);
    });
  }

  bool reading() const { return (state_ == State::Connecting && sent_) || state_ == State::Open; }

  void on_readable(const error_code& ec) {
    if (!reading()) return;
    if (ec) return on_transport_failure(transport::Failure{transport::Step::read, ec, {}});
    const auto keep = shared_from_this();  // a woken await may drop the owner
    BorrowedReadBuffer borrowed(ctx_);
    std::string& buffer = borrowed.get();
    for (int reads = 0; reads < kReadsPerTurn; ++reads) {
      error_code read_ec;
      const std::size_t n = stream_->read_available(asio::buffer(buffer), read_ec);
      if (n > 0) {
        const std::uint64_t attempt = attempt_;
        if (!consume(std::string_view(buffer.data(), n)) || !reading() || attempt_ != attempt) return;
        continue;
      }
      if (read_ec == asio::error::would_block) return wait_readable();
      if (transport::is_end_of_stream(read_ec)) return on_end_of_stream();
      return on_transport_failure(transport::Failure{transport::Step::read, read_ec, {}});
    }
    asio::post(ctx_.io, [self = shared_from_this(), attempt = attempt_] {
      if (self->attempt_ == attempt) self->on_readable({});
    });
  }

  // Returns whether to keep reading.
  bool consume(std::string_view bytes) {
    if (state_ == State::Open) return consume_stream(bytes);
    const std::size_t used = http_->feed(bytes);
    if (http_->failed()) {
      fail_attempt("protocol", "the server did not answer with HTTP: " + http_->error(), true, true);
      return false;
    }
    if (!http_->head_complete()) return true;
    return accept_head(bytes.substr(used));
  }

  bool consume_stream(std::string_view bytes) {
    http_->feed(bytes);  // what follows the body (nothing should) is ignored: the stream is over then
    return after_feed();
  }

  // Takes what the HTTP parser decoded, and ends the stream when its body ended.
  bool after_feed() {
    if (!take_body()) return false;
    if (http_->failed()) {
      stream_ended("protocol", "the event stream's HTTP body is broken: " + http_->error());
      return false;
    }
    if (http_->done()) {
      stream_ended({}, "the server ended the response");
      return false;
    }
    return true;
  }

  // Hands what the HTTP parser decoded to the event-stream parser. False when the source
  // ended meanwhile.
  bool take_body() {
    std::string& body = http_->body();
    if (body.empty()) return true;
    parser_->feed(body);
    const bool ok = drain_events();
    if (http_) http_->body().clear();
    return ok && state_ == State::Open;
  }

  bool drain_events() {
    for (;;) {
      proto::sse::SseEvent event = parser_->next();
      switch (event.kind) {
        case proto::sse::SseEvent::Kind::NeedMore:
          return true;
        case proto::sse::SseEvent::Kind::Message: {
          last_event_id_ = parser_->last_event_id();
          ctx_.sink.add(events_metric_);
          SseEvent e;
          e.type.assign(event.type);
          e.data.assign(event.data);
          e.id.assign(event.last_event_id);
          if (!inbox_.push(std::move(e))) ctx_.sink.add_error(errors_metric_, "dropped");
          if (state_ != State::Open) return false;  // an await woken by it closed the source
          break;
        }
        case proto::sse::SseEvent::Kind::Retry:
        case proto::sse::SseEvent::Kind::Comment:
          break;
        case proto::sse::SseEvent::Kind::Error:
          ctx_.sink.add_error(errors_metric_, "too big");
          end_for_good("the server sent an event larger than " + std::to_string(options_.max_event_bytes) +
                       " bytes: " + event.error);
          return false;
      }
    }
  }

  void on_end_of_stream() {
    if (state_ == State::Connecting) {
      if (http_->head_complete()) return;  // (accept_head ran; unreachable)
      return fail_attempt("closed", http_->started() ? "the server closed the connection in the middle of its answer"
                                                     : "the server closed the connection without answering",
                          true, true);
    }
    http_->finish_eof();
    take_body();
    if (state_ != State::Open) return;
    stream_ended({}, "the server closed the stream");
  }

  void on_transport_failure(const transport::Failure& failure) {
    if (state_ == State::Connecting) return fail_attempt(failure);
    if (state_ != State::Open) return;
    stream_ended(std::string(transport::failure_reason(failure)), transport::describe_failure(failure));
  }

  // ---- endings -------------------------------------------------------------------------

  // The open stream is over. `reason`: counted in sse.errors when not empty. An event cut off
  // by the end is lost (the standard discards it): that is an error too.
  void stream_ended(std::string reason, std::string what) {
    if (reason.empty() && parser_->in_event()) {
      reason = "truncated";
      what = "the stream ended in the middle of an event";
    }
    if (!reason.empty()) ctx_.sink.add_error(errors_metric_, reason);
    shutdown_socket();
    if (!options_.reconnect) return end_for_good(what);
    wait_to_reconnect();
  }

  void fail_attempt(const transport::Failure& failure) {
    fail_attempt(transport::failure_reason(failure), transport::describe_failure(failure), true, true,
                 transport::is_local_exhaustion(failure));
  }

  // An attempt failed before the stream opened. `retry`: a network error, after which a
  // reconnection tries again; a refused response ends the source (the standard's "fail the
  // connection"). The first attempt's failure always ends it: open() reports it.
  void fail_attempt(std::string_view reason, const std::string& what, bool count, bool retry,
                    bool local_exhaustion = false) {
    if (state_ != State::Connecting) return;
    if (count) {
      if (!sent_) ctx_.sink.request_sent();
      ctx_.sink.request_finished(false);
      ctx_.sink.add_error(errors_metric_, reason);
    }
    const int status = http_ && http_->head_complete() ? http_->head().status : 0;
    shutdown_socket();
    if (auto done = std::exchange(done_, nullptr)) {
      end_for_good(what);
      OpenResult failed;
      failed.error = what;
      failed.error_reason = std::string(reason);
      failed.local_exhaustion = local_exhaustion;
      failed.status = status;
      asio::post(ctx_.io, [self = shared_from_this(), done = std::move(done), failed = std::move(failed)]() mutable {
        if (!self->detached_) done(std::move(failed));
      });
      return;
    }
    if (retry && options_.reconnect) return wait_to_reconnect();
    end_for_good(what);
  }

  void wait_to_reconnect() {
    state_ = State::Waiting;
    const Nanos wait = parser_->reconnection_time_ms()
                           ? static_cast<Nanos>(std::min<std::uint64_t>(*parser_->reconnection_time_ms(), 86'400'000)) * kMilli
                           : options_.retry;
    ctx_.timers().schedule_after(timer_, wait, &Source::on_timer, this);
  }

  static void on_timer(void* arg) {
    auto* self = static_cast<Source*>(arg);
    const auto keep = self->shared_from_this();
    if (self->state_ == State::Waiting) {
      ++self->reconnects_;
      return self->connect_attempt();
    }
    if (self->state_ != State::Connecting) return;
    const char* phase = !self->tcp_connected_          ? "connecting"
                        : !self->http_ || !self->http_->started() ? "waiting for the response"
                                                                   : "reading the response head";
    self->fail_attempt("timeout",
                       "no response within " + proto::format_duration(self->options_.timeout) + " (stuck " + phase + ")",
                       true, true);
  }

  void end_for_good(std::string reason) {
    if (state_ == State::Closed) return;
    state_ = State::Closed;
    closed_reason_ = std::move(reason);
    shutdown_socket();
    timer_.cancel();
    inbox_.close();
  }

  void shutdown_socket() {
    ++attempt_;  // whatever is pending on this connection is stale now
    if (stream_) {
      stream_->close();  // queues its pending operations' handlers, aborted
      // The stream must outlive those handlers: released after them, from the loop.
      asio::post(ctx_.io, [old = std::move(stream_)] {});
    }
    std::string().swap(head_);
    if (http_ && state_ != State::Open) http_.reset();
  }

  ClientContext& ctx_;
  const metrics::MetricId connect_metric_;
  const metrics::MetricId events_metric_;
  const metrics::MetricId errors_metric_;
  Options options_;
  UrlTarget target_;
  State state_ = State::Idle;
  std::function<void(OpenResult)> done_;
  std::unique_ptr<transport::Stream> stream_;
  std::optional<proto::HttpResponseParser> http_;
  std::optional<proto::sse::EventStreamParser> parser_;
  std::string head_;  // the request of the attempt in progress
  WorkerTimer timer_;  // the attempt's timeout, or the reconnection time
  std::uint64_t attempt_ = 0;  // bumped by every connection step and shutdown: stale handlers see it
  Nanos attempt_started_ = 0;
  bool sent_ = false;
  bool tcp_connected_ = false;
  std::uint64_t reconnects_ = 0;
  std::string last_event_id_;
  std::string closed_reason_;
  MessageInbox<SseEvent> inbox_;
  bool detached_ = false;
};

// ---------------------------------------------------------------------------------------

SseStream::SseStream(ClientContext& ctx) : source_(std::make_shared<Source>(ctx)) {}

SseStream::~SseStream() { source_->detach(); }

void SseStream::open(std::string url, Options options, std::function<void(OpenResult)> done) {
  source_->open(std::move(url), std::move(options), std::move(done));
}

void SseStream::close() { source_->close("closed by the scenario"); }

SseStream::State SseStream::state() const { return source_->state(); }
const std::string& SseStream::closed_reason() const { return source_->closed_reason(); }
const std::string& SseStream::last_event_id() const { return source_->last_event_id(); }
std::uint64_t SseStream::reconnects() const { return source_->reconnects(); }
MessageInbox<SseEvent>& SseStream::inbox() { return source_->inbox(); }

}  // namespace stampede::clients
