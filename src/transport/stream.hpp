#pragma once
// One TCP connection, plain or TLS: the seam between the clients (HTTP now, WebSocket
// next) and the network, in the spirit of wrk's {connect, read, write, close} table. No
// inheritance: a socket, plus a TLS layer over it when the connection is encrypted.
//
// Reading is readiness-based (wait until readable, then read what is there without
// blocking) so that all connections of a worker can share one read buffer: bytes land in
// the buffer only inside the caller's handler, never from an operation still pending on
// some other connection. Writes are ordinary Asio composed writes from the caller's
// buffers, which must stay alive until the handler runs.
//
// A Stream carries one connection: connect it once, use it, close it. Like any Asio I/O
// object it must outlive its pending operations (the handlers are the usual place to keep
// its owner alive).
#include <openssl/ssl.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/write.hpp>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "transport/errors.hpp"
#include "transport/resolve.hpp"
#include "transport/source_addresses.hpp"

namespace stampede::transport {

class Stream {
 public:
  // The io_context's own executor type: one pointer, where the default any_io_executor
  // would add tens of bytes to every idle connection.
  using Socket = boost::asio::basic_stream_socket<boost::asio::ip::tcp, boost::asio::io_context::executor_type>;
  using TlsLayer = boost::asio::ssl::stream<Socket&>;

  // `tls` null: plain TCP. Otherwise a TLS client over that context, which must outlive
  // the stream.
  Stream(boost::asio::io_context& io, boost::asio::ssl::context* tls);
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  struct ConnectOptions {
    SourceAddresses sources;  // bind to the next of these before connecting (empty: don't bind)
    std::string server_name;  // TLS: sent as SNI (unless an IP address) and matched by the certificate
    bool verify = true;       // TLS: verify the certificate chain and the name
  };
  // Called with nullptr once connected (and, for TLS, handshaken), otherwise with what failed.
  using ConnectHandler = std::function<void(const Failure* failure)>;

  // Tries the endpoints in order until one accepts, then does the TLS handshake. `done` runs
  // from the loop, never inside this call. Closing the stream meanwhile ends the attempt
  // (with operation_aborted).
  void async_connect(Resolver::Endpoints endpoints, ConnectOptions options, ConnectHandler done);

  // Writes all of `buffers`; handler(error_code, std::size_t).
  template <typename ConstBuffers, typename WriteHandler>
  void async_write(const ConstBuffers& buffers, WriteHandler&& handler) {
    if (tls_) {
      boost::asio::async_write(*tls_, buffers, std::forward<WriteHandler>(handler));
    } else {
      boost::asio::async_write(socket_, buffers, std::forward<WriteHandler>(handler));
    }
  }

  // Copies what has arrived into `into` without blocking. Returns the byte count (> 0), or 0
  // with `ec` set: would_block (wait, then read again), eof / stream_truncated (the peer
  // closed), or the error. A TLS stream reports would_block only once the socket is drained,
  // so a reader that stops early must call this again before waiting.
  std::size_t read_available(boost::asio::mutable_buffer into, boost::system::error_code& ec);

  // handler(error_code) once the socket has bytes (or an error) to read.
  template <typename WaitHandler>
  void async_wait_readable(WaitHandler&& handler) {
    socket_.async_wait(Socket::wait_read, std::forward<WaitHandler>(handler));
  }

  // TLS may hold decrypted bytes that the socket no longer shows as readable: a reader must
  // try read_available before waiting.
  bool may_hold_input() const { return tls_ != nullptr; }

  // Whether an idle keep-alive connection can carry another request: false once the peer
  // closed it, reset it, or sent bytes nobody asked for. Costs one non-blocking peek;
  // `scratch` is used when TLS records (session tickets) arrived while idle.
  bool usable_when_idle(boost::asio::mutable_buffer scratch);

  void close();
  bool is_open() const { return socket_.is_open(); }
  bool is_tls() const { return tls_ != nullptr; }
  Socket& socket() { return socket_; }
  SSL* tls_handle() { return tls_ ? tls_->native_handle() : nullptr; }

 private:
  struct ConnectOp;
  Socket socket_;
  std::unique_ptr<TlsLayer> tls_;  // declared after socket_: destroyed before the socket it wraps
};

}  // namespace stampede::transport
