#pragma once
// One HTTP/2 connection of a VU: a transport::Stream (plain: h2c with prior knowledge; TLS:
// "h2" offered by ALPN) and the client codec over it. Requests become concurrent streams;
// the codec frames them and this class moves its bytes: it keeps reading while the
// connection is open (the server's PINGs, SETTINGS and GOAWAY arrive unasked), and writes
// whatever the codec has to say, one write at a time.
//
// Its states, in order (Gatling's explicit connection states):
//   connecting -> open -> draining (a GOAWAY came: no new streams, the old ones finish) -> closed
//   connecting -> declined (TLS agreed on another protocol than h2: the requests go back to
//                 the caller, which sends them over HTTP/1.1)
// A connection that fails (refused, a reset, an end of stream, a protocol error) is closed,
// and every stream still open fails with a reason (see Http2Request::on_failed).
//
// Timing, as for HTTP/1.1 (http_session.hpp): a request's service time runs from the moment
// its HEADERS frame is handed to the socket to the read that completed its response.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "clients/client_context.hpp"
#include "clients/url_target.hpp"
#include "common/clock.hpp"
#include "proto/http2_client_codec.hpp"
#include "transport/stream.hpp"

namespace stampede::clients {

// What a request on the connection is told. Each call ends the request's stream except
// on_sent; exactly one of on_response, on_failed and on_declined comes, from the loop,
// never from inside submit().
class Http2Request {
 public:
  virtual ~Http2Request() = default;

  // `retryable`: the server never processed it (refused by a graceful GOAWAY), so it may be
  // sent again on another connection.
  struct Failure {
    std::string reason;  // http.request.errors' reason: "rst_stream CANCEL", "goaway PROTOCOL_ERROR", "closed"...
    std::string what;    // a sentence for the user
    bool retryable = false;
    bool local_exhaustion = false;  // out of descriptors, ports or socket memory here
  };

  virtual void on_sent(Nanos at) = 0;
  virtual void on_response(Nanos last_byte_at, proto::Http2Response& response) = 0;
  virtual void on_failed(const Failure& failure) = 0;
  // TLS agreed on HTTP/1.1 (or nothing): the request was not sent; send it over HTTP/1.1.
  virtual void on_declined() = 0;
};

class Http2Connection : public std::enable_shared_from_this<Http2Connection>,
                        private proto::Http2ClientCodec::Listener {
 public:
  enum class State { connecting, open, draining, declined, closed };

  // `target`: the origin to connect to (its host, port and scheme).
  Http2Connection(ClientContext& ctx, const UrlTarget& target, bool insecure);
  ~Http2Connection() override;
  Http2Connection(const Http2Connection&) = delete;
  Http2Connection& operator=(const Http2Connection&) = delete;

  // Resolves, connects and (TLS) handshakes; requests may be submitted meanwhile.
  void start(transport::Resolver& resolver);

  // Queues a request on a new stream; `body` must live until the request ends. Returns the
  // stream id. 0: the connection takes no new requests (check accepts_requests() first).
  std::int32_t submit(std::span<const proto::Http2Field> fields, std::string_view body, bool has_body,
                      Http2Request& request);
  // The request gave up (its timeout): no more calls for it; its stream is reset (CANCEL).
  void cancel(std::int32_t stream_id);

  // Connecting or open, and the codec has stream ids left.
  bool accepts_requests() const;
  State state() const { return state_; }
  // Requests submitted and not yet ended.
  std::size_t open_requests() const { return codec_.open_requests(); }

  // Closes the socket; every request still open fails with reason "closed" (`why`).
  void close(const std::string& why);

 private:
  void connect(transport::Resolver::Endpoints endpoints);
  void on_connected(const transport::Failure* failure);
  void wait_readable();
  void on_readable(const boost::system::error_code& ec);
  // Writes what the codec has to send, unless a write is in flight.
  void flush();
  void end_connection(const Http2Request::Failure& failure);
  void finish_if_done();

  // proto::Http2ClientCodec::Listener
  void on_request_sent(void* request) override;
  void on_stream_end(void* request, proto::Http2StreamEnd end, std::uint32_t error_code, std::string_view detail,
                     proto::Http2Response& response) override;
  void on_goaway(std::int32_t last_stream_id, std::uint32_t error_code, std::string_view debug_data) override;

  ClientContext& ctx_;
  std::string host_;
  std::uint16_t port_;
  bool tls_;
  bool insecure_;
  State state_ = State::connecting;
  transport::Stream stream_;
  proto::Http2ClientCodec codec_;
  std::string out_;              // the write in flight (from the worker's text pool)
  bool writing_ = false;
  Nanos flush_at_ = 0;           // the moment of the current flush: its requests' send time
  Nanos last_read_at_ = 0;       // when the read being fed returned
  bool goaway_ = false;          // the server said GOAWAY
  std::uint32_t goaway_code_ = 0;
  std::int32_t goaway_last_stream_ = 0;
  bool ending_ = false;          // end_connection() is failing the streams: nothing new starts
  Http2Request::Failure ending_failure_;  // what they fail with
};

}  // namespace stampede::clients
