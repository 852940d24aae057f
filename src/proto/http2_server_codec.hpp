#pragma once
// The server side of one HTTP/2 connection, for the built-in target: the client's bytes in
// (its connection preface first), each complete request out as a proto::HttpRequest (what
// the HTTP/1.1 request parser gives the routes), responses in, the bytes to send out. The
// framing, HPACK, stream states and flow control are libnghttp2's session API over memory
// buffers; this adds the request as the routes know it and the moments the target's truth
// needs (a response's last frame leaving). Pure: no sockets, no clocks.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "proto/http2_client_codec.hpp"  // Http2Field, http2_error_name
#include "proto/http_request_parser.hpp"  // HttpRequest

namespace stampede::proto {

// What a client sends first on an HTTP/2 connection (RFC 9113 3.4): how a server that also
// speaks HTTP/1.1 on the port recognises h2c with prior knowledge.
inline constexpr std::string_view kHttp2Preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

struct Http2ServerLimits {
  // SETTINGS_MAX_CONCURRENT_STREAMS: the common servers' default (Cowboy, Bandit, nginx use 100-128).
  std::uint32_t max_concurrent_streams = 100;
  std::size_t max_header_bytes = 64 * 1024;       // a request's header block, decoded
  std::size_t max_body_bytes = 8 * 1024 * 1024;   // a request body (the HTTP/1.1 parser's limit)
};

class Http2ServerCodec {
 public:
  class Listener {
   public:
    virtual ~Listener() = default;
    // A whole request arrived on `stream_id`: method, target (:path), headers (with "host"
    // from :authority), body; version_minor 1. The listener may move from it, and answers
    // with respond() now or later (while the stream is open).
    virtual void on_request(std::int32_t stream_id, HttpRequest& request) = 0;
    // The last frame of the response on `stream_id` is in the output just taken.
    virtual void on_response_sent(std::int32_t stream_id) = 0;
    // The stream is gone (answered, or reset by the client): a response still owed on it
    // will not be sent, and the body given to respond() is no longer read.
    virtual void on_stream_closed(std::int32_t stream_id) = 0;
  };

  explicit Http2ServerCodec(Listener& listener, Http2ServerLimits limits = {});
  ~Http2ServerCodec();
  Http2ServerCodec(const Http2ServerCodec&) = delete;
  Http2ServerCodec& operator=(const Http2ServerCodec&) = delete;

  // Bytes from the client. False once the session cannot go on (a client that does not
  // speak HTTP/2, or broke the protocol): error() says why.
  bool feed(std::string_view bytes);
  // Appends what is to be sent to `out`. False once the session failed.
  bool take_output(std::string& out);

  // Answers the request on `stream_id`: `fields` are regular headers (lowercase names;
  // :status and content-length are added here); `body` must stay alive and unchanged until
  // on_response_sent or on_stream_closed for this stream. Ignored for a stream that is gone.
  void respond(std::int32_t stream_id, int status, std::span<const Http2Field> fields, std::string_view body,
               bool head_request);

  // Graceful close (the target stops): GOAWAY, the streams already open go on.
  void go_away();

  bool failed() const;
  const std::string& error() const;
  // Nothing more to read or write.
  bool finished() const;

  struct Impl;  // public for nghttp2's C callbacks (http2_server_codec.cpp)

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace stampede::proto
