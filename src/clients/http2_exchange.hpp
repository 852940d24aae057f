#pragma once
// One request over HTTP/2, from Http2Session::request to `done`, across its redirect hops:
// the HTTP/1.1 Exchange's rules (http_session.cpp) on a stream instead of a connection of its
// own. Counting, timing, cookies, redirects, the whole-request timeout and the error reasons
// mean what they mean for HTTP/1.1 (http_session.hpp); what HTTP/2 adds to the reasons:
// "rst_stream <CODE>" (the server reset the stream), "goaway <CODE>" (the server went away
// without processing it, or closed the connection after a GOAWAY before answering).
// A request refused by a graceful GOAWAY (NO_ERROR) was never processed: it is sent once more
// on a new connection, as browsers do, and counted once.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "clients/http2_connection.hpp"
#include "clients/http_session.hpp"
#include "clients/worker_timers.hpp"
#include "metrics/metric_sink.hpp"

namespace stampede::clients {

class Http2Session;

class Http2Exchange : public std::enable_shared_from_this<Http2Exchange>, private Http2Request {
 public:
  using Done = std::function<void(HttpResponse&&)>;

  Http2Exchange(Http2Session& session, HttpRequest req, std::optional<metrics::MetricId> named_metric, Done done);
  ~Http2Exchange() override;

  void start();
  // close_all(): ends unanswered, not counted as finished (it was cut off, not failed).
  void cut_off();

 private:
  void prepare_headers();
  void begin_hop(std::shared_ptr<const UrlTarget> next);
  void submit();
  void send_over_http1();
  void follow_redirect(const std::string& location, int status);
  void on_timeout();
  void fail(std::string_view reason, const std::string& what, bool keep_response = false,
            bool local_exhaustion = false);
  void finish(HttpResponse response);
  void deliver();
  void drop_stream();
  std::string current_url() const;
  std::string description() const;

  // Http2Request
  void on_sent(Nanos at) override;
  void on_response(Nanos last_byte_at, proto::Http2Response& response) override;
  void on_failed(const Failure& failure) override;
  void on_declined() override;

  Http2Session* session_;  // null once finished: the session may be gone
  ClientContext& ctx_;
  HttpRequest req_;  // the current hop's method, body and headers
  const std::optional<metrics::MetricId> named_metric_;
  Done done_;
  const bool discard_on_destroy_;
  std::weak_ptr<const char> session_alive_;
  std::string host_override_;  // the script's Host header: the :authority of the first origin's hops
  std::string user_cookie_;    // the script's Cookie header, merged with the jar's on every hop
  bool default_user_agent_ = false;
  bool default_accept_encoding_ = false;
  WorkerTimer timeout_;  // the whole request's, redirects included
  std::shared_ptr<const UrlTarget> target_;  // this hop's; null before the first
  bool unverified_ = false;
  std::shared_ptr<Http2Connection> conn_;  // while this hop's stream is open
  std::int32_t stream_id_ = 0;
  HttpResponse response_;       // from finish() to deliver()
  HttpResponse last_redirect_;  // the 3xx kept when its redirect cannot be followed
  Nanos started_ = 0;
  Nanos write_started_ = 0;
  Nanos last_duration_ = 0;
  int redirects_followed_ = 0;
  bool hop_sent_ = false;
  bool retried_ = false;
  bool finished_ = false;
};

}  // namespace stampede::clients
