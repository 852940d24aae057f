#pragma once
// The HTTP client of one VU: keep-alive connections per origin (like a browser), a cookie
// jar, redirects, timeouts, TLS. Records `http.request` (service time: from the moment the
// request was written to the last byte of the response), `http.request.<name>` when the
// request is named, and `http.request.errors` with the reason.
//
// Counting: every hop (the request and each redirect it follows) is one request in the
// sink's tally: request_sent() when its bytes go to the socket, request_finished(ok) when
// its response arrived (ok: status < 400) or it failed. A hop that fails before it could be
// written (refused, dns, tls, a timeout while connecting) is counted sent and failed at
// once. A request cut off by close_all() or the destructor is counted neither finished nor
// failed: it stays "in flight", which is what it was.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "clients/client_context.hpp"
#include "common/clock.hpp"
#include "proto/cookie.hpp"
#include "proto/http_response_parser.hpp"

namespace stampede::clients {

struct HttpRequest {
  std::string method = "GET";
  std::string url;  // absolute, query already applied
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  Nanos timeout = 60 * kSecond;  // whole request, each redirect hop included
  // Redirects to follow; one more is an error with reason "redirects". 0 (or less): follow
  // none, the 3xx response is the answer.
  int max_redirects = 10;
  bool insecure = false;  // skip TLS verification
  std::string name;       // also record under http.request.<name>
  // A larger (decoded) body fails the request with reason "protocol" as soon as it is seen
  // to be larger; 0: the parser's own limit (proto::HttpParserLimits, 256 MB).
  std::size_t max_body_bytes = 0;
  // HTTP/2 (clients/http2_session.hpp): over TLS offered by ALPN, HTTP/1.1 when the server
  // does not agree; over http:// with prior knowledge (h2c). One connection per origin,
  // concurrent requests as streams on it.
  bool http2 = false;
  // False: recorded in neither http.request (nor http.request.<name>, http.request.errors) nor
  // the sink's request tally. For a client that measures its requests under its own name:
  // the LongPoll transport's polls and publishes (clients/longpoll_session.hpp).
  bool measured = true;
  // The answer is expected late (a LongPoll GET, held by the server up to its window): the
  // wait holds no receive buffer, no response parser and no formatted head; they are taken
  // when the answer starts to arrive (one more system call per response: a readiness wait,
  // then the read). For requests that mostly wait, held by many VUs at once.
  bool long_wait = false;
};

struct HttpResponse {
  int status = 0;  // 0 when no response arrived
  std::vector<proto::HttpHeader> headers;
  std::string body;  // decoded
  std::string url;   // final URL after redirects
  // Empty when a response arrived (whatever its status). Otherwise a sentence for the
  // user, and a one-word reason: refused, timeout, reset, closed, tls, dns, protocol, url,
  // fd, ports, redirects. With "redirects" (and with "url" for a bad Location) the last
  // 3xx response is kept in status, headers and body.
  std::string error;
  std::string error_reason;
  // The request failed because this machine ran out of file descriptors, source ports or
  // socket memory (transport::is_local_exhaustion): the VU backs off before its next iteration.
  bool local_exhaustion = false;
  Nanos duration = 0;  // service time of the last hop
  // The protocol of the last hop: "HTTP/1.1", "HTTP/1.0" (as the server answered) or "HTTP/2".
  std::string_view proto = "HTTP/1.1";
};

class HttpSession {
 public:
  // What happens to the callbacks of requests still pending when the session is destroyed.
  enum class OnDestroy {
    // Each is still called once, later, from the loop, with reason "closed". The callback
    // must not rely on anything that dies with the session.
    complete,
    // None runs after the destructor: they are destroyed uncalled, together with the
    // completions already queued but not yet run. For owners whose callbacks point into
    // objects that die with the session (a VU, its Lua state).
    discard,
  };

  explicit HttpSession(ClientContext& ctx, OnDestroy on_destroy = OnDestroy::complete);
  ~HttpSession();
  HttpSession(const HttpSession&) = delete;
  HttpSession& operator=(const HttpSession&) = delete;

  // `done` is called exactly once (see OnDestroy for the one exception), always from the
  // loop, never from inside request() itself. It gets the response as an rvalue: what it
  // moves away is its own, and what it leaves (it only read the headers and body, say) is
  // reused by the worker's next responses instead of being allocated again. Throws
  // std::invalid_argument, before anything is sent and without calling `done`, when
  // `req.name`'s row (http.request.<name>) already exists as another kind of metric:
  // `name = "errors"` meets the http.request.errors counter.
  void request(HttpRequest req, std::function<void(HttpResponse&&)> done);
  // Sends every request at once, at most `parallel` (>= 1) in flight, and calls `done` once
  // with the responses in the requests' order, each as request() would give it (a failure is
  // a response with `error` set). HTTP/2 requests to one origin share its connection as
  // streams; HTTP/1.1 requests each take a connection of their own (an idle one, or a new
  // one). Throws std::invalid_argument, before anything is sent, for an empty batch, a
  // `parallel` of 0, or a `name` request() would refuse. `done` as request()'s (OnDestroy
  // included). clients/http_batch.cpp.
  void batch(std::vector<HttpRequest> requests, std::size_t parallel,
             std::function<void(std::vector<HttpResponse>&&)> done);
  // Closes every connection; pending requests complete with reason "closed".
  void close_all();
  proto::CookieJar& cookies();

  // Keep-alive connections waiting for the next request, over all origins.
  std::size_t idle_connections() const;
  // Idle connections peeked at before reuse (docs/design/021: young plain ones are not
  // when the request is idempotent).
  std::uint64_t liveness_checks() const;
  // HTTP/2 connections connecting, open or draining.
  std::size_t http2_connections() const;

  // For batch(): throws std::invalid_argument as request() would for this `name`.
  void check_name(const std::string& name);
  // Expires when the session is destroyed: for work that must not start on a dead session.
  std::weak_ptr<const void> lifetime() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace stampede::clients
