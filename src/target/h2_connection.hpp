#pragma once
// One HTTP/2 connection of the target: h2c (an HTTP/1.1 Connection saw the preface and handed
// its socket over) or h2 (the TLS listener, "h2" agreed by ALPN). The same routes, delays and
// truth as HTTP/1.1, followed top to bottom:
//   readable -> read into the worker's scratch buffer -> the codec reports each complete
//   request -> dispatch it (route + drawn hold in the worker's HoldQueue) -> when the hold
//   ends, respond on its stream -> write what the codec has to send -> once a response's last
//   frame is written, record its held time.
// Streams are independent: a held response does not wait for an earlier one (no HTTP/1.1
// pipelining order). The held time runs from "fully received" (the kernel's receive stamp of
// the read that brought the request's END_STREAM; over TLS, when it was processed) to
// "response written" (the write holding its last frame completed).
// Not served over HTTP/2: the control endpoints (/__truth, /__reset, /__channels: 404, use
// HTTP/1.1) and WebSocket upgrades (HTTP/2 has no Upgrade; RFC 8441 is not implemented).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/clock.hpp"
#include "proto/http2_server_codec.hpp"
#include "target/asio_types.hpp"
#include "target/held_responder.hpp"
#include "target/response_queue.hpp"
#include "transport/stream.hpp"

namespace boost::asio::ssl {
class context;
}

namespace stampede::target {

class Worker;

class H2Connection : public HeldResponder,
                     public std::enable_shared_from_this<H2Connection>,
                     private proto::Http2ServerCodec::Listener {
 public:
  // `tls`: the server's context (the TLS listener); null for h2c.
  H2Connection(Worker& worker, boost::asio::ssl::context* tls);
  ~H2Connection() override;

  // Takes the accepted socket over (TLS: after the handshake) and feeds `early` (bytes an
  // HTTP/1.1 connection already read: the preface) before reading.
  void start(Socket socket, std::string early = {}, Nanos early_received_at = 0);
  void end_hold(PendingResponse& slot) override;

 private:
  // A request's stream, with the slot its response is built in (stable: holds point at it).
  struct Exchange {
    PendingResponse slot;
    std::int32_t stream_id = 0;
    bool held = false;    // a hold points at slot: it is not reused until the hold ends
    bool closed = false;  // the stream is gone (answered, or reset by the client)
  };

  void on_started(const std::string& early);
  void read_available();
  void wait_readable();
  void dispatch(Exchange& exchange, proto::HttpRequest& request);
  void respond(Exchange& exchange);
  void flush();
  void finish_write(Nanos handed_at);
  void close();
  Exchange* find(std::int32_t stream_id);
  Exchange& take_exchange(std::int32_t stream_id);
  void release(Exchange& exchange);

  // proto::Http2ServerCodec::Listener
  void on_request(std::int32_t stream_id, proto::HttpRequest& request) override;
  void on_response_sent(std::int32_t stream_id) override;
  void on_stream_closed(std::int32_t stream_id) override;

  Worker& worker_;
  transport::Stream stream_;
  proto::Http2ServerCodec codec_;
  std::vector<std::unique_ptr<Exchange>> exchanges_;  // open streams' (and held ones')
  std::vector<std::unique_ptr<Exchange>> spare_;      // for the next streams: their strings keep capacity
  // What the truth needs of a response whose last frame is in the output being written (its
  // stream, and so its slot, may be gone by the time the write completes).
  struct Written {
    Nanos received_at = 0;
    bool measured = false;
    bool in_flight = false;  // counted in the worker's InFlightLimit until written
  };
  std::vector<Written> taken_;      // last frames in the output taken but not yet written
  std::vector<Written> in_output_;  // ... and in the write in flight
  std::string out_;                   // the write in flight (a worker's output buffer)
  Nanos received_at_ = 0;             // the kernel's stamp of the bytes being fed (Stream::read_available)
  bool writing_ = false;
  bool closed_ = false;
};

}  // namespace stampede::target
