#include "transport/stream.hpp"

#include <netinet/in.h>
#include <openssl/x509v3.h>
#include <sys/socket.h>

#include <boost/asio/error.hpp>
#include <boost/asio/post.hpp>
#include <cerrno>
#include <optional>

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

// One connection attempt: the endpoints in turn, each with its own socket, then TLS.
struct Stream::ConnectOp : std::enable_shared_from_this<ConnectOp> {
  ConnectOp(Stream& s, Resolver::Endpoints e, ConnectOptions o, ConnectHandler d)
      : stream(s), endpoints(std::move(e)), options(std::move(o)), done(std::move(d)) {}

  Stream& stream;
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
    SSL* ssl = stream.tls_->native_handle();
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
    stream.tls_->async_handshake(asio::ssl::stream_base::client,
                                 [self = shared_from_this()](const boost::system::error_code& ec) {
                                   self->on_handshake(ec);
                                 });
  }

  void on_handshake(const boost::system::error_code& ec) {
    if (!ec) return finish(std::nullopt);
    if (ec == asio::error::operation_aborted || !stream.socket_.is_open()) {
      return finish(Failure{Step::handshake, asio::error::operation_aborted, {}});
    }
    std::string problem = certificate_problem(stream.tls_->native_handle());
    finish(Failure{Step::handshake, ec, problem.empty() ? to_string(current) : problem});
  }

  void finish(const std::optional<Failure>& failure) {
    ConnectHandler handler = std::move(done);
    handler(failure ? &*failure : nullptr);
  }
};

Stream::Stream(asio::io_context& io, asio::ssl::context* tls) : socket_(io.get_executor()) {
  if (tls != nullptr) tls_ = std::make_unique<TlsLayer>(socket_, *tls);
}

Stream::~Stream() { close(); }

void Stream::async_connect(Resolver::Endpoints endpoints, ConnectOptions options, ConnectHandler done) {
  auto op = std::make_shared<ConnectOp>(*this, std::move(endpoints), std::move(options), std::move(done));
  asio::post(socket_.get_executor(), [op] { op->try_next(); });
}

std::size_t Stream::read_available(asio::mutable_buffer into, boost::system::error_code& ec) {
  if (tls_) return tls_->read_some(into, ec);
  return socket_.read_some(into, ec);
}

bool Stream::usable_when_idle(asio::mutable_buffer scratch) {
  if (!socket_.is_open()) return false;
  char probe = 0;
  const ssize_t n = ::recv(socket_.native_handle(), &probe, 1, MSG_PEEK | MSG_DONTWAIT);
  if (n == 0) return false;                                 // the peer closed it (FIN)
  if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK;  // nothing pending: alive
  // Plain HTTP: bytes nobody asked for (a 408, garbage) leave the framing unknown.
  if (!tls_) return false;
  // TLS: session tickets arrive unasked; let the TLS layer consume them. Application data
  // or an alert means the connection is not clean.
  boost::system::error_code ec;
  const std::size_t got = read_available(scratch, ec);
  return got == 0 && ec == asio::error::would_block;
}

void Stream::close() {
  boost::system::error_code ignored;
  socket_.close(ignored);
}

}  // namespace stampede::transport
