#pragma once
// Incremental HTTP/1.1 request parser: bytes in, one request out. No sockets, no clocks.
// Bodies are framed by Content-Length or by the chunked transfer coding (trailers are read
// and dropped). feed() stops at the end of a message and says how many bytes it used, so the
// bytes after it (the next pipelined request) stay with the caller. Garbage never crashes it:
// it stops in the Error state with a reason and the status a server should answer with.
// The grammar is Boost.Beast's (http::basic_parser<true>, docs/design/044); the request's
// strings are this parser's own, reused request after request.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "proto/http_response_parser.hpp"  // HttpHeader

namespace stampede::proto {

struct HttpRequest {
  std::string method;  // as sent (methods are case-sensitive)
  std::string target;  // request-target as sent: "/path?query", "*", or an absolute URL
  int version_minor = 1;  // HTTP/1.x
  std::vector<HttpHeader> headers;  // names lowercased, in arrival order
  std::string body;  // de-chunked

  // The first header with that (lowercase) name, or nullptr.
  const std::string* header(std::string_view lowercase_name) const;
  // Whether the connection may carry another request after this one: HTTP/1.1 unless
  // "Connection: close", HTTP/1.0 only with "Connection: keep-alive".
  bool keep_alive() const;
  // "Expect: 100-continue": the client may wait for an interim response before the body.
  bool expects_continue() const;
  // Whether a comma-separated header (e.g. connection, accept-encoding) lists `token`
  // (case-insensitive, parameters such as ";q=1" ignored).
  bool header_has_token(std::string_view lowercase_name, std::string_view token) const;
};

struct HttpRequestLimits {
  std::size_t max_head_bytes = 64 * 1024;   // request line + headers (and, apart, trailers)
  std::size_t max_headers = 100;
  std::size_t max_body_bytes = 8 * 1024 * 1024;
  std::size_t max_chunk_line_bytes = 4096;  // chunk size + extensions (+ the CRLF before them)
  // A body larger than max_body_bytes fails the request (413) unless this is set: then it is
  // read to its end but not kept (body_dropped()), what a recording proxy wants.
  bool drop_large_bodies = false;
};

class HttpRequestParser {
 public:
  enum class State { Head, Body, Done, Error };

  explicit HttpRequestParser(HttpRequestLimits limits = {});
  ~HttpRequestParser();
  HttpRequestParser(HttpRequestParser&&) noexcept;
  HttpRequestParser& operator=(HttpRequestParser&&) noexcept;

  // Starts a new request; buffers keep their capacity so a connection's parser does not
  // allocate again once warmed up.
  void reset();

  // Consumes bytes and returns how many it used. It stops right after the end of a request
  // (the rest belongs to the next one) or at an error. Before Done or Error it always
  // consumes everything it is given.
  std::size_t feed(std::string_view bytes);
  // Like feed(), but stops at the end of the head: once head_complete() the return value is
  // where the body starts in `bytes`. A proxy forwards the head it rewrote, then the body as
  // it came (feed() from there). Before the end of the head it consumes everything given;
  // after it, nothing.
  std::size_t feed_head(std::string_view bytes);
  // The body of this request is read to its end (done() comes when it would have) but not
  // kept: request().body is emptied and stays empty. For a proxy that records some bodies.
  void drop_body();
  // The body was not kept: drop_body(), or larger than max_body_bytes with drop_large_bodies.
  bool body_dropped() const { return drop_body_; }

  State state() const { return state_; }
  bool done() const { return state_ == State::Done; }
  bool failed() const { return state_ == State::Error; }
  // True once the head is parsed: request() has method, target, version and headers.
  bool head_complete() const { return state_ == State::Body || state_ == State::Done; }
  // True once any byte of a request (not counting blank lines before it) was consumed.
  bool started() const { return started_; }

  const std::string& error() const { return error_; }
  // The status a server should answer a failed request with: 400, 413, 431, 501 or 505.
  int error_status() const { return error_status_; }

  const HttpRequest& request() const { return request_; }
  HttpRequest& request() { return request_; }

 private:
  struct Impl;

  HttpRequestLimits limits_;
  State state_ = State::Head;
  bool started_ = false;
  bool drop_body_ = false;
  std::string error_;
  int error_status_ = 0;
  HttpRequest request_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace stampede::proto
