#pragma once
// The HTTP client of one VU: keep-alive connections per origin (like a browser), a cookie
// jar, redirects, timeouts, TLS. Records `http.request` (service time: from the moment the
// request was written to the last byte of the response), `http.request.<name>` when the
// request is named, and `http.request.errors` with the reason.
#include <functional>
#include <memory>
#include <string>
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
  int max_redirects = 10;
  bool insecure = false;  // skip TLS verification
  std::string name;       // also record under http.request.<name>
};

struct HttpResponse {
  int status = 0;  // 0 when no response arrived
  std::vector<proto::HttpHeader> headers;
  std::string body;  // decoded
  std::string url;   // final URL after redirects
  // Empty when a response arrived (whatever its status). Otherwise a sentence for the
  // user, and a one-word reason: refused, timeout, reset, closed, tls, dns, protocol, url, fd.
  std::string error;
  std::string error_reason;
  Nanos duration = 0;  // service time of the last hop
};

class HttpSession {
 public:
  explicit HttpSession(ClientContext& ctx);
  ~HttpSession();
  HttpSession(const HttpSession&) = delete;
  HttpSession& operator=(const HttpSession&) = delete;

  // `done` is called exactly once, never from inside request() itself.
  void request(HttpRequest req, std::function<void(HttpResponse)> done);
  // Closes every connection; pending requests complete with reason "closed".
  void close_all();
  proto::CookieJar& cookies();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace stampede::clients
