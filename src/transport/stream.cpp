#include "transport/stream.hpp"

#include <netinet/in.h>
#include <openssl/x509v3.h>
#include <sys/socket.h>

#include <boost/asio/error.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <array>
#include <cerrno>
#include <optional>
#include <vector>

#include "transport/kernel_receive_time.hpp"

namespace stampede::transport {

namespace asio = boost::asio;
using asio::ip::tcp;

namespace {

std::string to_string(const tcp::endpoint& endpoint) {
  const auto address = endpoint.address();
  return (address.is_v6() ? "[" + address.to_string() + "]" : address.to_string()) + ":" +
         std::to_string(endpoint.port());
}

bool is_ip_literal(const std::string& name) {
  boost::system::error_code ec;
  asio::ip::make_address(name, ec);
  return !ec;
}

}  // namespace

// The TLS layer, run only synchronously (see stream.hpp), over the socket as `Wire` shows it:
// reads go to the (non-blocking) socket; writes never block and keep nothing of the caller's
// buffer. What the socket takes at once is sent, the rest is copied to `queue_` and sent when
// the socket is writable: in the order TLS produced it, since nothing is sent directly while
// anything is queued.
class Stream::Tls {
 public:
  Tls(Socket& socket, asio::ssl::context& context) : socket_(socket), layer_(Wire{*this}, context) {}

  // The next layer of the ssl::stream: what its synchronous operations need of a stream.
  struct Wire {
    using lowest_layer_type = Socket::lowest_layer_type;
    using executor_type = Socket::executor_type;
    lowest_layer_type& lowest_layer() { return tls.socket_.lowest_layer(); }
    executor_type get_executor() { return tls.socket_.get_executor(); }
    template <typename MutableBuffers>
    std::size_t read_some(const MutableBuffers& buffers, boost::system::error_code& ec) {
      return tls.socket_.read_some(buffers, ec);
    }
    template <typename ConstBuffers>
    std::size_t write_some(const ConstBuffers& buffers, boost::system::error_code& ec) {
      return tls.take(buffers, ec);
    }
    Tls& tls;
  };

  asio::ssl::stream<Wire>& layer() { return layer_; }
  std::size_t queued() const { return queue_.size() - sent_; }

  bool flush(boost::system::error_code& ec) {
    ec = {};
    while (sent_ < queue_.size()) {
      sent_ += socket_.write_some(asio::buffer(queue_.data() + sent_, queue_.size() - sent_), ec);
      if (ec == asio::error::would_block) ec = {};
      if (ec || sent_ < queue_.size()) return false;
    }
    drop_queue();
    return true;
  }

  // The queue gives its memory back once empty: an idle connection holds no write buffer.
  void drop_queue() {
    std::string().swap(queue_);
    sent_ = 0;
  }

  // Whether a handshake the server asked for (a TLS 1.2 renegotiation) is under way.
  bool renegotiating() {
    SSL* ssl = layer_.native_handle();
    return SSL_in_init(ssl) != 0 || SSL_renegotiate_pending(ssl) != 0;
  }

  // For tls_flush_later(): one wait at a time (it is no caller's operation: nobody keeps the
  // stream alive for it, so its handler checks tls_alive()).
  bool flush_waiting = false;
  std::shared_ptr<const char> alive;  // made by the first tls_alive()
  // What a write waits on during a renegotiation; made by the first one.
  std::unique_ptr<Timer> renegotiation;

 private:
  // Sends what the socket takes now (when nothing is queued before it), queues the rest.
  template <typename ConstBuffers>
  std::size_t take(const ConstBuffers& buffers, boost::system::error_code& ec) {
    ec = {};
    const std::size_t size = asio::buffer_size(buffers);
    std::size_t skip = 0;
    if (queued() == 0) {
      skip = socket_.write_some(buffers, ec);
      if (ec == asio::error::would_block) ec = {};
      if (ec) return 0;
    }
    for (auto it = asio::buffer_sequence_begin(buffers), end = asio::buffer_sequence_end(buffers); it != end; ++it) {
      const asio::const_buffer buffer(*it);
      if (skip >= buffer.size()) {
        skip -= buffer.size();
        continue;
      }
      queue_.append(static_cast<const char*>(buffer.data()) + skip, buffer.size() - skip);
      skip = 0;
    }
    return size;
  }

  Socket& socket_;
  std::string queue_;     // ciphertext not yet sent: queue_[sent_..]
  std::size_t sent_ = 0;
  asio::ssl::stream<Wire> layer_;
};

// One connection attempt: the endpoints in turn, each with its own socket, then TLS.
struct Stream::ConnectOp : std::enable_shared_from_this<ConnectOp> {
  ConnectOp(Stream& s, Resolver::Endpoints e, ConnectOptions o, ConnectHandler d)
      : stream(s), endpoints(std::move(e)), options(std::move(o)), done(std::move(d)) {}

  Stream& stream;
  bool as_server = false;  // async_accept: the server's side of the handshake
  Resolver::Endpoints endpoints;
  ConnectOptions options;
  ConnectHandler done;
  std::size_t next = 0;
  tcp::endpoint current;
  Failure last{Step::resolve, asio::error::host_not_found, {}};

  void try_next() {
    while (endpoints && next < endpoints->size()) {
      current = (*endpoints)[next++];
      std::optional<asio::ip::address> source;
      if (!options.sources.empty()) {
        source = options.sources.take_for(current);
        if (!source) {
          last = {Step::bind, asio::error::address_family_not_supported, to_string(current)};
          continue;
        }
      }
      boost::system::error_code ec;
      stream.socket_.close(ec);  // the previous endpoint's attempt
      stream.socket_.open(current.protocol(), ec);
      // Out of descriptors: no other endpoint would do better.
      if (ec) return finish(Failure{Step::open, ec, {}});
      stream.socket_.set_option(tcp::no_delay(true), ec);
      if (source) {
        // Let connect() choose the port: then one port can serve several destinations,
        // where bind() with port 0 would reserve it for all of them.
        const int one = 1;
        ::setsockopt(stream.socket_.native_handle(), IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
        stream.socket_.bind(tcp::endpoint(*source, 0), ec);
        if (ec) {
          last = {Step::bind, ec, source->to_string()};
          continue;
        }
      }
      stream.socket_.async_connect(current, [self = shared_from_this()](const boost::system::error_code& error) {
        self->on_connected(error);
      });
      return;
    }
    finish(last);
  }

  void on_connected(const boost::system::error_code& ec) {
    if (ec == asio::error::operation_aborted || !stream.socket_.is_open()) {
      return finish(Failure{Step::connect, asio::error::operation_aborted, to_string(current)});
    }
    if (ec) {
      last = {Step::connect, ec, to_string(current)};
      return try_next();
    }
    boost::system::error_code nb;
    stream.socket_.non_blocking(true, nb);  // read_available() must never block
    if (nb) return finish(Failure{Step::connect, nb, to_string(current)});
    if (stream.tls_) return handshake();
    finish(std::nullopt);
  }

  void handshake() {
    SSL* ssl = stream.tls_->layer().native_handle();
    if (as_server) return handshake_step({});
    if (!options.alpn.empty()) {
      SSL_set_alpn_protos(ssl, reinterpret_cast<const unsigned char*>(options.alpn.data()),
                          static_cast<unsigned>(options.alpn.size()));
    }
    const std::string& name = options.server_name;
    const bool ip = is_ip_literal(name);
    if (!ip && !name.empty()) SSL_set_tlsext_host_name(ssl, name.c_str());
    if (options.verify) {
      SSL_set_verify(ssl, SSL_VERIFY_PEER, nullptr);
      if (ip) {
        X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), name.c_str());
      } else {
        SSL_set1_host(ssl, name.c_str());
      }
    } else {
      SSL_set_verify(ssl, SSL_VERIFY_NONE, nullptr);
    }
    handshake_step({});
  }

  // Runs the handshake as far as it goes without blocking: our flight goes out (waiting until
  // writable if need be), then we wait until the server's is readable, and so on.
  void handshake_step(const boost::system::error_code& waited) {
    if (waited) return on_handshake(waited);
    Tls& tls = *stream.tls_;
    boost::system::error_code ec;
    if (!tls.flush(ec)) return ec ? on_handshake(ec) : wait(Stream::Socket::wait_write);
    tls.layer().handshake(as_server ? asio::ssl::stream_base::server : asio::ssl::stream_base::client, ec);
    if (ec == asio::error::would_block) {
      return wait(tls.queued() != 0 ? Stream::Socket::wait_write : Stream::Socket::wait_read);
    }
    if (!ec && tls.queued() != 0) stream.tls_flush_later();  // the end of our last flight
    on_handshake(ec);
  }

  void wait(Stream::Socket::wait_type type) {
    stream.socket_.async_wait(type, [self = shared_from_this()](const boost::system::error_code& ec) {
      self->handshake_step(ec);
    });
  }

  void on_handshake(const boost::system::error_code& ec) {
    if (!ec) return finish(std::nullopt);
    if (ec == asio::error::operation_aborted || !stream.socket_.is_open()) {
      return finish(Failure{Step::handshake, asio::error::operation_aborted, {}});
    }
    std::string problem = certificate_problem(stream.tls_->layer().native_handle());
    finish(Failure{Step::handshake, ec, problem.empty() ? to_string(current) : problem});
  }

  void finish(const std::optional<Failure>& failure) {
    ConnectHandler handler = std::move(done);
    handler(failure ? &*failure : nullptr);
  }
};

Stream::Stream(asio::io_context& io, asio::ssl::context* tls) : socket_(io.get_executor()) {
  if (tls != nullptr) tls_ = std::make_unique<Tls>(socket_, *tls);
}

Stream::~Stream() { close(); }

void Stream::async_connect(Resolver::Endpoints endpoints, ConnectOptions options, ConnectHandler done) {
  auto op = std::make_shared<ConnectOp>(*this, std::move(endpoints), std::move(options), std::move(done));
  asio::post(socket_.get_executor(), [op] { op->try_next(); });
}

void Stream::async_accept(Socket socket, ConnectHandler done) {
  socket_ = std::move(socket);
  auto op = std::make_shared<ConnectOp>(*this, nullptr, ConnectOptions{}, std::move(done));
  op->as_server = true;
  asio::post(socket_.get_executor(), [op] {
    Stream& stream = op->stream;
    boost::system::error_code ec;
    if (stream.socket_.is_open()) stream.socket_.set_option(tcp::no_delay(true), ec);
    if (!ec && stream.socket_.is_open()) stream.socket_.non_blocking(true, ec);
    if (!stream.socket_.is_open()) ec = asio::error::operation_aborted;
    if (ec) return op->finish(Failure{Step::connect, ec, {}});
    if (stream.tls_) return op->handshake();
    op->finish(std::nullopt);
  });
}

std::string_view Stream::negotiated_protocol() {
  if (!tls_) return {};
  const unsigned char* name = nullptr;
  unsigned size = 0;
  SSL_get0_alpn_selected(tls_->layer().native_handle(), &name, &size);
  return name == nullptr ? std::string_view() : std::string_view(reinterpret_cast<const char*>(name), size);
}

std::size_t Stream::read_available(asio::mutable_buffer into, boost::system::error_code& ec) {
  if (!tls_) return socket_.read_some(into, ec);
  Tls& tls = *tls_;
  const std::size_t n = tls.layer().read_some(into, ec);
  // TLS wrote while reading (a renegotiation's handshake) and the socket did not take it all.
  if (tls.queued() != 0) tls_flush_later();
  // The renegotiation is over: a write waiting for it may go on.
  if (tls.renegotiation && !tls.renegotiating()) tls.renegotiation->cancel();
  return n;
}

std::size_t Stream::read_available(asio::mutable_buffer into, boost::system::error_code& ec, Nanos& received_at) {
  if (!tls_) return read_available_stamped(socket_.native_handle(), into, ec, received_at);
  received_at = SteadyClock::monotonic_now();  // a record's bytes may have come in several reads
  return read_available(into, ec);
}

Stream::Timer* Stream::tls_renegotiation() {
  Tls& tls = *tls_;
  if (!tls.renegotiating()) return nullptr;
  if (!tls.renegotiation) tls.renegotiation = std::make_unique<Timer>(socket_.get_executor());
  tls.renegotiation->expires_at(Timer::time_point::max());
  return tls.renegotiation.get();
}

SSL* Stream::tls_handle() { return tls_ ? tls_->layer().native_handle() : nullptr; }

std::size_t Stream::tls_encrypt(asio::const_buffer plaintext, boost::system::error_code& ec) {
  return tls_->layer().write_some(plaintext, ec);
}

bool Stream::tls_flush(boost::system::error_code& ec) { return tls_->flush(ec); }

std::weak_ptr<const char> Stream::tls_alive() {
  if (!tls_->alive) tls_->alive = std::make_shared<const char>('\0');
  return tls_->alive;
}

void Stream::tls_flush_later() {
  Tls& tls = *tls_;
  if (tls.flush_waiting || !socket_.is_open()) return;
  tls.flush_waiting = true;
  socket_.async_wait(Socket::wait_write, [this, alive = tls_alive()](const boost::system::error_code& ec) {
    if (alive.expired()) return;
    tls_->flush_waiting = false;
    boost::system::error_code failed;
    // A failure to send shows to the reader as well: the peer is gone.
    if (!ec && !tls_->flush(failed) && !failed) tls_flush_later();
  });
}

bool Stream::usable_when_idle(asio::mutable_buffer scratch) {
  if (!socket_.is_open()) return false;
  char probe = 0;
  const ssize_t n = ::recv(socket_.native_handle(), &probe, 1, MSG_PEEK | MSG_DONTWAIT);
  if (n == 0) return false;  // the peer closed it (FIN)
  // A renegotiation the server started: TLS may already hold the server's next messages
  // (read with the last response), which the socket no longer shows.
  const bool renegotiating = tls_ && tls_->renegotiating();
  if (n < 0 && !renegotiating) return errno == EAGAIN || errno == EWOULDBLOCK;  // nothing pending: alive
  // Plain HTTP: bytes nobody asked for (a 408, garbage) leave the framing unknown.
  if (!tls_) return false;
  // TLS: session tickets arrive unasked, and so do a renegotiation's messages; let the TLS
  // layer consume them. Application data or an alert means the connection is not clean, and
  // so does a renegotiation still under way (the next request's write would wait for reads
  // nobody makes).
  boost::system::error_code ec;
  const std::size_t got = read_available(scratch, ec);
  return got == 0 && ec == asio::error::would_block && !tls_->renegotiating();
}

void Stream::async_write_batched(SendBatch& batch, std::span<const boost::asio::const_buffer> buffers,
                                 BatchedWriteHandler handler) {
  std::array<iovec, SendBatch::kMaxBuffers> iov{};
  std::size_t count = 0;
  std::size_t total = 0;
  bool batchable = !tls_;
  for (const boost::asio::const_buffer& buffer : buffers) {
    if (buffer.size() == 0) continue;
    if (count == iov.size()) {
      batchable = false;
      break;
    }
    iov[count++] = iovec{const_cast<void*>(buffer.data()), buffer.size()};
    total += buffer.size();
  }
  if (!batchable || total == 0) {
    return write_unbatched(std::vector<boost::asio::const_buffer>(buffers.begin(), buffers.end()), std::move(handler));
  }
  batch.queue(
      socket_.native_handle(), iov, count,
      [this, alive = batch_token()] { return !alive.expired() && socket_.is_open(); },
      batched_done(std::move(handler)));
}

void Stream::async_write_gathered(SendBatch& batch, Gather gather, BatchedWriteHandler handler) {
  if (tls_) {
    std::array<iovec, SendBatch::kMaxBuffers> iov{};
    const std::size_t count = gather(iov);
    std::vector<boost::asio::const_buffer> all;
    for (std::size_t i = 0; i < count; ++i) all.emplace_back(iov[i].iov_base, iov[i].iov_len);
    return write_unbatched(std::move(all), std::move(handler));
  }
  batch.queue_gathered(
      socket_.native_handle(),
      [this, alive = batch_token(), gather = std::move(gather)](
          std::array<iovec, SendBatch::kMaxBuffers>& buffers) mutable -> std::size_t {
        // Closed meanwhile: its descriptor may by now be another socket's.
        return !alive.expired() && socket_.is_open() ? gather(buffers) : 0;
      },
      batched_done(std::move(handler)));
}

std::weak_ptr<const char> Stream::batch_token() {
  if (!alive_) alive_ = std::make_shared<const char>('\0');
  return alive_;
}

void Stream::write_unbatched(std::vector<boost::asio::const_buffer> buffers, BatchedWriteHandler handler) {
  async_write(buffers, [handler = std::move(handler)](const boost::system::error_code& ec, std::size_t n) mutable {
    handler(ec, n, 0);
  });
}

SendBatch::Done Stream::batched_done(BatchedWriteHandler handler) {
  return [this, alive = batch_token(), handler = std::move(handler)](
             const boost::system::error_code& ec, std::size_t sent, Nanos sent_at,
             std::span<const iovec> queued) mutable {
    std::size_t total = 0;
    for (const iovec& buffer : queued) total += buffer.iov_len;
    if (ec || sent == total) return handler(ec, sent, sent_at);
    if (alive.expired()) return handler(boost::asio::error::operation_aborted, sent, sent_at);
    // The socket took only part (its buffer was full): the rest once it has room.
    std::vector<boost::asio::const_buffer> rest;
    std::size_t skip = sent;
    for (const iovec& buffer : queued) {
      if (skip >= buffer.iov_len) {
        skip -= buffer.iov_len;
        continue;
      }
      rest.emplace_back(static_cast<const char*>(buffer.iov_base) + skip, buffer.iov_len - skip);
      skip = 0;
    }
    boost::asio::async_write(socket_, rest,
                             [handler = std::move(handler), sent, sent_at](const boost::system::error_code& error,
                                                                           std::size_t more) {
                               handler(error, sent + more, sent_at);
                             });
  };
}

void Stream::close() {
  boost::system::error_code ignored;
  socket_.close(ignored);
  if (!tls_) return;
  tls_->drop_queue();  // nothing can send it now
  if (tls_->renegotiation) tls_->renegotiation->cancel();  // a write waiting for it ends
}

}  // namespace stampede::transport
