#pragma once
// The HTTP/2 side of a VU's HTTP client (HttpSession sends a request here when it asks for
// HTTP/2): one connection per origin, shared by every request to it as concurrent streams,
// and the requests in flight (Http2Exchange, one per request across its redirects).
//
// Over TLS, "h2" is offered by ALPN; an origin whose server picks HTTP/1.1 is remembered and
// its requests (this one included) go to the HTTP/1.1 client instead, like a browser's. Over
// http://, HTTP/2 is spoken with prior knowledge (h2c): there is nothing to fall back to.
// A connection that stops taking requests (a GOAWAY) is replaced for the next ones, and
// finishes its open streams meanwhile.
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "clients/client_context.hpp"
#include "clients/http2_connection.hpp"
#include "clients/http_session.hpp"
#include "metrics/metric_sink.hpp"
#include "proto/cookie.hpp"

namespace stampede::clients {

class Http2Exchange;

class Http2Session {
 public:
  using Done = std::function<void(HttpResponse&&)>;

  // `http1`: where requests to origins without HTTP/2 go; `cookies`: the VU's jar (shared
  // with HTTP/1.1). `discard_on_destroy`: as HttpSession::OnDestroy::discard.
  Http2Session(ClientContext& ctx, HttpSession& http1, proto::CookieJar& cookies, bool discard_on_destroy);
  ~Http2Session();
  Http2Session(const Http2Session&) = delete;
  Http2Session& operator=(const Http2Session&) = delete;

  // As HttpSession::request (its name's metric already found).
  void request(HttpRequest req, std::optional<metrics::MetricId> named_metric, Done done);
  // Cuts every request off (reason "closed", not counted as finished) and closes every connection.
  void close_all();
  // Connections connecting, open or draining.
  std::size_t connections() const;

  // ---- for the exchanges ----
  ClientContext& ctx;
  proto::CookieJar& cookies;
  const metrics::MetricId request_metric;
  const metrics::MetricId error_metric;
  const bool discard_on_destroy;
  // Expires with the session: queued completions check it in discard mode.
  std::shared_ptr<const char> alive = std::make_shared<const char>('\0');

  // Whether `origin` (UrlTarget::origin) is known to answer TLS with HTTP/1.1 only.
  bool http1_only(const std::string& origin, bool insecure) const;
  void remember_http1_only(const std::string& origin, bool insecure);
  // The origin's connection if it takes requests, else a new one (started).
  std::shared_ptr<Http2Connection> connection_for(const UrlTarget& target, bool insecure);
  // Sends `req` (http2 = false) over HTTP/1.1.
  void send_over_http1(HttpRequest req, Done done);
  void forget(const Http2Exchange* exchange);

 private:
  struct Origin {
    std::string origin;
    bool insecure = false;
    std::shared_ptr<Http2Connection> connection;
  };

  HttpSession& http1_;
  std::vector<Origin> origins_;
  // Every connection made, until it closes (a replaced one drains its streams first).
  std::vector<std::weak_ptr<Http2Connection>> all_connections_;
  std::vector<std::pair<std::string, bool>> http1_only_;
  std::vector<std::shared_ptr<Http2Exchange>> in_flight_;
};

}  // namespace stampede::clients
