#pragma once
// One TCP connection, plain or TLS: the seam between the clients (HTTP now, WebSocket
// next) and the network, in the spirit of wrk's {connect, read, write, close} table. No
// inheritance: a socket, plus a TLS layer over it when the connection is encrypted.
//
// Reading is readiness-based (wait until readable, then read what is there without
// blocking) so that all connections of a worker can share one read buffer: bytes land in
// the buffer only inside the caller's handler, never from an operation still pending on
// some other connection. Writes complete asynchronously from the caller's buffers, which
// must stay alive until the handler runs; a read may run while a write is in flight.
//
// TLS keeps that full duplex safe. Asio's ssl::stream shares one output buffer between its
// asynchronous write and a synchronous read that has to write (a TLS 1.3 KeyUpdate that asks
// for one back, which OpenSSL answers from the read; the handshake of a TLS 1.2
// renegotiation; an alert): the read overwrote the record the write was still sending. So
// here the TLS layer only ever runs synchronously, over a socket that never blocks it: each
// record goes straight to the socket, what the socket does not take at once is copied to
// this stream's ciphertext queue behind what was queued before, and the queue is sent when
// the socket is writable. Records leave in the order TLS made them, whichever operation made
// them, and no operation holds the TLS layer's buffers across a wait. Reads are never held
// back by a write (a peer that stops reading while its own send waits would deadlock with a
// client that did). A plain TCP stream reads and writes the socket directly, as before.
//
// A Stream carries one connection: connect it once, use it, close it. Like any Asio I/O
// object it must outlive its pending operations (the handlers are the usual place to keep
// its owner alive).
#include <openssl/ssl.h>

#include <boost/asio/basic_waitable_timer.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/write.hpp>
#include <array>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/clock.hpp"
#include "common/inline_function.hpp"
#include "transport/errors.hpp"
#include "transport/resolve.hpp"
#include "transport/send_batch.hpp"
#include "transport/source_addresses.hpp"

namespace stampede::transport {

class Stream {
 public:
  // The io_context's own executor type: one pointer, where the default any_io_executor
  // would add tens of bytes to every idle connection.
  using Socket = boost::asio::basic_stream_socket<boost::asio::ip::tcp, boost::asio::io_context::executor_type>;

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
    // TLS: the application protocols offered (ALPN), in its wire format: each name after its
    // length byte ("\x02h2\x08http/1.1"). Must outlive the connection attempt (a constant).
    // Empty: none offered.
    std::string_view alpn;
  };
  // Called with nullptr once connected (and, for TLS, handshaken), otherwise with what failed.
  using ConnectHandler = std::function<void(const Failure* failure)>;

  // Tries the endpoints in order until one accepts, then does the TLS handshake. `done` runs
  // from the loop, never inside this call. Closing the stream meanwhile ends the attempt
  // (with operation_aborted).
  void async_connect(Resolver::Endpoints endpoints, ConnectOptions options, ConnectHandler done);

  // The server side of a connection the caller accepted: takes `socket` over and, for a TLS
  // stream (whose context must be a server's), does the server's handshake. `done` as for
  // async_connect (Step::handshake when it fails).
  void async_accept(Socket socket, ConnectHandler done);

  // TLS: the application protocol agreed by ALPN ("h2", "http/1.1"), empty when none was.
  std::string_view negotiated_protocol();

  // Writes all of `buffers`; handler(error_code, std::size_t bytes of `buffers` written),
  // run from the loop (on the stream's executor), never inside this call. One write at a
  // time; reads may run meanwhile. Closing the stream ends it with operation_aborted.
  template <typename ConstBuffers, typename WriteHandler>
  void async_write(const ConstBuffers& buffers, WriteHandler&& handler) {
    if (tls_) {
      TlsWrite<ConstBuffers, std::decay_t<WriteHandler>>(*this, buffers, std::forward<WriteHandler>(handler)).run({});
    } else {
      boost::asio::async_write(socket_, buffers, std::forward<WriteHandler>(handler));
    }
  }

  // Plain streams: writes all of `buffers` with `batch`'s next submission, in one system call
  // with the other sends of this loop turn (transport/send_batch.hpp); what the socket does
  // not take then is written as async_write would. handler(ec, bytes written, sent_at) runs
  // from the loop; sent_at is when the bytes went to the kernel, on the batch's clock.
  // Closing the stream before the batch goes ends the write with operation_aborted, nothing
  // sent. A TLS stream, or more than SendBatch::kMaxBuffers buffers, is written by
  // async_write (sent_at 0: the caller's own stamp stands).
  // Its captures stay inline (up to 32 bytes: a shared_ptr to the caller's request fits).
  using BatchedWriteHandler = InlineFunction<void(const boost::system::error_code&, std::size_t, Nanos sent_at), 32>;
  void async_write_batched(SendBatch& batch, std::span<const boost::asio::const_buffer> buffers,
                           BatchedWriteHandler handler);
  // The same, with the bytes asked for by `gather` when the batch goes (SendBatch::Gather):
  // what the caller adds for the rest of this loop turn leaves in the same send. Not asked,
  // and the handler told operation_aborted, if the stream closes first. A TLS stream asks
  // at once and writes as async_write does. Its captures stay inline (up to 24 bytes).
  using Gather = InlineFunction<std::size_t(std::array<iovec, SendBatch::kMaxBuffers>& buffers), 24>;
  void async_write_gathered(SendBatch& batch, Gather gather, BatchedWriteHandler handler);

  // Copies what has arrived into `into` without blocking. Returns the byte count (> 0), or 0
  // with `ec` set: would_block (wait, then read again), eof / stream_truncated (the peer
  // closed), or the error. A TLS stream reports would_block only once the socket is drained,
  // so a reader that stops early must call this again before waiting. Safe while a write is
  // in flight, TLS included (see the top of this file).
  std::size_t read_available(boost::asio::mutable_buffer into, boost::system::error_code& ec);
  // The same, and `received_at` = when the kernel received the newest bytes read, on the
  // monotonic clock, if the socket has receive timestamps on (kernel_receive_time.hpp) and
  // is plain TCP; otherwise now. A server's truth starts there (docs/design/053).
  std::size_t read_available(boost::asio::mutable_buffer into, boost::system::error_code& ec, Nanos& received_at);

  // handler(error_code) once the socket has bytes (or an error) to read.
  template <typename WaitHandler>
  void async_wait_readable(WaitHandler&& handler) {
    socket_.async_wait(Socket::wait_read, std::forward<WaitHandler>(handler));
  }

  // Plain streams only: waits for bytes and reads them into `into`, in one operation. Cheaper
  // per response than async_wait_readable + read_available: Asio re-arms the socket's epoll
  // registration (an epoll_ctl) for every wait but not for a read (docs/design/021). The
  // read still starts with a speculative recv, which finds nothing so soon after a request
  // (Boost 1.81 stops speculating only after an end of stream; design 028). `into`
  // must outlive the operation and belong to this connection alone: the read may happen
  // before the handler runs, with other connections' handlers in between.
  template <typename ReadHandler>
  void async_receive(boost::asio::mutable_buffer into, ReadHandler&& handler) {
    socket_.async_read_some(into, std::forward<ReadHandler>(handler));
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
  SSL* tls_handle();

 private:
  struct ConnectOp;
  class Tls;  // the TLS layer and its ciphertext queue (stream.cpp)

  using Timer = boost::asio::basic_waitable_timer<std::chrono::steady_clock,
                                                  boost::asio::wait_traits<std::chrono::steady_clock>,
                                                  boost::asio::io_context::executor_type>;

  // One async_write over TLS: alternately send the queued ciphertext (waiting until writable
  // while the socket will not take it) and encrypt the next record of the caller's bytes.
  // While a renegotiation the server asked for is in progress it encrypts nothing: OpenSSL
  // cannot take the server's application data in SSL_write, only in SSL_read, so the reads
  // drive that handshake and wake the write when it is over. (A caller that writes then must
  // be reading: a WebSocket always is; the HTTP client writes only on connections that are
  // not renegotiating, see usable_when_idle.) When TLS has to read before it can write
  // anyway, the write waits until readable and tries again.
  template <typename ConstBuffers, typename Handler>
  class TlsWrite {
    // Records encrypted before the loop gets a turn, however much the socket takes.
    static constexpr int kRecordsPerTurn = 16;

   public:
    TlsWrite(Stream& stream, const ConstBuffers& buffers, Handler handler)
        : stream_(&stream), buffers_(buffers), handler_(std::move(handler)) {}

    // A socket wait completed (first call: `waited` empty, from async_write itself).
    void run(boost::system::error_code waited) {
      Stream& stream = *stream_;
      boost::system::error_code ec = waited;
      for (int records = 0; !ec; ++records) {
        if (!stream.tls_flush(ec)) {
          if (ec) break;
          return wait(Socket::wait_write);
        }
        const boost::asio::const_buffer rest = unwritten();
        if (rest.size() == 0) break;
        if (records == kRecordsPerTurn) {  // let the worker's other connections have a turn
          started_ = true;
          boost::asio::post(stream.socket_.get_executor(), [op = std::move(*this)]() mutable {
            op.run(op.stream_->socket_.is_open() ? boost::system::error_code{} : boost::asio::error::operation_aborted);
          });
          return;
        }
        if (Timer* renegotiation = stream.tls_renegotiation()) {
          started_ = true;
          renegotiation->async_wait(
              [op = std::move(*this), alive = stream.tls_alive()](const boost::system::error_code&) mutable {
                const bool open = !alive.expired() && op.stream_->socket_.is_open();
                op.run(open ? boost::system::error_code{} : boost::asio::error::operation_aborted);
              });
          return;
        }
        written_ += stream.tls_encrypt(rest, ec);
        if (ec == boost::asio::error::would_block) {
          ec = {};
          if (!stream.tls_flush(ec)) {
            if (ec) break;
            return wait(Socket::wait_write);  // (then back here: TLS still wants to read)
          }
          return wait(Socket::wait_read);
        }
      }
      if (!started_) {
        boost::asio::post(stream.socket_.get_executor(),
                          [handler = std::move(handler_), ec, n = written_]() mutable { handler(ec, n); });
        return;
      }
      handler_(ec, written_);
    }

    void operator()(const boost::system::error_code& ec) { run(ec); }

   private:
    void wait(Socket::wait_type type) {
      started_ = true;
      Socket& socket = stream_->socket_;
      socket.async_wait(type, std::move(*this));
    }

    // The caller's bytes not yet handed to TLS, up to the end of the buffer they are in.
    boost::asio::const_buffer unwritten() const {
      std::size_t skip = written_;
      for (auto it = boost::asio::buffer_sequence_begin(buffers_), end = boost::asio::buffer_sequence_end(buffers_);
           it != end; ++it) {
        const boost::asio::const_buffer buffer(*it);
        if (skip < buffer.size()) return buffer + skip;
        skip -= buffer.size();
      }
      return {};
    }

    Stream* stream_;
    ConstBuffers buffers_;
    Handler handler_;
    std::size_t written_ = 0;
    bool started_ = false;  // a wait has run: the handler may be called directly
  };

  // A batched send's completion: the handler, once all is sent (the rest written as
  // async_write would when the socket took only part).
  SendBatch::Done batched_done(BatchedWriteHandler handler);
  // What a batched send's callbacks check before they touch the stream: expired once it is
  // destroyed (made by the first batched write).
  std::weak_ptr<const char> batch_token();
  // A write that cannot go in a batch (TLS, too many buffers, nothing to send), made as
  // async_write makes it; the handler gets sent_at 0 (the caller's own stamp stands).
  void write_unbatched(std::vector<boost::asio::const_buffer> buffers, BatchedWriteHandler handler);

  // For TlsWrite: while the server's renegotiation is in progress, the timer to wait on
  // (cancelled when the reads have finished the handshake, or the stream closes); else null.
  Timer* tls_renegotiation();
  // For TlsWrite: encrypts the start of `plaintext` (one record at most) and hands it to the
  // socket or the queue; returns the bytes taken. would_block: TLS must read first.
  std::size_t tls_encrypt(boost::asio::const_buffer plaintext, boost::system::error_code& ec);
  // Sends queued ciphertext without blocking. True once nothing is queued; false with `ec`
  // empty when the socket will take no more now, or with the socket's error.
  bool tls_flush(boost::system::error_code& ec);
  // A TLS read or the handshake queued ciphertext and no write may come to send it: wait
  // until writable and send it.
  void tls_flush_later();
  // Expires with the stream: for the waits that must not touch it once it is gone.
  std::weak_ptr<const char> tls_alive();

  Socket socket_;
  std::shared_ptr<const char> alive_;  // made by the first batched write: its send checks the stream still exists
  std::unique_ptr<Tls> tls_;  // declared after socket_: destroyed before the socket it wraps
};

}  // namespace stampede::transport
