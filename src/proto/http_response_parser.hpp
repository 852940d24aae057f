#pragma once
// Incremental HTTP/1.1 response parser: bytes in, one response out. No sockets, no clocks.
// Handles Content-Length, chunked transfer coding (with trailers), close-delimited bodies,
// bodyless responses (HEAD, 1xx, 204, 304), and gzip/deflate content coding (the body()
// is the decoded body). Garbage never crashes it: it stops in the Error state with a reason.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace stampede::proto {

struct HttpHeader {
  std::string name;  // lowercased
  std::string value; // surrounding whitespace trimmed
};

// Returns the first header with that (lowercase) name, or nullptr.
const std::string* find_header(const std::vector<HttpHeader>& headers, std::string_view name);

struct HttpResponseHead {
  int version_minor = 1;  // HTTP/1.x
  int status = 0;
  std::string reason;
  std::vector<HttpHeader> headers;
};

struct HttpParserLimits {
  std::size_t max_head_bytes = 64 * 1024;
  std::size_t max_body_bytes = 256 * 1024 * 1024;  // decoded
  // A body larger than max_body_bytes (decoded), or whose content coding cannot be decoded,
  // fails the response unless this is set: then it is read to its end but not kept
  // (body_dropped()), what a recording proxy wants: its framing never depends on the body.
  bool drop_large_bodies = false;
};

class HttpResponseParser {
 public:
  enum class State { Head, Body, Done, Error };

  explicit HttpResponseParser(HttpParserLimits limits = {});
  ~HttpResponseParser();
  HttpResponseParser(HttpResponseParser&&) noexcept;
  HttpResponseParser& operator=(HttpResponseParser&&) noexcept;

  // Starts a new response. `head_request`: the request was HEAD, so no body follows.
  void reset(bool head_request = false);

  // Consumes bytes and returns how many it used. It stops after the end of the message,
  // so the bytes not consumed belong to whatever comes next on the connection.
  // Interim 1xx responses (except 101) are skipped.
  std::size_t feed(std::string_view bytes);
  // Like feed(), but stops at the end of a head, so that the return value is where what
  // follows it starts in `bytes`: the final response's head (head_complete()), or an interim
  // one's (interim()), which feed() skips. A proxy forwards each head it rewrote, then the
  // body as it came (feed() from there). Before the end of a head it consumes everything given.
  std::size_t feed_head(std::string_view bytes);
  // The head feed_head() just read is an interim response (100 Continue, 103 Early Hints):
  // head() holds it until the next feed, which reads on to the next head.
  bool interim() const;
  // The body of this response is read to its end (done() comes when it would have) but not
  // kept or decoded: body() is emptied and stays empty.
  void drop_body();
  // The body was not kept: drop_body(), or with drop_large_bodies a body too large or that
  // could not be decoded.
  bool body_dropped() const;

  // The peer closed the connection: completes a close-delimited body, or fails with
  // "connection closed before the response was complete".
  void finish_eof();

  State state() const { return state_; }
  bool done() const { return state_ == State::Done; }
  bool failed() const { return state_ == State::Error; }
  bool head_complete() const { return state_ == State::Body || state_ == State::Done; }
  // True once any byte of a response has been consumed (a retry is safe only before that).
  bool started() const { return started_; }
  const std::string& error() const { return error_; }

  const HttpResponseHead& head() const { return head_; }
  // Hands the headers over (to the response given to the user) instead of copying them;
  // head().headers is empty afterwards.
  std::vector<HttpHeader> take_headers() { return std::move(head_.headers); }
  std::string& body() { return body_; }
  // Takes back the headers and body a response was given (take_headers(), a move from
  // body()) once its reader is done with them, for the next response to parse into: their
  // strings keep their capacity, so a response like the last one allocates nothing. Ignored
  // unless this parser's own were taken (or never grew), and for a body larger than the
  // parser keeps between responses anyway.
  void reuse(std::vector<HttpHeader>&& headers, std::string&& body);
  // Whether the connection may carry another request after this response.
  bool keep_alive() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  State state_ = State::Head;
  bool started_ = false;
  std::string error_;
  HttpResponseHead head_;
  std::string body_;
};

}  // namespace stampede::proto
