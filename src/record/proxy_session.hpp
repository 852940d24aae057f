#pragma once
// One browser connection through the recording proxy, as bytes in and bytes out: what to send
// the app, what to send the browser, and what to record. The sockets are recording_proxy's;
// this class is pure (no sockets, no clock: the caller says when bytes arrived), so that all
// of the proxy's decisions can be tested and fuzzed without a network.
//
// HTTP: each request's head is parsed (proto/http_request_parser) and forwarded rewritten
// (proxy_heads.hpp), its body forwarded as it came: chunked stays chunked, a Content-Length
// body passes byte for byte. Each response likewise (proto/http_response_parser): its head
// rewritten, its body untouched (gzip stays gzip for the browser; the parser decodes a copy
// for the recording). The parsers only frame the messages; they keep a body for the recording
// when it is text and small (ProxyLimits), and drop the rest as it streams. Requests may be
// pipelined: responses are matched to them in order.
//
// WebSocket: a request that asks for an upgrade waits for its answer before anything more is
// read from the browser; a 101 turns the connection into a relay of raw bytes both ways, with
// a WebSocketTap reading a copy of each direction for the recording. permessage-deflate is
// negotiated end to end (the browser's offer and the app's answer pass untouched) and the
// taps inflate what they read with the agreed parameters: the browser and the app behave as
// they would without the proxy, compression included.
//
// Lifetimes follow the app's: one connection to the app per browser connection, opened for
// the first request; when the app closes its side, the browser's is closed too (after what
// was already received is passed on), so a browser sees the keep-alive behaviour the app has.
//
// Failures cost an exchange without a response (status 0, recorded, left out of the scenario)
// and never a hang: an app that cannot be reached gets the browser a 502, one that does not
// answer in time a 504 (or a cut connection once part of the answer went out), garbage from
// either side a 400/502 and a closed connection.
#include <cstddef>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "proto/http_request_parser.hpp"
#include "proto/http_response_parser.hpp"
#include "record/exchange_log.hpp"
#include "record/proxy_heads.hpp"
#include "record/websocket_tap.hpp"

namespace stampede::record {

struct ProxyLimits {
  std::size_t max_kept_body = std::size_t{1} << 20;  // a request or response body kept for the recording
  std::size_t max_message = std::size_t{16} << 20;   // a WebSocket message read for the recording
  std::size_t max_head = std::size_t{64} << 10;      // a request or response head
};

class ProxySession {
 public:
  ProxySession(const ProxyEndpoints& endpoints, ExchangeLog& log, const ProxyLimits& limits = {});
  ~ProxySession();
  ProxySession(const ProxySession&) = delete;
  ProxySession& operator=(const ProxySession&) = delete;

  // Bytes from the browser. Returns how many were used: fewer than given while browser_paused()
  // (the rest must be given again once it is not) or once finished() (the rest is dropped).
  std::size_t from_browser(std::string_view bytes, double now_ms);
  // Bytes from the app; all are used.
  void from_app(std::string_view bytes, double now_ms);
  // The browser closed its side (or reset the connection).
  void browser_closed(double now_ms);
  // The app closed its side (or reset the connection).
  void app_closed(double now_ms);
  // The connection to the app could not be made: `why` ("connection refused by 127.0.0.1:4000").
  void app_unreachable(std::string_view why, double now_ms);
  // A response was due and the app sent nothing for too long: `why` ("within 30s").
  void app_timed_out(std::string_view why, double now_ms);
  // The proxy stops (Ctrl-C): what is open is recorded as it is (a WebSocket with its frames
  // so far, a request without a response) and the session finishes.
  void stop(double now_ms);

  // What to write to each side, appended by the calls above; the caller sends and clears it.
  std::string& to_app() { return to_app_; }
  std::string& to_browser() { return to_browser_; }

  // Something was sent (or is to be sent) to the app: the connection to it is wanted.
  bool needs_app() const { return needs_app_; }
  // A request went out whole and its response has not arrived whole: the app owes an answer
  // (the caller's stall timer runs while this holds, restarted by every byte from the app).
  bool awaiting_app() const;
  // The browser's bytes must wait: an upgrade request awaits its answer.
  bool browser_paused() const;
  // Nothing more will be read or sent: once to_browser() is written, close both sides.
  bool finished() const { return finished_; }
  bool is_websocket() const { return mode_ == Mode::WebSocket; }

 private:
  enum class Mode { Http, WebSocket };
  struct Pending;

  void on_request_head(double now_ms);
  void on_request_done();
  void on_response_head(double now_ms);
  void on_response_done(double now_ms);
  void start_websocket(Pending& pending, double now_ms);
  void end_websocket(double now_ms);
  // Records the requests still unanswered as failed (status 0) and finishes.
  void fail_pending(double now_ms);
  void relay_unasked(std::string_view bytes);
  void tap(std::optional<WebSocketTap>& tap, std::string_view bytes, double now_ms);
  void finish() { finished_ = true; }

  ProxyEndpoints endpoints_;
  ExchangeLog& log_;
  ProxyLimits limits_;
  Mode mode_ = Mode::Http;
  bool finished_ = false;
  bool needs_app_ = false;
  bool browser_gone_ = false;  // the browser closed with answers still due: finish after them
  bool unasked_ = false;       // the app spoke with nothing asked: relay it until it closes
  std::string to_app_;
  std::string to_browser_;

  proto::HttpRequestParser request_parser_;
  proto::HttpResponseParser response_parser_;
  std::deque<Pending> pending_;  // requests forwarded, oldest (the next answered) first
  Pending* receiving_ = nullptr; // the request whose body is arriving (still in pending_)
  bool response_started_ = false;  // response_parser_ was reset for pending_.front()
  bool response_head_sent_ = false;  // the front's final head went to the browser

  // WebSocket mode
  std::unique_ptr<Exchange> websocket_;
  std::string websocket_browser_origin_;  // the origin its page was loaded from (the proxy's)
  std::optional<WebSocketTap> browser_tap_;
  std::optional<WebSocketTap> app_tap_;
};

}  // namespace stampede::record
