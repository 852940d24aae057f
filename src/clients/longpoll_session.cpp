// LongPollSession, followed top to bottom: connect -> the first GET -> opened -> GET, held by
// the server -> messages up to the channels client -> GET again; send -> queued -> one POST
// per loop turn -> answered -> the next POST. What each answer means is LongPollCycle's call.
#include "clients/longpoll_session.hpp"

#include <boost/asio/post.hpp>

#include <stdexcept>

#include "clients/http_session.hpp"
#include "clients/longpoll_cycle.hpp"
#include "proto/phoenix_longpoll.hpp"

namespace stampede::clients {

class LongPollSession::Impl : public std::enable_shared_from_this<Impl> {
 public:
  Impl(ClientContext& ctx, Callbacks callbacks)
      : ctx_(ctx),
        callbacks_(std::move(callbacks)),
        poll_metric_(ctx.sink.id("longpoll.poll", metrics::Kind::Timing)),
        error_metric_(ctx.sink.id("longpoll.errors", metrics::Kind::Counter)) {}

  // The HttpSession may be in one of its own callbacks right now (a message delivered from a
  // poll's answer ended the VU's iteration): it goes from the loop, a moment later.
  ~Impl() { drop_http(); }

  void connect(std::string endpoint_url, Options options, std::function<void(ConnectResult)> done) {
    if (cycle_) throw std::logic_error("LongPollSession::connect called twice");
    cycle_.emplace(std::move(endpoint_url));
    options_ = std::move(options);
    http_ = std::make_unique<HttpSession>(ctx_, HttpSession::OnDestroy::discard);
    connect_done_ = std::move(done);
    ctx_.sink.request_sent();  // the first GET is the socket's handshake
    get(options_.connect_timeout);
  }

  void reopen(std::function<void(ConnectResult)> done) {
    if (!cycle_) throw std::logic_error("LongPollSession::reopen before connect");
    cycle_->reopen();
    drop_http();
    http_ = std::make_unique<HttpSession>(ctx_, HttpSession::OnDestroy::discard);
    connect_done_ = std::move(done);
    ctx_.sink.request_sent();  // the first GET again: the socket's handshake
    get(options_.connect_timeout);
  }

  bool send(std::string_view data, bool binary) {
    if (!cycle_ || cycle_->state() != LongPollCycle::State::Open) return false;
    // phoenix.js collects the sends of one event-loop turn into one POST (setTimeout 0).
    if (cycle_->queue(data, binary)) {
      boost::asio::post(ctx_.io, [weak = weak_from_this()] {
        if (auto self = weak.lock()) self->publish();
      });
    }
    return true;
  }

  void close() {
    if (cycle_) cycle_->close();
    connect_done_ = nullptr;
    drop_http();
  }

  bool is_open() const { return cycle_ && cycle_->state() == LongPollCycle::State::Open; }

 private:
  HttpRequest request(std::string method, Nanos timeout) const {
    HttpRequest req;
    req.method = std::move(method);
    req.url = cycle_->request_url();
    req.headers = options_.headers;
    req.timeout = timeout;
    req.insecure = options_.insecure;
    req.measured = false;  // longpoll.poll and the channels client measure this traffic
    return req;
  }

  void get(Nanos timeout) {
    HttpRequest req = request("GET", timeout);
    req.headers.emplace_back("accept", proto::phx::longpoll::kPollAccept);
    // Once open, a poll is held by the server until it has something: it waits owning no
    // buffer or parser (most VUs' one request in flight, most of the time).
    req.long_wait = cycle_->state() == LongPollCycle::State::Open;
    http_->request(std::move(req), [weak = weak_from_this()](HttpResponse&& response) {
      if (auto self = weak.lock()) self->on_poll(response);
    });
  }

  void on_poll(const HttpResponse& response) {
    if (response.error.empty()) ctx_.sink.record(poll_metric_, response.duration);
    const bool connecting = cycle_->state() == LongPollCycle::State::Connecting;
    LongPollCycle::PollResult result = cycle_->on_poll(response.status, response.body, response.error_reason);
    if (connecting && (result.opened || result.close)) {
      finish_connect(response, result);
      if (!is_open()) return;
    }
    // Held for the deliveries: a message may make the owner drop this session.
    const auto keep = shared_from_this();
    for (const std::string& message : result.messages) {
      if (cycle_->state() == LongPollCycle::State::Closed) return;
      if (callbacks_.on_message) callbacks_.on_message(message);
    }
    if (result.close) {
      if (!connecting) end(*result.close);
      return;
    }
    if (cycle_->state() == LongPollCycle::State::Closed) return;
    get(options_.poll_timeout);
    // Frames queued while the socket was connecting go now.
    if (result.opened) publish();
  }

  void finish_connect(const HttpResponse& response, const LongPollCycle::PollResult& result) {
    ConnectResult out;
    out.duration = response.duration;
    out.status = response.status;
    out.headers = response.headers;
    if (result.close) {
      out.error = result.close->message;
      out.error_reason = result.close->error_reason;
      out.local_exhaustion = response.local_exhaustion;
      if (result.close->status != 0) out.status = result.close->status;
      ctx_.sink.add_error(error_metric_, result.close->error_reason);
      drop_http();
    }
    ctx_.sink.request_finished(!result.close);
    if (auto done = std::move(connect_done_)) done(out);
  }

  void publish() {
    if (!cycle_ || !http_) return;
    std::optional<std::string> body = cycle_->take_batch();
    if (!body) return;
    HttpRequest req = request("POST", options_.poll_timeout);
    req.headers.emplace_back("content-type", proto::phx::longpoll::kBatchContentType);
    req.body = std::move(*body);
    http_->request(std::move(req), [weak = weak_from_this()](HttpResponse&& response) {
      auto self = weak.lock();
      if (!self) return;
      if (auto close = self->cycle_->on_publish(response.status, response.body, response.error_reason)) {
        self->end(*close);
        return;
      }
      self->publish();
    });
  }

  // The socket ended by itself: counted, its requests dropped, the owner told.
  void end(const LongPollCycle::Close& close) {
    ctx_.sink.add_error(error_metric_, close.error_reason);
    drop_http();
    const auto keep = shared_from_this();
    if (callbacks_.on_close) callbacks_.on_close(close.code, close.reason, close.message);
  }

  void drop_http() {
    if (!http_) return;
    std::shared_ptr<HttpSession> http(std::move(http_));
    boost::asio::post(ctx_.io, [http] {});
  }

  ClientContext& ctx_;
  Callbacks callbacks_;
  metrics::MetricId poll_metric_;
  metrics::MetricId error_metric_;
  Options options_;
  std::optional<LongPollCycle> cycle_;
  std::unique_ptr<HttpSession> http_;
  std::function<void(ConnectResult)> connect_done_;
};

LongPollSession::LongPollSession(ClientContext& ctx, Callbacks callbacks)
    : impl_(std::make_shared<Impl>(ctx, std::move(callbacks))) {}

LongPollSession::~LongPollSession() { impl_->close(); }

void LongPollSession::connect(std::string endpoint_url, Options options, std::function<void(ConnectResult)> done) {
  impl_->connect(std::move(endpoint_url), std::move(options), std::move(done));
}

bool LongPollSession::send(std::string_view data, bool binary) { return impl_->send(data, binary); }

void LongPollSession::reopen(std::function<void(ConnectResult)> done) { impl_->reopen(std::move(done)); }

void LongPollSession::close() { impl_->close(); }

bool LongPollSession::is_open() const { return impl_->is_open(); }

}  // namespace stampede::clients
