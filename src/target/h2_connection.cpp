#include "target/h2_connection.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <algorithm>
#include <exception>

#include "proto/http_text.hpp"
#include "target/route_table.hpp"
#include "target/worker.hpp"

namespace stampede::target {
namespace {

// The worker's output buffers are lent for a write and taken back after it (Worker::take_output_buffer).
constexpr std::size_t kMaxSpareExchanges = 128;

// HTTP/2 forbids these in a response (RFC 9113 8.2.2); the framing does their job.
bool is_connection_specific(std::string_view name) {
  using proto::http_text::iequals;
  return iequals(name, "connection") || iequals(name, "keep-alive") || iequals(name, "transfer-encoding") ||
         iequals(name, "upgrade") || iequals(name, "proxy-connection");
}

// The route's extra header lines ("Name: value\r\n"), as lowercase fields. `names` holds the
// lowercased names until the response is submitted (the codec copies them).
void add_header_lines(std::string_view lines, std::vector<std::string>& names, std::vector<proto::Http2Field>& fields) {
  while (!lines.empty()) {
    const std::size_t end = lines.find("\r\n");
    const std::string_view line = lines.substr(0, end);
    lines.remove_prefix(end == std::string_view::npos ? lines.size() : end + 2);
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view name = line.substr(0, colon);
    if (is_connection_specific(name)) continue;
    std::string lower(name);
    for (char& c : lower) c = proto::http_text::ascii_lower(c);
    names.push_back(std::move(lower));
    fields.push_back({names.back(), proto::http_text::trim_ows(line.substr(colon + 1))});
  }
}

}  // namespace

H2Connection::H2Connection(Worker& worker, boost::asio::ssl::context* tls)
    : worker_(worker), stream_(worker.io(), tls), codec_(*this) {}

H2Connection::~H2Connection() = default;

void H2Connection::start(Socket socket, std::string early, Nanos early_received_at) {
  received_at_ = early_received_at != 0 ? early_received_at : SteadyClock::monotonic_now();
  stream_.async_accept(std::move(socket),
                       [self = shared_from_this(), early = std::move(early)](const transport::Failure* failure) {
                         if (failure != nullptr) return self->close();  // a client that gave up, or not TLS
                         self->on_started(early);
                       });
}

void H2Connection::on_started(const std::string& early) {
  // TLS: our ALPN callback picks "h2" or refuses the handshake; no ALPN at all is taken as
  // HTTP/2 with prior knowledge, and a client that is not gets a GOAWAY from the codec.
  if (!early.empty() && !codec_.feed(early)) return close();
  flush();
  read_available();
}

void H2Connection::read_available() {
  auto& buffer = worker_.read_buffer();
  while (!closed_) {
    boost::system::error_code ec;
    const std::size_t n = stream_.read_available(asio::buffer(buffer), ec, received_at_);
    if (n == 0) {
      if (would_block(ec)) {
        flush();
        if (!closed_) wait_readable();
        return;
      }
      return close();  // the client closed, or reset: nobody to answer
    }
    const bool ok = codec_.feed(std::string_view(buffer.data(), n));
    // Every read ends the worker's holds that are due, as for HTTP/1.1.
    worker_.requests_read();
    if (!ok) {
      flush();  // the GOAWAY that says why, if the codec has one
      return close();
    }
  }
}

void H2Connection::wait_readable() {
  stream_.async_wait_readable([self = shared_from_this()](const boost::system::error_code& ec) {
    if (self->closed_) return;
    if (ec) return self->close();
    self->read_available();
  });
}

H2Connection::Exchange* H2Connection::find(std::int32_t stream_id) {
  for (auto& e : exchanges_) {
    if (e->stream_id == stream_id && !e->closed) return e.get();
  }
  return nullptr;
}

H2Connection::Exchange& H2Connection::take_exchange(std::int32_t stream_id) {
  std::unique_ptr<Exchange> e;
  if (spare_.empty()) {
    e = std::make_unique<Exchange>();
  } else {
    e = std::move(spare_.back());
    spare_.pop_back();
    e->slot.recycle();
  }
  e->stream_id = stream_id;
  e->held = false;
  e->closed = false;
  exchanges_.push_back(std::move(e));
  return *exchanges_.back();
}

// The exchange is done with (its stream closed and no hold points at it).
void H2Connection::release(Exchange& exchange) {
  auto it = std::find_if(exchanges_.begin(), exchanges_.end(), [&](const auto& e) { return e.get() == &exchange; });
  if (it == exchanges_.end()) return;
  std::unique_ptr<Exchange> e = std::move(*it);
  std::swap(*it, exchanges_.back());
  exchanges_.pop_back();
  if (e->slot.in_flight) worker_.in_flight().leave();  // never answered: the client reset it
  e->slot.in_flight = false;
  if (spare_.size() < kMaxSpareExchanges) spare_.push_back(std::move(e));
}

void H2Connection::on_request(std::int32_t stream_id, proto::HttpRequest& request) {
  Exchange& exchange = take_exchange(stream_id);
  exchange.slot.received_at = received_at_;
  dispatch(exchange, request);
}

void H2Connection::dispatch(Exchange& exchange, proto::HttpRequest& request) {
  PendingResponse& slot = exchange.slot;
  slot.head_request = request.method == "HEAD";
  std::string_view path;
  std::string_view query;
  split_target(request.target, path, query);
  if (path.substr(0, 3) == "/__") {
    slot.measured = false;
    slot.response.set_static(404, kJson, R"({"error":"the control endpoints are served over HTTP/1.1"})");
    return respond(exchange);
  }
  // As Connection::dispatch: a route, a drawn hold for every measured request.
  const auto match = worker_.shared().routes->find(request.method, path);
  slot.measured = match.route == nullptr || match.route->measured;
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
    held += worker_.in_flight().enter();  // --capacity
  }
  if (held <= 0) return respond(exchange);
  exchange.held = true;
  worker_.hold(slot.received_at + held, shared_from_this(), slot);
}

void H2Connection::end_hold(PendingResponse& slot) {
  auto it = std::find_if(exchanges_.begin(), exchanges_.end(), [&](const auto& e) { return &e->slot == &slot; });
  if (it == exchanges_.end()) return;
  Exchange& exchange = **it;
  exchange.held = false;
  if (exchange.closed || closed_) return release(exchange);  // the client reset it meanwhile
  respond(exchange);
  flush();
}

void H2Connection::respond(Exchange& exchange) {
  const Response& response = exchange.slot.response;
  exchange.slot.ready = true;
  std::vector<std::string> names;
  std::vector<proto::Http2Field> fields;
  names.reserve(8);
  fields.reserve(8);
  fields.push_back({"server", "stampede-target"});
  std::string_view date = worker_.date_line();  // "Date: ...\r\n"
  if (const auto colon = date.find(':'); colon != std::string_view::npos) {
    date = proto::http_text::trim_ows(date.substr(colon + 1, date.size() - colon - 1));
    while (!date.empty() && (date.back() == '\r' || date.back() == '\n')) date.remove_suffix(1);
    fields.push_back({"date", date});
  }
  if (!response.content_type.empty()) fields.push_back({"content-type", response.content_type});
  add_header_lines(response.headers, names, fields);
  codec_.respond(exchange.stream_id, response.status, fields, response.body_view(), exchange.slot.head_request);
}

void H2Connection::on_response_sent(std::int32_t stream_id) {
  Exchange* exchange = find(stream_id);
  if (exchange == nullptr) return;
  PendingResponse& slot = exchange->slot;
  taken_.push_back(Written{slot.received_at, slot.measured, slot.in_flight});
  slot.in_flight = false;  // left when written (finish_write), not when the stream closes
}

void H2Connection::on_stream_closed(std::int32_t stream_id) {
  Exchange* exchange = find(stream_id);
  if (exchange == nullptr) return;
  exchange->closed = true;
  if (!exchange->held) release(*exchange);
}

void H2Connection::flush() {
  if (writing_ || closed_) return;
  if (out_.capacity() == 0) out_ = worker_.take_output_buffer();
  const bool ok = codec_.take_output(out_);
  if (out_.empty()) {
    worker_.return_output_buffer(out_);
    if (!ok || codec_.finished()) close();
    return;
  }
  in_output_.insert(in_output_.end(), taken_.begin(), taken_.end());
  taken_.clear();
  writing_ = true;
  // A hold ends when its response is handed to the write (as on HTTP/1.1, connection.cpp),
  // not when the completion runs, which may be after the client has read it.
  const Nanos handed_at = SteadyClock::monotonic_now();
  stream_.async_write(asio::buffer(out_),
                      [self = shared_from_this(), handed_at](const boost::system::error_code& ec, std::size_t) {
                        self->writing_ = false;
                        if (ec || self->closed_) return self->close();
                        self->finish_write(handed_at);
                        self->flush();
                      });
}

void H2Connection::finish_write(Nanos handed_at) {
  auto& held = worker_.held_times();
  for (const Written& w : in_output_) {
    if (w.measured) held.push_back(handed_at - w.received_at);
    if (w.in_flight) worker_.in_flight().leave();
  }
  in_output_.clear();
  out_.clear();
  worker_.return_output_buffer(out_);
}

void H2Connection::close() {
  if (closed_) return;
  closed_ = true;
  stream_.close();
  // Responses taken or in a write that will not complete: never answered.
  for (const Written& w : taken_) {
    if (w.in_flight) worker_.in_flight().leave();
  }
  for (const Written& w : in_output_) {
    if (w.in_flight) worker_.in_flight().leave();
  }
  taken_.clear();
  in_output_.clear();
  // Held ones are released when their hold ends (the hold keeps this object alive).
  for (std::size_t i = 0; i < exchanges_.size();) {
    Exchange& e = *exchanges_[i];
    e.closed = true;
    if (e.held) {
      ++i;
      continue;
    }
    release(e);  // swaps the last one into place i
  }
}

}  // namespace stampede::target
