// One request over HTTP/2, top to bottom: parse the URL -> the origin's connection (the
// session's, or a new one) -> submit the stream (its HEADERS leave with the connection's next
// write: the service time starts) -> the response's last byte: record the service time, store
// cookies -> follow a redirect (a new hop, maybe on another origin's connection) or deliver.
#include "clients/http2_exchange.hpp"

#include <boost/asio/post.hpp>
#include <algorithm>
#include <array>
#include <chrono>
#include <vector>

#include "clients/http2_session.hpp"
#include "clients/http_hop.hpp"
#include "proto/ascii.hpp"
#include "proto/duration.hpp"
#include "proto/http_text.hpp"

namespace stampede::clients {

namespace {

using proto::http_text::iequals;

constexpr std::string_view kProto = "HTTP/2";

// Connection-specific headers: HTTP/2 forbids them (RFC 9113 8.2.2), and a server resets a
// stream that carries one. The connection does their job, so they are left out.
bool is_connection_specific(std::string_view name) {
  return iequals(name, "connection") || iequals(name, "keep-alive") || iequals(name, "proxy-connection") ||
         iequals(name, "transfer-encoding") || iequals(name, "upgrade");
}

// What the HTTP/1.1 request writer refuses too: header injection, and names that are not tokens.
std::string field_problem(std::string_view name, std::string_view value) {
  if (!proto::http_text::is_token(name)) return "the header name \"" + std::string(name) + "\" is not a token";
  if (value.find_first_of(std::string_view("\r\n\0", 3)) != std::string_view::npos) {
    return "the value of header \"" + std::string(name) + "\" holds CR, LF or NUL";
  }
  return {};
}

using proto::ascii::lowercase;

}  // namespace

Http2Exchange::Http2Exchange(Http2Session& session, HttpRequest req, std::optional<metrics::MetricId> named_metric,
                             Done done)
    : session_(&session),
      ctx_(session.ctx),
      req_(std::move(req)),
      named_metric_(named_metric),
      done_(std::move(done)),
      discard_on_destroy_(session.discard_on_destroy),
      session_alive_(session.alive) {}

Http2Exchange::~Http2Exchange() = default;

void Http2Exchange::start() {
  started_ = ctx_.clock.now();
  prepare_headers();
  ctx_.timers().schedule_after(timeout_, std::max<Nanos>(req_.timeout, 0),
                               [](void* self) { static_cast<Http2Exchange*>(self)->on_timeout(); }, this);
  std::string why;
  std::shared_ptr<const UrlTarget> first = ctx_.http_urls.find_or_parse(req_.url, why);
  if (!first) return fail("url", why);
  begin_hop(std::move(first));
}

// The script's Host becomes :authority, its Cookie is merged with the jar's; Content-Length
// is computed; defaults for User-Agent and Accept-Encoding, as for HTTP/1.1.
void Http2Exchange::prepare_headers() {
  bool has_user_agent = false;
  bool has_accept_encoding = false;
  auto& headers = req_.headers;
  for (auto it = headers.begin(); it != headers.end();) {
    const std::string& name = it->first;
    if (iequals(name, "host")) {
      host_override_ = it->second;
    } else if (iequals(name, "cookie")) {
      user_cookie_ += (user_cookie_.empty() ? "" : "; ") + it->second;
    } else if (!iequals(name, "content-length")) {
      has_user_agent = has_user_agent || iequals(name, "user-agent");
      has_accept_encoding = has_accept_encoding || iequals(name, "accept-encoding");
      ++it;
      continue;
    }
    it = headers.erase(it);
  }
  default_user_agent_ = !has_user_agent;
  default_accept_encoding_ = !has_accept_encoding;
}

void Http2Exchange::begin_hop(std::shared_ptr<const UrlTarget> next) {
  if (target_ && next->origin != target_->origin) {
    // As for HTTP/1.1: what the script gave for the first origin does not follow elsewhere.
    host_override_.clear();
    user_cookie_.clear();
    std::erase_if(req_.headers, [](const auto& h) { return iequals(h.first, "authorization"); });
  }
  target_ = std::move(next);
  unverified_ = target_->tls && req_.insecure;
  hop_sent_ = false;
  retried_ = false;
  if (target_->tls && session_->http1_only(target_->origin, unverified_)) return send_over_http1();
  submit();
}

void Http2Exchange::submit() {
  if (!proto::http_text::is_token(req_.method)) {
    return fail("protocol", "the request cannot be sent: the method \"" + req_.method + "\" is not a token");
  }
  std::string cookie = session_->cookies.cookies().empty()
                           ? std::string()
                           : session_->cookies.header_for(target_->host, target_->path, target_->tls,
                                                          std::chrono::duration_cast<std::chrono::seconds>(
                                                              std::chrono::system_clock::now().time_since_epoch())
                                                              .count());
  if (!user_cookie_.empty()) cookie = cookie.empty() ? user_cookie_ : user_cookie_ + "; " + cookie;
  const bool has_body = !req_.body.empty() || req_.method == "POST" || req_.method == "PUT" || req_.method == "PATCH";
  const std::string length = std::to_string(req_.body.size());
  // Names lowercased (HTTP/2 wants them so); the strings live until submit() returns, and
  // nghttp2 copies them.
  std::vector<std::string> names;
  names.reserve(req_.headers.size());
  std::vector<proto::Http2Field> fields;
  fields.reserve(req_.headers.size() + 9);
  fields.push_back({":method", req_.method});
  fields.push_back({":scheme", target_->tls ? "https" : "http"});
  fields.push_back({":authority", host_override_.empty() ? target_->host_header : host_override_});
  fields.push_back({":path", target_->request_target});
  for (const auto& [name, value] : req_.headers) {
    if (is_connection_specific(name) || (iequals(name, "te") && !iequals(value, "trailers"))) continue;
    if (std::string problem = field_problem(name, value); !problem.empty()) {
      return fail("protocol", "the request cannot be sent: " + problem);
    }
    names.push_back(lowercase(name));
    fields.push_back({names.back(), value});
  }
  if (has_body) fields.push_back({"content-length", length});
  if (default_user_agent_) fields.push_back({"user-agent", "stampede/0.1"});
  if (default_accept_encoding_) fields.push_back({"accept-encoding", "gzip, deflate"});
  if (!cookie.empty()) {
    if (std::string problem = field_problem("cookie", cookie); !problem.empty()) {
      return fail("protocol", "the request cannot be sent: " + problem);
    }
    fields.push_back({"cookie", cookie});
  }
  conn_ = session_->connection_for(*target_, unverified_);
  stream_id_ = conn_->submit(fields, req_.body, has_body, *this);
  if (stream_id_ == 0) {
    conn_.reset();
    return fail("protocol", "the request cannot be sent: the HTTP/2 connection takes no new streams");
  }
}

// The origin answered TLS with HTTP/1.1: the rest of this request (this hop and its
// redirects) goes to the HTTP/1.1 client, which counts and times it.
void Http2Exchange::send_over_http1() {
  const Nanos left = req_.timeout - (ctx_.clock.now() - started_);
  if (left <= 0) return on_timeout();
  HttpRequest rest;
  rest.method = req_.method;
  rest.url = target_->url;
  rest.headers = req_.headers;
  if (!host_override_.empty()) rest.headers.emplace_back("host", host_override_);
  if (!user_cookie_.empty()) rest.headers.emplace_back("cookie", user_cookie_);
  rest.body = req_.body;
  rest.timeout = left;
  rest.max_redirects = std::max(req_.max_redirects - redirects_followed_, 0);
  rest.insecure = req_.insecure;
  rest.name = req_.name;
  rest.http2 = false;
  finished_ = true;
  timeout_.cancel();
  Http2Session* session = std::exchange(session_, nullptr);
  auto self = shared_from_this();
  session->forget(this);
  session->send_over_http1(std::move(rest), [self](HttpResponse&& response) {
    // Called by the HTTP/1.1 client, from the loop, as it would call `done` itself.
    self->done_(std::move(response));
  });
}

void Http2Exchange::on_sent(Nanos at) {
  write_started_ = at;
  if (!hop_sent_) {
    hop_sent_ = true;
    if (req_.measured) ctx_.sink.request_sent();
  }
}

void Http2Exchange::on_response(Nanos last_byte_at, proto::Http2Response& response) {
  if (finished_) return;
  conn_.reset();
  stream_id_ = 0;
  const Nanos service_time = last_byte_at - write_started_;
  last_duration_ = service_time;
  if (req_.measured) {
    ctx_.sink.record(session_->request_metric, service_time);
    if (named_metric_) ctx_.sink.record(*named_metric_, service_time);
  }
  store_cookies(session_->cookies, response.headers, *target_);

  HttpResponse out;
  out.status = response.status;
  out.headers = std::move(response.headers);
  out.body = std::move(response.body);
  out.url = target_->url;
  out.duration = service_time;
  out.proto = kProto;
  if (is_redirect(out.status) && req_.max_redirects > 0) {
    if (const std::string* location = proto::find_header(out.headers, "location")) {
      const std::string where = *location;
      last_redirect_ = std::move(out);
      return follow_redirect(where, last_redirect_.status);
    }
  }
  if (req_.measured) {
    ctx_.sink.request_finished(out.status < 400);
    if (out.status >= 400) ctx_.sink.add_error(session_->error_metric, "status " + std::to_string(out.status));
  }
  finish(std::move(out));
}

void Http2Exchange::follow_redirect(const std::string& location, int status) {
  if (redirects_followed_ >= req_.max_redirects) {
    return fail("redirects",
                "stopped after " + std::to_string(redirects_followed_) + " redirects (the request allows " +
                    std::to_string(req_.max_redirects) + ")",
                /*keep_response=*/true);
  }
  RedirectHop hop = resolve_redirect(*target_, location, status, req_.method);
  if (!hop.next) return fail("url", hop.why, /*keep_response=*/true);
  if (req_.measured) ctx_.sink.request_finished(true);
  ++redirects_followed_;
  if (hop.to_get) switch_to_get(req_.method, req_.body, req_.headers);
  begin_hop(std::move(hop.next));
}

void Http2Exchange::on_failed(const Failure& failure) {
  if (finished_) return;
  conn_.reset();
  stream_id_ = 0;
  // Never processed by the server (a graceful GOAWAY): once more, on a new connection.
  if (failure.retryable && !retried_) {
    retried_ = true;
    return submit();
  }
  fail(failure.reason, failure.what, false, failure.local_exhaustion);
}

void Http2Exchange::on_declined() {
  if (finished_) return;
  conn_.reset();
  stream_id_ = 0;
  session_->remember_http1_only(target_->origin, unverified_);
  send_over_http1();
}

void Http2Exchange::on_timeout() {
  if (finished_) return;
  fail("timeout", "no complete response within " + proto::format_duration(req_.timeout));
}

// The hop failed: counted as sent (if it never got that far) and failed, with the reason.
void Http2Exchange::fail(std::string_view reason, const std::string& what, bool keep_response, bool local_exhaustion) {
  if (finished_) return;
  if (!hop_sent_) {
    hop_sent_ = true;
    if (req_.measured) ctx_.sink.request_sent();
  }
  if (req_.measured) {
    ctx_.sink.request_finished(false);
    ctx_.sink.add_error(session_->error_metric, reason);
  }
  HttpResponse response = keep_response ? std::move(last_redirect_) : HttpResponse{};
  if (!keep_response) response.duration = 0;
  if (response.duration == 0) response.duration = ctx_.clock.now() - (write_started_ != 0 ? write_started_ : started_);
  response.url = current_url();
  response.error = description() + " failed: " + what;
  response.error_reason = std::string(reason);
  response.local_exhaustion = local_exhaustion;
  response.proto = kProto;
  finish(std::move(response));
}

void Http2Exchange::cut_off() {
  if (finished_) return;
  HttpResponse response;
  response.url = current_url();
  response.error = description() + " failed: the session was closed before the response arrived";
  response.error_reason = "closed";
  response.proto = kProto;
  finish(std::move(response));
}

void Http2Exchange::drop_stream() {
  if (conn_ && stream_id_ != 0) conn_->cancel(stream_id_);
  conn_.reset();
  stream_id_ = 0;
}

void Http2Exchange::finish(HttpResponse response) {
  auto self = shared_from_this();  // forget() below may drop the session's reference
  finished_ = true;
  timeout_.cancel();
  drop_stream();  // a timeout or a cut-off leaves its stream open: reset it
  if (Http2Session* session = std::exchange(session_, nullptr)) session->forget(this);
  response_ = std::move(response);
  boost::asio::post(ctx_.io, [self = std::move(self)] { self->deliver(); });
}

void Http2Exchange::deliver() {
  if (discard_on_destroy_ && session_alive_.expired()) return;
  done_(std::move(response_));
}

std::string Http2Exchange::current_url() const { return target_ ? target_->url : req_.url; }
std::string Http2Exchange::description() const { return req_.method + " " + current_url(); }

}  // namespace stampede::clients
