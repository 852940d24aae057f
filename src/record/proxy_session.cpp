#include "record/proxy_session.hpp"

#include "proto/websocket_handshake.hpp"
#include "record/recording_scope.hpp"

namespace stampede::record {
namespace {

proto::HttpRequestLimits request_limits(const ProxyLimits& limits) {
  proto::HttpRequestLimits out;
  out.max_head_bytes = limits.max_head;
  out.max_body_bytes = limits.max_kept_body;
  out.drop_large_bodies = true;  // forwarded whole, kept only up to the limit
  return out;
}

proto::HttpParserLimits response_limits(const ProxyLimits& limits) {
  proto::HttpParserLimits out;
  out.max_head_bytes = limits.max_head;
  out.max_body_bytes = limits.max_kept_body;
  out.drop_large_bodies = true;
  return out;
}

// What Chromium's HAR calls _resourceType, from the Sec-Fetch-Dest the browser sends with
// every request (Fetch Metadata): the converter tells pages from assets by it.
std::string resource_type_of(const proto::HttpRequest& request) {
  const auto* dest = request.header("sec-fetch-dest");
  if (dest == nullptr) return {};
  const std::string_view d = *dest;
  if (d == "document" || d == "iframe" || d == "frame") return "document";
  if (d == "script" || d == "worker" || d == "sharedworker" || d == "serviceworker") return "script";
  if (d == "style") return "stylesheet";
  if (d == "image") return "image";
  if (d == "font") return "font";
  if (d == "audio" || d == "video" || d == "track") return "media";
  if (d == "manifest") return "manifest";
  if (d == "websocket") return "websocket";
  if (d == "empty") return "fetch";
  return {};
}

std::string header_or_empty(const std::string* value) { return value != nullptr ? *value : std::string(); }

std::string_view reason_of(int status) {
  switch (status) {
    case 400: return "Bad Request";
    case 413: return "Content Too Large";
    case 431: return "Request Header Fields Too Large";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 504: return "Gateway Timeout";
    case 505: return "HTTP Version Not Supported";
    default: return "Error";
  }
}

// ws://host/path for the recording: the converter knows sockets by their scheme too.
std::string websocket_url(const std::string& http_url) {
  if (http_url.rfind("https://", 0) == 0) return "wss://" + http_url.substr(8);
  if (http_url.rfind("http://", 0) == 0) return "ws://" + http_url.substr(7);
  return http_url;
}

// Every `from` in `text` replaced by `to`.
void replace_all(std::string& text, std::string_view from, std::string_view to) {
  if (from.empty()) return;
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
}

std::string path_of(const std::string& url) {
  const auto parts = split_url(url);
  return parts ? parts->path : url;
}

}  // namespace

struct ProxySession::Pending {
  Exchange exchange;
  std::string browser;     // the origin the browser made it from (for Location)
  bool head = false;       // HEAD: its answer has no body
  bool upgrade = false;    // asks to become a WebSocket
  bool keep_alive = true;  // the request allows another one after it
  bool complete = false;   // the whole request went to the app
};

ProxySession::ProxySession(const ProxyEndpoints& endpoints, ExchangeLog& log, const ProxyLimits& limits)
    : endpoints_(endpoints),
      log_(log),
      limits_(limits),
      request_parser_(request_limits(limits)),
      response_parser_(response_limits(limits)) {}

ProxySession::~ProxySession() = default;

bool ProxySession::awaiting_app() const {
  return mode_ == Mode::Http && !finished_ && !pending_.empty() && pending_.front().complete;
}

bool ProxySession::browser_paused() const {
  return mode_ == Mode::Http && !finished_ && !pending_.empty() && pending_.back().upgrade && pending_.back().complete;
}

std::size_t ProxySession::from_browser(std::string_view bytes, double now_ms) {
  if (finished_ || unasked_) return bytes.size();
  if (mode_ == Mode::WebSocket) {
    to_app_.append(bytes);
    tap(browser_tap_, bytes, now_ms);
    return bytes.size();
  }
  std::size_t used = 0;
  while (used < bytes.size() && mode_ == Mode::Http && !finished_ && !browser_paused()) {
    const auto rest = bytes.substr(used);
    if (request_parser_.state() == proto::HttpRequestParser::State::Head) {
      used += request_parser_.feed_head(rest);
      if (request_parser_.failed()) {
        // Nothing of this request went to the app: the browser gets the reason (after the
        // answers it is owed, which a connection that sends garbage will not wait for).
        if (pending_.empty()) {
          const int status = request_parser_.error_status();
          write_proxy_response(to_browser_, status, reason_of(status),
                               "stampede record cannot read this request: " + request_parser_.error());
        }
        fail_pending(now_ms);
        break;
      }
      if (request_parser_.head_complete()) {
        on_request_head(now_ms);
        if (request_parser_.done()) on_request_done();
      }
    } else {
      const auto n = request_parser_.feed(rest);
      to_app_.append(rest.substr(0, n));
      used += n;
      if (request_parser_.failed()) {
        // Part of the request went to the app already: the connection cannot go on.
        log_.warn("a request from the browser could not be read: " + request_parser_.error());
        fail_pending(now_ms);
        break;
      }
      if (request_parser_.done()) on_request_done();
    }
  }
  if (finished_) return bytes.size();
  return used;
}

void ProxySession::on_request_head(double now_ms) {
  const auto& request = request_parser_.request();
  Pending pending;
  pending.browser = browser_origin(request, endpoints_);
  pending.head = request.method == "HEAD";
  pending.upgrade = proto::ws::is_upgrade_request(request);
  pending.keep_alive = request.keep_alive();
  auto& exchange = pending.exchange;
  exchange.started_ms = now_ms;
  exchange.ended_ms = now_ms;
  exchange.method = request.method;
  exchange.url = !request.target.empty() && request.target.front() == '/' ? endpoints_.app_origin + request.target
                                                                           : request.target;
  // As the app received them: Host, Origin and Referer are the app's, as in a HAR recorded
  // against the app itself.
  for (const auto& header : request.headers)
    exchange.request_headers.push_back({header.name, forwarded_request_value(header, pending.browser, endpoints_)});
  exchange.request_mime = header_or_empty(request.header("content-type"));
  exchange.resource_type = resource_type_of(request);
  write_forwarded_request_head(to_app_, request, endpoints_);
  needs_app_ = true;
  pending_.push_back(std::move(pending));
  receiving_ = &pending_.back();
}

void ProxySession::on_request_done() {
  if (receiving_ != nullptr) {
    auto& body = request_parser_.request().body;
    if (request_parser_.body_dropped()) {
      log_.count_dropped_body();
    } else if (!body.empty()) {
      if (log_.keep(body.size())) {
        receiving_->exchange.request_body = std::move(body);
      } else {
        log_.count_dropped_body();
      }
    }
    receiving_->complete = true;
    receiving_ = nullptr;
  }
  request_parser_.reset();
}

void ProxySession::from_app(std::string_view bytes, double now_ms) {
  if (finished_) return;
  if (unasked_) return relay_unasked(bytes);
  if (mode_ == Mode::WebSocket) {
    to_browser_.append(bytes);
    tap(app_tap_, bytes, now_ms);
    return;
  }
  std::size_t used = 0;
  while (used < bytes.size() && mode_ == Mode::Http && !finished_) {
    const auto rest = bytes.substr(used);
    if (pending_.empty()) {
      relay_unasked(rest);
      return;
    }
    if (!response_started_) {
      response_parser_.reset(pending_.front().head);
      response_started_ = true;
      response_head_sent_ = false;
    }
    if (response_parser_.state() == proto::HttpResponseParser::State::Head) {
      used += response_parser_.feed_head(rest);
      if (response_parser_.failed()) {
        const auto why = "the app's answer to " + pending_.front().exchange.method + " " +
                         path_of(pending_.front().exchange.url) + " cannot be read: " + response_parser_.error();
        log_.warn(why);
        write_proxy_response(to_browser_, 502, reason_of(502), "stampede record: " + why);
        fail_pending(now_ms);
        return;
      }
      if (response_parser_.interim()) {
        write_forwarded_response_head(to_browser_, response_parser_.head(), endpoints_, pending_.front().browser);
        continue;
      }
      if (response_parser_.head_complete()) {
        on_response_head(now_ms);
        if (response_parser_.done()) on_response_done(now_ms);
      }
    } else {
      const auto n = response_parser_.feed(rest);
      to_browser_.append(rest.substr(0, n));
      used += n;
      if (response_parser_.failed()) {
        // The head went to the browser already: all it can be told is a cut connection.
        log_.warn("the app's answer to " + pending_.front().exchange.method + " " +
                  path_of(pending_.front().exchange.url) + " cannot be read: " + response_parser_.error());
        fail_pending(now_ms);
        return;
      }
      if (response_parser_.done()) on_response_done(now_ms);
    }
  }
  // A 101 ended the HTTP part: what followed its head is the WebSocket's first bytes.
  if (mode_ == Mode::WebSocket && used < bytes.size()) from_app(bytes.substr(used), now_ms);
}

void ProxySession::on_response_head(double) {
  auto& front = pending_.front();
  const auto& head = response_parser_.head();
  write_forwarded_response_head(to_browser_, head, endpoints_, front.browser);
  response_head_sent_ = true;
  auto& exchange = front.exchange;
  exchange.status = head.status;
  // As the app sent them (a Location on the app's origin stays so): the converter resolves
  // redirects against the app's URLs.
  for (const auto& header : head.headers) exchange.response_headers.push_back({header.name, header.value});
  exchange.response_mime = header_or_empty(proto::find_header(head.headers, "content-type"));
  const bool has_body = !front.head && head.status >= 200 && head.status != 204 && head.status != 304;
  if (has_body && !is_text_mime(exchange.response_mime)) response_parser_.drop_body();
}

void ProxySession::on_response_done(double now_ms) {
  if (receiving_ == &pending_.front()) receiving_ = nullptr;  // answered before the app had its body
  Pending pending = std::move(pending_.front());
  pending_.pop_front();
  response_started_ = false;
  response_head_sent_ = false;
  auto& exchange = pending.exchange;
  exchange.ended_ms = now_ms;
  if (exchange.status == 101) {
    start_websocket(pending, now_ms);
    return;
  }
  auto& body = response_parser_.body();
  if (response_parser_.body_dropped()) {
    log_.count_dropped_body();
  } else if (!body.empty()) {
    if (log_.keep(body.size())) {
      exchange.response_body = std::move(body);
      exchange.response_body_kept = true;
    } else {
      log_.count_dropped_body();
    }
  }
  // A refused upgrade ends the connection after its answer, as browsers end it: what the
  // browser sent after the upgrade request cannot be HTTP the app expects (RFC 6455 4.1: no
  // frames before the 101), and where it would go must not depend on how the reads fell
  // (found by fuzz_proxy_session).
  const bool keep_alive = response_parser_.keep_alive() && pending.keep_alive && !pending.upgrade;
  log_.add(std::move(exchange));
  // The app will close after this answer: requests sent after it will not be answered.
  if (!keep_alive || (browser_gone_ && pending_.empty())) fail_pending(now_ms);
}

void ProxySession::start_websocket(Pending& pending, double now_ms) {
  mode_ = Mode::WebSocket;
  websocket_ = std::make_unique<Exchange>(std::move(pending.exchange));
  auto& exchange = *websocket_;
  exchange.websocket = true;
  exchange.url = websocket_url(exchange.url);
  exchange.resource_type = "websocket";
  exchange.ended_ms = now_ms;
  websocket_browser_origin_ = pending.browser;
  if (!pending.upgrade) return;  // a switch to some other protocol: relayed, not read
  std::string why;
  const auto deflate = negotiated_deflate(exchange.response_headers, why);
  if (!why.empty()) {
    log_.warn("WebSocket " + path_of(exchange.url) + ": " + why + "; its frames are relayed but not recorded");
    return;
  }
  browser_tap_.emplace(true, deflate, limits_.max_message);
  app_tap_.emplace(false, deflate, limits_.max_message);
}

void ProxySession::tap(std::optional<WebSocketTap>& tap, std::string_view bytes, double now_ms) {
  if (!tap || !websocket_ || tap->broken()) return;
  std::vector<WsFrame> frames;
  tap->feed(bytes, now_ms, frames);
  for (auto& frame : frames) {
    // The frames pass untouched, so a LiveView's join names its page by the proxy's URL: the
    // recording names it by the app's, as a HAR recorded against the app does (the converter
    // matches joins to page loads by URL).
    if (!frame.binary) replace_all(frame.data, websocket_browser_origin_, endpoints_.app_origin);
    if (log_.keep(frame.data.size())) {
      websocket_->frames.push_back(std::move(frame));
    } else {
      log_.count_cut_frame();
    }
  }
  if (tap->broken()) {
    log_.count_cut_frame();
    log_.warn("WebSocket " + path_of(websocket_->url) + ": " + tap->error() + "; the rest of its frames " +
              (&tap == &browser_tap_ ? "from the browser" : "from the app") +
              " are relayed but not recorded");
  }
}

void ProxySession::end_websocket(double now_ms) {
  if (!websocket_) return;
  auto& exchange = *websocket_;
  // As a HAR has it: a WebSocket ends with its last frame.
  exchange.ended_ms = exchange.frames.empty() ? now_ms : exchange.frames.back().at_ms;
  log_.add(std::move(exchange));
  websocket_.reset();
  browser_tap_.reset();
  app_tap_.reset();
}

void ProxySession::fail_pending(double now_ms) {
  for (auto& pending : pending_) {
    auto& exchange = pending.exchange;
    exchange.status = 0;  // no (whole) response: the converter leaves it out and counts it
    exchange.ended_ms = now_ms;
    exchange.response_body.clear();
    exchange.response_body_kept = false;
    log_.add(std::move(exchange));
  }
  pending_.clear();
  receiving_ = nullptr;
  finish();
}

void ProxySession::relay_unasked(std::string_view bytes) {
  // The app spoke with no request pending (a 408 before it closes an idle connection): the
  // browser gets it, and everything else the app sends until it closes, as it would have;
  // nothing more goes to the app (no answer could be matched to it). All of it, not just what
  // came in this read: what the browser gets must not depend on how the bytes were split.
  unasked_ = true;
  to_browser_.append(bytes);
}

void ProxySession::browser_closed(double now_ms) {
  if (finished_) return;
  if (unasked_) return fail_pending(now_ms);
  if (mode_ == Mode::WebSocket) {
    end_websocket(now_ms);
    finish();
    return;
  }
  // Gone in the middle of a request: the app has part of it and will not get the rest.
  if (receiving_ != nullptr || pending_.empty()) {
    fail_pending(now_ms);
    return;
  }
  browser_gone_ = true;  // the answers it is owed are still recorded, then the session ends
}

void ProxySession::app_closed(double now_ms) {
  if (finished_) return;
  if (mode_ == Mode::WebSocket) {
    end_websocket(now_ms);
    finish();
    return;
  }
  if (!pending_.empty() && response_started_ && response_parser_.started()) {
    response_parser_.finish_eof();  // completes a body that ends with the connection
    if (response_parser_.done()) {
      on_response_done(now_ms);
    } else {
      log_.warn("the app closed the connection in the middle of its answer to " + pending_.front().exchange.method +
                " " + path_of(pending_.front().exchange.url));
    }
  }
  // Requests it closed on without answering: the browser sees the same closed connection.
  fail_pending(now_ms);
}

void ProxySession::app_unreachable(std::string_view why, double now_ms) {
  if (finished_) return;
  const auto what = "cannot reach " + endpoints_.app_origin + ": " + std::string(why);
  log_.warn(what);
  if (!response_head_sent_) write_proxy_response(to_browser_, 502, reason_of(502), "stampede record: " + what);
  fail_pending(now_ms);
}

void ProxySession::app_timed_out(std::string_view why, double now_ms) {
  if (finished_ || mode_ != Mode::Http || pending_.empty()) return;
  const auto& exchange = pending_.front().exchange;
  const auto what = "the app did not answer " + exchange.method + " " + path_of(exchange.url) + " " + std::string(why);
  log_.warn(what);
  if (!response_head_sent_) write_proxy_response(to_browser_, 504, reason_of(504), "stampede record: " + what);
  fail_pending(now_ms);
}

void ProxySession::stop(double now_ms) {
  if (finished_) return;
  if (mode_ == Mode::WebSocket) {
    end_websocket(now_ms);
    finish();
    return;
  }
  fail_pending(now_ms);
}

}  // namespace stampede::record
