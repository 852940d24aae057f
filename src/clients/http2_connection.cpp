// One HTTP/2 connection, followed top to bottom: start() resolves and connects (TLS offers
// "h2" then "http/1.1" by ALPN) -> open: write the codec's output (preface, SETTINGS, the
// requests queued while connecting) -> read what arrives into the worker's shared buffer and
// feed the codec, which reports each stream's end -> write what that made the codec say
// (WINDOW_UPDATE, SETTINGS and PING acknowledgements) -> ... -> closed.
#include "clients/http2_connection.hpp"

#include <boost/asio/post.hpp>

#include "clients/client_context.hpp"
#include "transport/errors.hpp"

namespace stampede::clients {

namespace asio = boost::asio;
using boost::system::error_code;

namespace {

// Offered by ALPN, most preferred first: a server that does not speak h2 may still pick
// HTTP/1.1, and the requests then go over HTTP/1.1 (Http2Request::on_declined).
constexpr std::string_view kAlpnOffer{"\x02h2\x08http/1.1", 12};
}  // namespace

Http2Connection::Http2Connection(ClientContext& ctx, const UrlTarget& target, bool insecure)
    : ctx_(ctx),
      host_(target.host),
      port_(target.port),
      tls_(target.tls),
      insecure_(insecure),
      stream_(ctx.io, target.tls ? &ctx.tls(!insecure) : nullptr),
      codec_(*this) {}

Http2Connection::~Http2Connection() = default;

void Http2Connection::start(transport::Resolver& resolver) {
  if (auto endpoints = resolver.find(host_, port_)) return connect(std::move(endpoints));
  resolver.async_resolve(host_, port_,
                         [self = shared_from_this()](const error_code& ec, transport::Resolver::Endpoints endpoints) {
                           if (self->state_ != State::connecting) return;
                           if (ec) {
                             const transport::Failure failure{transport::Step::resolve, ec, self->host_};
                             return self->on_connected(&failure);
                           }
                           self->connect(std::move(endpoints));
                         });
}

void Http2Connection::connect(transport::Resolver::Endpoints endpoints) {
  transport::Stream::ConnectOptions options;
  if (!ctx_.local_addresses.empty()) {
    options.sources = transport::SourceAddresses(ctx_.local_addresses, ctx_.next_local_address);
  }
  options.server_name = host_;
  options.verify = !insecure_;
  if (tls_) options.alpn = kAlpnOffer;
  stream_.async_connect(std::move(endpoints), std::move(options),
                        [self = shared_from_this()](const transport::Failure* failure) { self->on_connected(failure); });
}

void Http2Connection::on_connected(const transport::Failure* failure) {
  if (state_ != State::connecting) return;
  if (failure != nullptr) {
    return end_connection(Http2Request::Failure{std::string(transport::failure_reason(*failure)),
                                                transport::describe_failure(*failure), false,
                                                transport::is_local_exhaustion(*failure)});
  }
  if (tls_ && stream_.negotiated_protocol() != "h2") {
    // The server speaks HTTP/1.1 only (or ALPN not at all): nothing was sent; the requests go
    // back to be sent over HTTP/1.1, and the socket is closed (one handshake is the price,
    // once per origin and VU: the session remembers).
    state_ = State::declined;
    stream_.close();
    codec_.end_all("declined");  // each ends as connection_ended; on_stream_end turns it into on_declined
    return;
  }
  state_ = State::open;
  flush();
  on_readable({});  // TLS may already hold the server's first frames
}

std::int32_t Http2Connection::submit(std::span<const proto::Http2Field> fields, std::string_view body, bool has_body,
                                     Http2Request& request) {
  if (!accepts_requests()) return 0;
  std::string error;
  const std::int32_t id = codec_.submit(fields, body, has_body, &request, error);
  if (id == 0) return 0;
  // Written from the loop, with whatever else this turn submits: several requests started
  // together (http.batch) leave in one write, and no request ends inside submit().
  if (state_ == State::open && !writing_) {
    writing_ = true;  // the posted flush writes; nothing else may start one meanwhile
    asio::post(ctx_.io, [self = shared_from_this()] {
      self->writing_ = false;
      self->flush();
    });
  }
  return id;
}

void Http2Connection::cancel(std::int32_t stream_id) {
  codec_.cancel(stream_id);
  if (state_ == State::open) flush();
}

bool Http2Connection::accepts_requests() const {
  return (state_ == State::connecting || state_ == State::open) && !ending_ && codec_.accepts_requests();
}

void Http2Connection::flush() {
  if (writing_ || (state_ != State::open && state_ != State::draining)) return;
  if (out_.capacity() == 0) out_ = ctx_.take_text();
  flush_at_ = ctx_.clock.now();  // the requests whose HEADERS this output carries start now
  const bool ok = codec_.take_output(out_);
  if (out_.empty()) {
    ctx_.give_back_text(std::move(out_));
    out_ = std::string();
    if (!ok) return end_connection({"protocol", codec_.error()});
    return finish_if_done();
  }
  writing_ = true;
  stream_.async_write(asio::buffer(out_), [self = shared_from_this(), ok](const error_code& ec, std::size_t) {
    self->writing_ = false;
    self->out_.clear();
    if (self->state_ == State::closed) return;
    if (!ok) return self->end_connection({"protocol", self->codec_.error()});
    if (ec) {
      const transport::Failure failure{transport::Step::write, ec, {}};
      return self->end_connection({std::string(transport::failure_reason(failure)),
                                   transport::describe_failure(failure), false,
                                   transport::is_local_exhaustion(failure)});
    }
    self->flush();
  });
}

void Http2Connection::wait_readable() {
  stream_.async_wait_readable([self = shared_from_this()](const error_code& ec) { self->on_readable(ec); });
}

void Http2Connection::on_readable(const error_code& ec) {
  if (state_ == State::closed || state_ == State::declined) return;
  auto fail = [this](transport::Step step, const error_code& code) {
    const transport::Failure failure{step, code, {}};
    end_connection({std::string(transport::failure_reason(failure)), transport::describe_failure(failure), false,
                    transport::is_local_exhaustion(failure)});
  };
  if (ec) return fail(transport::Step::read, ec);
  auto self = shared_from_this();  // a stream's end may drop the session's reference
  std::string& buffer = ctx_.read_buffer();
  for (int reads = 0; reads < kReadsPerTurn; ++reads) {
    error_code read_ec;
    const std::size_t n = stream_.read_available(asio::buffer(buffer), read_ec);
    if (n > 0) {
      last_read_at_ = ctx_.clock.now();  // before decoding: decoding is not the server's time
      if (!codec_.feed(std::string_view(buffer.data(), n))) return end_connection({"protocol", codec_.error()});
      if (state_ == State::closed) return;
      continue;
    }
    if (read_ec == asio::error::would_block) {
      flush();
      if (state_ == State::closed) return;
      return wait_readable();
    }
    if (transport::is_end_of_stream(read_ec)) {
      const std::string what = goaway_ ? "the server sent GOAWAY (" + proto::http2_error_name(goaway_code_) +
                                             ") and closed the connection before the response was complete"
                                       : "the server closed the connection before the response was complete";
      return end_connection({goaway_ ? "goaway " + proto::http2_error_name(goaway_code_) : "closed", what});
    }
    return fail(transport::Step::read, read_ec);
  }
  flush();
  if (state_ == State::closed) return;
  asio::post(ctx_.io, [self] { self->on_readable({}); });
}

void Http2Connection::finish_if_done() {
  // Both sides are done (a GOAWAY and no stream left): the connection ends quietly.
  if (state_ == State::draining && codec_.open_requests() == 0 && codec_.finished()) {
    state_ = State::closed;
    stream_.close();
  }
}

void Http2Connection::end_connection(const Http2Request::Failure& failure) {
  if (state_ == State::closed || ending_) return;
  ending_ = true;
  auto self = shared_from_this();  // the streams' ends may drop the session's reference
  stream_.close();
  // The streams still open fail with the connection's reason: each on_stream_end below.
  ending_failure_ = failure;
  codec_.end_all(failure.what);
  state_ = State::closed;
}

void Http2Connection::close(const std::string& why) {
  end_connection({"closed", why});
}

void Http2Connection::on_request_sent(void* request) { static_cast<Http2Request*>(request)->on_sent(flush_at_); }

void Http2Connection::on_stream_end(void* request, proto::Http2StreamEnd end, std::uint32_t error_code,
                                     std::string_view detail, proto::Http2Response& response) {
  auto& r = *static_cast<Http2Request*>(request);
  using End = proto::Http2StreamEnd;
  switch (end) {
    case End::complete:
      return r.on_response(last_read_at_, response);
    case End::reset_by_server:
      return r.on_failed({"rst_stream " + proto::http2_error_name(error_code),
                          "the server reset the stream (RST_STREAM " + proto::http2_error_name(error_code) + ")"});
    case End::malformed:
      return r.on_failed({"protocol", std::string(detail)});
    case End::refused: {
      // Not processed: a graceful GOAWAY (the server rotating connections, shutting down)
      // lets it be sent once more elsewhere; a GOAWAY with an error is the answer.
      const std::string code = proto::http2_error_name(goaway_ ? goaway_code_ : error_code);
      return r.on_failed({"goaway " + code,
                          "the server sent GOAWAY (" + code + ", last stream " + std::to_string(goaway_last_stream_) +
                              ") without processing the request",
                          goaway_ && goaway_code_ == 0});
    }
    case End::connection_ended:
      if (state_ == State::declined) return r.on_declined();
      return r.on_failed(ending_failure_);
  }
}

void Http2Connection::on_goaway(std::int32_t last_stream_id, std::uint32_t error_code, std::string_view) {
  goaway_ = true;
  goaway_code_ = error_code;
  goaway_last_stream_ = last_stream_id;
  if (state_ == State::open) state_ = State::draining;
}

}  // namespace stampede::clients
