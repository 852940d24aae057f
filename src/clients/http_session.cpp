// One VU's HTTP client. A request is an Exchange that a reader can follow top to bottom in
// this file: parse the URL -> take an idle keep-alive connection or open one (resolve,
// connect, TLS) -> write the request -> wait until readable, read into the worker's shared
// buffer, feed the parser -> response complete: record the service time, store cookies,
// give the connection back -> follow a redirect (a new hop) or deliver the response.
// Everything runs on the worker's one thread: no locks.
#include "clients/http_session.hpp"

#include <boost/asio/error.hpp>
#include <boost/asio/post.hpp>
#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <optional>
#include <span>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "clients/client_context.hpp"
#include "clients/http2_session.hpp"
#include "clients/http_hop.hpp"
#include "clients/url_target.hpp"
#include "proto/ascii.hpp"
#include "proto/duration.hpp"
#include "proto/http_request_writer.hpp"
#include "transport/errors.hpp"
#include "transport/resolve.hpp"
#include "transport/stream.hpp"

namespace stampede::clients {

namespace {

namespace asio = boost::asio;
using boost::system::error_code;
using metrics::MetricId;
using Done = std::function<void(HttpResponse&&)>;

// Like a browser: more concurrent requests to one origin open more connections, but no
// more than this many stay open once idle.
constexpr std::size_t kMaxIdlePerOrigin = 6;
// A plain connection idle for less than this carries an idempotent request without the
// liveness peek (docs/design/021). Servers close idle connections after seconds (Cowboy and
// Bandit 60 s, nginx 75 s, Node 5 s), sometimes with a 408 first: older ones are checked.
constexpr Nanos kUncheckedReuseWithin = kSecond;
using proto::ascii::iequals;

// ---------------------------------------------------------------------------------------
// Connections and the session that pools them.

// What an idle keep-alive connection costs: the socket (plus the TLS layer when encrypted)
// and a flag. Buffers and parser state belong to the request in flight, not here.
struct Connection {
  Connection(asio::io_context& io, asio::ssl::context* tls) : stream(io, tls) {}
  transport::Stream stream;
  // Carried a response before: a failure before the first byte of the next one may just be
  // the server having closed it while idle.
  bool reused = false;
  Nanos idle_since = 0;  // when its last response ended
};

struct OriginPool {
  bool holds(const std::string& o, bool i) const { return origin == o && insecure == i; }

  std::string origin;  // UrlTarget::origin
  bool insecure = false;  // TLS without verification: never shared with verified requests
  std::vector<std::unique_ptr<Connection>> idle;  // most recently used last
};

class Exchange;

struct Session {
  Session(ClientContext& context, HttpSession::OnDestroy on_destroy)
      : ctx(context),
        resolver(transport::Resolver::of(context.io)),
        request_metric(context.sink.id("http.request", metrics::Kind::Timing)),
        error_metric(context.sink.id("http.request.errors", metrics::Kind::Counter)),
        discard_on_destroy(on_destroy == HttpSession::OnDestroy::discard) {}

  ClientContext& ctx;
  transport::Resolver& resolver;
  proto::CookieJar cookies;
  const MetricId request_metric;
  const MetricId error_metric;
  std::vector<std::pair<std::string, MetricId>> named_metrics;  // a VU uses a handful of names
  std::vector<OriginPool> pools;
  std::vector<std::shared_ptr<Exchange>> in_flight;
  std::uint64_t liveness_checks = 0;
  const bool discard_on_destroy;
  // Completions queued on the loop hold a weak reference: in discard mode they check it.
  std::shared_ptr<const char> alive = std::make_shared<const char>('\0');

  // Throws std::invalid_argument when http.request.<name> exists with another kind (nothing
  // is cached then).
  MetricId named_metric(const std::string& name) {
    for (const auto& [known, id] : named_metrics) {
      if (known == name) return id;
    }
    const MetricId id = ctx.sink.id("http.request." + name, metrics::Kind::Timing);
    named_metrics.emplace_back(name, id);
    return id;
  }

  // The most recently used idle connection that is still open, or nullptr. `retryable`:
  // the request may be sent twice, so a young plain connection is taken without the peek
  // (a syscall per request): had the server closed it meanwhile, the request fails before
  // any byte of a response and is sent once more on a new connection (Exchange::can_retry).
  std::unique_ptr<Connection> take_idle(const std::string& origin, bool insecure, bool retryable) {
    for (auto& pool : pools) {
      if (!pool.holds(origin, insecure)) continue;
      while (!pool.idle.empty()) {
        std::unique_ptr<Connection> conn = std::move(pool.idle.back());
        pool.idle.pop_back();
        if (retryable && !conn->stream.is_tls() && conn->stream.is_open() &&
            ctx.clock.now() - conn->idle_since < kUncheckedReuseWithin)
          return conn;
        ++liveness_checks;
        std::string& scratch = ctx.read_buffer();
        if (conn->stream.usable_when_idle(asio::buffer(scratch))) return conn;
      }
      return nullptr;
    }
    return nullptr;
  }

  void give_back(const std::string& origin, bool insecure, std::unique_ptr<Connection> conn) {
    auto pool = std::find_if(pools.begin(), pools.end(),
                             [&](const OriginPool& p) { return p.holds(origin, insecure); });
    if (pool == pools.end()) {
      pools.push_back(OriginPool{origin, insecure, {}});
      pool = std::prev(pools.end());
    }
    if (pool->idle.size() >= kMaxIdlePerOrigin) return;  // `conn` closes here
    pool->idle.push_back(std::move(conn));
  }

  void forget(const Exchange* exchange) {
    auto it = std::find_if(in_flight.begin(), in_flight.end(),
                           [exchange](const std::shared_ptr<Exchange>& e) { return e.get() == exchange; });
    if (it == in_flight.end()) return;
    std::swap(*it, in_flight.back());
    in_flight.pop_back();
  }

  void close_all();

  std::size_t idle_count() const {
    std::size_t n = 0;
    for (const auto& pool : pools) n += pool.idle.size();
    return n;
  }
};

// ---------------------------------------------------------------------------------------
// One request, from request() to `done`, across its redirect hops.

class Exchange : public std::enable_shared_from_this<Exchange> {
 public:
  Exchange(Session& session, HttpRequest req, std::optional<MetricId> named_metric, Done done)
      : session_(&session),
        ctx_(session.ctx),
        req_(std::move(req)),
        named_metric_(named_metric),
        done_(std::move(done)),
        discard_on_destroy_(session.discard_on_destroy),
        session_alive_(session.alive),
        head_(session.ctx.take_text()) {
    if (!req_.long_wait) parser_.emplace(take_parser());
  }

  proto::HttpResponseParser take_parser() {
    return req_.max_body_bytes == 0 ? ctx_.take_http_parser() : parser_with_limit(req_.max_body_bytes);
  }

  // The parser of this hop's response: a long wait takes one only when the answer arrives.
  proto::HttpResponseParser& parser() {
    if (!parser_) {
      parser_.emplace(take_parser());
      parser_->reset(req_.method == "HEAD");
    }
    return *parser_;
  }
  bool response_started() const { return parser_ && parser_->started(); }

  // A request with a body limit of its own parses with a parser of its own, never pooled.
  static proto::HttpResponseParser parser_with_limit(std::size_t max_body_bytes) {
    proto::HttpParserLimits limits;
    limits.max_body_bytes = max_body_bytes;
    return proto::HttpResponseParser(limits);
  }

  void start() {
    started_ = ctx_.clock.now();
    prepare_headers();
    // On the worker's shared timer heap: no Asio wait to allocate, queue and cancel per
    // request. The exchange cancels it when it finishes and, if it is ever destroyed first,
    // in the timer's destructor, so `this` is alive whenever it fires.
    ctx_.timers().schedule_after(timeout_, std::max<Nanos>(req_.timeout, 0),
                                 [](void* self) { static_cast<Exchange*>(self)->on_timeout(); }, this);
    std::string why;
    std::shared_ptr<const UrlTarget> first = ctx_.http_urls.find_or_parse(req_.url, why);
    if (!first) return fail("url", why);
    begin_hop(std::move(first));
  }

  // close_all() or the session's destructor: the request ends unanswered and is not counted
  // as finished (it was cut off, not failed).
  void cut_off() {
    if (finished_) return;
    HttpResponse response;
    response.url = current_url();
    response.error = description() + " failed: the session was closed before the response arrived";
    response.error_reason = "closed";
    finish(std::move(response));
  }

 private:
  // Defaults, and the headers this client computes itself (host, content-length, cookie).
  void prepare_headers() {
    bool has_user_agent = false;
    bool has_accept_encoding = false;
    auto& headers = req_.headers;
    for (auto it = headers.begin(); it != headers.end();) {
      const std::string& name = it->first;
      if (iequals(name, "host")) {
        host_override_ = it->second;
      } else if (iequals(name, "cookie")) {
        // Merged with the jar's cookies on every hop.
        user_cookie_ += (user_cookie_.empty() ? "" : "; ") + it->second;
      } else if (!iequals(name, "content-length")) {
        has_user_agent = has_user_agent || iequals(name, "user-agent");
        has_accept_encoding = has_accept_encoding || iequals(name, "accept-encoding");
        ++it;
        continue;
      }
      it = headers.erase(it);
    }
    // Written by write_head() after the script's, not added to them: no copy per request.
    if (!has_user_agent) default_headers_[default_header_count_++] = {"user-agent", "stampede/0.1"};
    if (!has_accept_encoding) default_headers_[default_header_count_++] = {"accept-encoding", "gzip, deflate"};
  }

  void begin_hop(std::shared_ptr<const UrlTarget> next) {
    if (target_ && next->origin != target_->origin) {
      // Credentials, cookies and a Host header given by the script were meant for the first
      // origin only (as curl does); the jar's cookies follow their own domain rules.
      host_override_.clear();
      user_cookie_.clear();
      std::erase_if(req_.headers, [](const auto& h) { return iequals(h.first, "authorization"); });
    }
    target_ = std::move(next);
    unverified_ = target_->tls && req_.insecure;
    hop_sent_ = false;
    retried_ = false;
    if (!write_head()) return;
    if ((conn_ = session_->take_idle(target_->origin, unverified_, is_idempotent(req_.method)))) return send();
    open_connection();
  }

  // Formats this hop's request head into head_ (the jar's cookies for this URL included).
  bool write_head() {
    // The calendar is read only when the jar holds something (most load tests send no cookies).
    std::string cookie = session_->cookies.cookies().empty()
                             ? std::string()
                             : session_->cookies.header_for(target_->host, target_->path, target_->tls,
                                                            wall_clock_seconds());
    if (!user_cookie_.empty()) cookie = cookie.empty() ? user_cookie_ : user_cookie_ + "; " + cookie;
    std::array<proto::HeaderView, kDefaultHeaders + 1> extra;
    std::copy_n(default_headers_.begin(), default_header_count_, extra.begin());
    std::size_t extra_count = default_header_count_;
    if (!cookie.empty()) extra[extra_count++] = {"cookie", cookie};
    const bool has_body = !req_.body.empty() || req_.method == "POST" || req_.method == "PUT" || req_.method == "PATCH";
    head_.clear();
    std::string problem;
    try {
      proto::write_request_head(head_, req_.method, target_->request_target,
                                host_override_.empty() ? target_->host_header : host_override_, req_.headers,
                                req_.body.size(), has_body, std::span(extra.data(), extra_count));
    } catch (const std::invalid_argument& e) {
      problem = e.what();
    }
    if (problem.empty()) return true;
    fail("protocol", "the request cannot be sent: " + problem);
    return false;
  }

  void open_connection() {
    asio::ssl::context* tls = target_->tls ? &ctx_.tls(!req_.insecure) : nullptr;
    conn_ = std::make_unique<Connection>(ctx_.io, tls);
    if (auto endpoints = session_->resolver.find(target_->host, target_->port)) return connect(std::move(endpoints));
    session_->resolver.async_resolve(
        target_->host, target_->port,
        [self = shared_from_this()](const error_code& ec, transport::Resolver::Endpoints endpoints) {
          if (self->finished_) return;
          if (ec) return self->fail(transport::Failure{transport::Step::resolve, ec, self->target_->host});
          self->connect(std::move(endpoints));
        });
  }

  void connect(transport::Resolver::Endpoints endpoints) {
    transport::Stream::ConnectOptions options;
    if (!ctx_.local_addresses.empty()) {
      options.sources = transport::SourceAddresses(ctx_.local_addresses, ctx_.next_local_address);
    }
    options.server_name = target_->host;
    options.verify = !req_.insecure;
    conn_->stream.async_connect(std::move(endpoints), std::move(options),
                                [self = shared_from_this()](const transport::Failure* failure) {
                                  if (self->finished_) return;
                                  if (failure != nullptr) return self->fail(*failure);
                                  self->send();
                                });
  }

  void send() {
    if (parser_) parser_->reset(req_.method == "HEAD");
    if (!hop_sent_) {
      hop_sent_ = true;
      if (req_.measured) ctx_.sink.request_sent();
    }
    const std::array<asio::const_buffer, 2> bytes{asio::buffer(head_), asio::buffer(req_.body)};
    write_started_ = ctx_.clock.now();  // service time starts as the bytes go to the socket
    if (transport::SendBatch* batch = conn_->stream.is_tls() ? nullptr : ctx_.send_batch()) {
      // With the loop turn's other sends, in one system call (design 028); the service time
      // starts when the batch went to the kernel.
      conn_->stream.async_write_batched(
          *batch, bytes, [self = shared_from_this()](const error_code& ec, std::size_t, Nanos sent_at) {
            if (self->finished_) return;
            if (sent_at != 0) self->write_started_ = sent_at;
            if (ec) return self->on_connection_failure(transport::Failure{transport::Step::write, ec, {}});
            self->await_response();
          });
      return;
    }
    conn_->stream.async_write(bytes, [self = shared_from_this()](const error_code& ec, std::size_t) {
      if (self->finished_) return;
      if (ec) return self->on_connection_failure(transport::Failure{transport::Step::write, ec, {}});
      self->await_response();
    });
  }

  void await_response() {
    if (req_.long_wait) {
      // Written: the head is needed again only by a retry (which formats it again).
      if (head_.capacity() > 0) ctx_.give_back_text(std::exchange(head_, std::string()));
      if (parser_ && req_.max_body_bytes == 0) ctx_.give_back_http_parser(std::move(*std::exchange(parser_, std::nullopt)));
    }
    if (conn_->stream.may_hold_input()) return on_readable({});
    wait_readable();
  }

  void wait_readable() {
    if (conn_->stream.is_tls() || req_.long_wait) {
      conn_->stream.async_wait_readable([self = shared_from_this()](const error_code& ec) { self->on_readable(ec); });
      return;
    }
    if (!inbox_) inbox_ = ctx_.take_receive_buffer();
    conn_->stream.async_receive(asio::buffer(*inbox_),
                                [self = shared_from_this()](const error_code& ec, std::size_t n) {
                                  self->on_received(ec, n);
                                });
  }

  // A plain connection's waiting read completed: `n` bytes are in its inbox.
  void on_received(const error_code& ec, std::size_t n) {
    if (finished_) return;
    if (transport::is_end_of_stream(ec)) return on_end_of_stream();
    if (ec) return on_connection_failure(transport::Failure{transport::Step::read, ec, {}});
    last_byte_at_ = ctx_.clock.now();  // before parsing: decoding is not the server's time
    if (!feed(std::string_view(inbox_->data(), n))) return;
    if (n == inbox_->size()) return on_readable({});  // it filled up: more may be there
    wait_readable();
  }

  // Reads what is there into the worker's buffer and hands it to the parser before
  // returning, so the buffer is free again for the next connection's handler.
  void on_readable(const error_code& ec) {
    if (finished_) return;
    if (ec) return on_connection_failure(transport::Failure{transport::Step::read, ec, {}});
    std::string& buffer = ctx_.read_buffer();
    for (int reads = 0; reads < kReadsPerTurn; ++reads) {
      error_code read_ec;
      const std::size_t n = conn_->stream.read_available(asio::buffer(buffer), read_ec);
      if (n > 0) {
        last_byte_at_ = ctx_.clock.now();  // before parsing: decoding is not the server's time
        if (!feed(std::string_view(buffer.data(), n))) return;
        continue;
      }
      if (read_ec == asio::error::would_block) return wait_readable();
      if (transport::is_end_of_stream(read_ec)) return on_end_of_stream();
      return on_connection_failure(transport::Failure{transport::Step::read, read_ec, {}});
    }
    asio::post(ctx_.io, [self = shared_from_this()] { self->on_readable({}); });
  }

  // Returns whether to keep reading.
  bool feed(std::string_view bytes) {
    proto::HttpResponseParser& parser = this->parser();
    const std::size_t used = parser.feed(bytes);
    if (parser.failed()) {
      fail("protocol", "the server sent an invalid response: " + parser.error());
      return false;
    }
    if (parser.done()) {
      // Bytes after the response: nobody asked for them, so the connection's framing is lost.
      on_response(/*reusable=*/used == bytes.size());
      return false;
    }
    if (used < bytes.size()) {
      fail("protocol", "the response parser stopped before the end of the data");
      return false;
    }
    return true;
  }

  void on_end_of_stream() {
    if (!response_started() && can_retry()) return retry();
    last_byte_at_ = ctx_.clock.now();
    proto::HttpResponseParser& parser = this->parser();
    parser.finish_eof();
    if (parser.done()) return on_response(/*reusable=*/false);  // a body delimited by the close
    fail("closed", parser.started() ? "the server closed the connection before the response was complete"
                                    : "the server closed the connection without responding");
  }

  void on_connection_failure(const transport::Failure& failure) {
    if (transport::is_peer_gone(failure.code) && !response_started() && can_retry()) return retry();
    fail(failure);
  }

  // A keep-alive connection can be closed by the server just as we reuse it; browsers
  // then send an idempotent request once more on a new connection, and so do we.
  bool can_retry() const { return conn_ && conn_->reused && !retried_ && is_idempotent(req_.method); }

  void retry() {
    retried_ = true;
    conn_->stream.close();
    retired_ = std::move(conn_);  // freed with the exchange, never under a handler of its own
    if (head_.empty() && !write_head()) return;  // a long wait gave its head back once written
    open_connection();
  }

  void on_response(bool reusable) {
    const Nanos service_time = last_byte_at_ - write_started_;
    last_duration_ = service_time;
    if (req_.measured) {
      ctx_.sink.record(session_->request_metric, service_time);
      if (named_metric_) ctx_.sink.record(*named_metric_, service_time);
    }

    const proto::HttpResponseHead& head = parser_->head();
    store_cookies(session_->cookies, head.headers, *target_);
    if (reusable && parser_->keep_alive()) {
      conn_->reused = true;
      conn_->idle_since = last_byte_at_;
      session_->give_back(target_->origin, unverified_, std::move(conn_));
    } else {
      conn_.reset();  // no operation is pending on it here
    }

    if (is_redirect(head.status) && req_.max_redirects > 0) {
      if (const std::string* location = proto::find_header(head.headers, "location")) {
        return follow_redirect(*location, head.status);
      }
    }
    if (req_.measured) {
      ctx_.sink.request_finished(head.status < 400);
      if (head.status >= 400) ctx_.sink.add_error(session_->error_metric, "status " + std::to_string(head.status));
    }
    finish(response_from_parser());
  }

  void follow_redirect(const std::string& location, int status) {
    if (redirects_followed_ >= req_.max_redirects) {
      return fail("redirects", "stopped after " + std::to_string(redirects_followed_) +
                                   " redirects (the request allows " + std::to_string(req_.max_redirects) + ")",
                  /*keep_response=*/true);
    }
    RedirectHop hop = resolve_redirect(*target_, location, status, req_.method);
    if (!hop.next) return fail("url", hop.why, /*keep_response=*/true);
    if (req_.measured) ctx_.sink.request_finished(true);
    ++redirects_followed_;
    if (hop.to_get) switch_to_get(req_.method, req_.body, req_.headers);
    begin_hop(std::move(hop.next));
  }

  void on_timeout() {
    if (finished_) return;
    fail("timeout", "no complete response within " + proto::format_duration(req_.timeout));
  }

  void fail(const transport::Failure& failure) {
    fail(transport::failure_reason(failure), transport::describe_failure(failure), /*keep_response=*/false,
         transport::is_local_exhaustion(failure));
  }

  // The hop failed: counted as sent (if it never got that far) and failed, with the reason.
  void fail(std::string_view reason, const std::string& what, bool keep_response = false,
            bool local_exhaustion = false) {
    if (finished_) return;
    if (!hop_sent_) {
      hop_sent_ = true;
      if (req_.measured) ctx_.sink.request_sent();
    }
    if (req_.measured) {
      ctx_.sink.request_finished(false);
      ctx_.sink.add_error(session_->error_metric, reason);
    }
    HttpResponse response = keep_response ? response_from_parser() : HttpResponse{};
    // How long the scenario waited for nothing (a timeout, a refusal): from the write, or
    // from the call when it never got that far. A response kept in part has its own.
    if (response.duration == 0) response.duration = ctx_.clock.now() - (write_started_ != 0 ? write_started_ : started_);
    response.url = current_url();
    response.error = description() + " failed: " + what;
    response.error_reason = std::string(reason);
    response.local_exhaustion = local_exhaustion;
    finish(std::move(response));
  }

  HttpResponse response_from_parser() {
    HttpResponse response;
    if (!parser_) return response;
    response.status = parser_->head().status;
    response.headers = parser_->take_headers();  // the parser is done with this response
    response.body = std::move(parser_->body());
    response.url = ctx_.take_text();  // reused, like the head's buffer
    response.url.assign(target_->url);
    response.duration = last_duration_;
    if (parser_->head().version_minor == 0) response.proto = "HTTP/1.0";
    return response;
  }

  void finish(HttpResponse response) {
    auto self = shared_from_this();  // forget() below may drop the session's reference
    finished_ = true;
    timeout_.cancel();
    // Closed, not destroyed: an operation may still be pending on it, and its handler
    // (holding this exchange) must find the stream alive.
    if (conn_) conn_->stream.close();
    if (head_.capacity() > 0) ctx_.give_back_text(std::move(head_));
    if (inbox_) ctx_.give_back_receive_buffer(std::move(inbox_));
    if (Session* session = std::exchange(session_, nullptr)) session->forget(this);
    // Delivered from the loop by a handler that holds only this exchange: Asio's cached
    // handler memory fits it, where one that carried the response did not.
    response_ = std::move(response);
    asio::post(ctx_.io, [self = std::move(self)] { self->deliver(); });
  }

  // Calls `done`; then the response's headers, body and URL (unless `done` moved them away)
  // and the parser go back to the worker for the next requests.
  void deliver() {
    if (discard_on_destroy_ && session_alive_.expired()) return;
    done_(std::move(response_));
    // A session never outlives its context: while it lives, the context does.
    if (session_alive_.expired()) return;
    if (req_.max_body_bytes == 0 && parser_) {
      parser_->reuse(std::move(response_.headers), std::move(response_.body));
      ctx_.give_back_http_parser(std::move(*parser_));  // nothing reads it once finished
    }
    ctx_.give_back_text(std::move(response_.url));
    ctx_.give_back_text(std::move(req_.url));
  }

  std::string current_url() const { return target_ ? target_->url : req_.url; }
  std::string description() const { return req_.method + " " + current_url(); }

  Session* session_;  // null once finished: the session may be gone
  ClientContext& ctx_;
  HttpRequest req_;  // the current hop's method, body and headers
  const std::optional<MetricId> named_metric_;  // http.request.<name>, every hop's response
  Done done_;
  const bool discard_on_destroy_;
  std::weak_ptr<const char> session_alive_;  // expires with the session
  std::string host_override_;
  std::string user_cookie_;
  // User-Agent and Accept-Encoding when the script set neither (string literals).
  static constexpr std::size_t kDefaultHeaders = 2;
  std::array<proto::HeaderView, kDefaultHeaders> default_headers_;
  std::size_t default_header_count_ = 0;
  WorkerTimer timeout_;  // the whole request's, redirects included
  std::shared_ptr<const UrlTarget> target_;  // this hop's; null before the first
  bool unverified_ = false;  // this hop is TLS without verification: its own connection pool
  std::unique_ptr<Connection> conn_;
  std::unique_ptr<Connection> retired_;  // the stale connection a retry replaced
  std::string head_;
  // Null only while a long wait waits (HttpRequest::long_wait): taken when its answer comes.
  std::optional<proto::HttpResponseParser> parser_;
  HttpResponse response_;  // from finish() to deliver()
  Nanos started_ = 0;  // when the scenario made the request
  Nanos write_started_ = 0;
  Nanos last_byte_at_ = 0;  // when the read that completed the response returned
  Nanos last_duration_ = 0;
  int redirects_followed_ = 0;
  // A plain connection's waiting read lands here (taken on the first wait, given back once
  // finished: the stream is closed then, so no read is pending into it).
  std::unique_ptr<ClientContext::ReceiveBuffer> inbox_;
  bool hop_sent_ = false;  // request_sent() counted for this hop
  bool retried_ = false;
  bool finished_ = false;
};

void Session::close_all() {
  pools.clear();
  std::vector<std::shared_ptr<Exchange>> pending = std::move(in_flight);
  in_flight.clear();
  for (auto& exchange : pending) exchange->cut_off();
}

}  // namespace

struct HttpSession::Impl : Session {
  using Session::Session;

  // Made by the first HTTP/2 request: a VU that never asks for HTTP/2 pays nothing for it.
  Http2Session& http2_session(HttpSession& owner) {
    if (!http2) http2 = std::make_unique<Http2Session>(ctx, owner, cookies, discard_on_destroy);
    return *http2;
  }
  std::unique_ptr<Http2Session> http2;
};

HttpSession::HttpSession(ClientContext& ctx, OnDestroy on_destroy)
    : impl_(std::make_unique<Impl>(ctx, on_destroy)) {}

HttpSession::~HttpSession() {
  if (impl_->http2) impl_->http2->close_all();
  impl_->close_all();
}

void HttpSession::request(HttpRequest req, std::function<void(HttpResponse&&)> done) {
  // The name's row is found now, in the caller's call, not when the response arrives: a
  // clash then threw inside a read handler, out of the worker's loop, and ended the process.
  std::optional<MetricId> named_metric;
  if (!req.name.empty()) named_metric = impl_->named_metric(req.name);
  if (req.http2) return impl_->http2_session(*this).request(std::move(req), named_metric, std::move(done));
  auto exchange = std::make_shared<Exchange>(*impl_, std::move(req), named_metric, std::move(done));
  impl_->in_flight.push_back(exchange);
  exchange->start();
}

void HttpSession::close_all() {
  if (impl_->http2) impl_->http2->close_all();
  impl_->close_all();
}

proto::CookieJar& HttpSession::cookies() { return impl_->cookies; }

std::size_t HttpSession::idle_connections() const { return impl_->idle_count(); }
std::uint64_t HttpSession::liveness_checks() const { return impl_->liveness_checks; }
std::size_t HttpSession::http2_connections() const { return impl_->http2 ? impl_->http2->connections() : 0; }

void HttpSession::check_name(const std::string& name) {
  if (!name.empty()) impl_->named_metric(name);
}

std::weak_ptr<const void> HttpSession::lifetime() const { return impl_->alive; }

}  // namespace stampede::clients
