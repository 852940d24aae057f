#pragma once
// Turns what went wrong on a connection into what a user reads: one reason word for the
// error counter's breakdown and a sentence fragment that says what happened and, where
// the fix is on our side (file descriptors, source ports), what to change.
#include <boost/system/error_code.hpp>
#include <cstdint>
#include <string>
#include <string_view>

typedef struct ssl_st SSL;

namespace stampede::transport {

// Where in a connection's life the error happened. The same errno means different things
// at different steps: EADDRINUSE from bind() is port exhaustion, a reset during the TLS
// handshake is a TLS failure.
enum class Step : std::uint8_t { resolve, open, bind, connect, handshake, write, read };

struct Failure {
  Step step = Step::connect;
  boost::system::error_code code;
  std::string detail;  // extra words (the peer's address, the certificate problem), may be empty
};

// One of: refused, unreachable, timeout, reset, closed, tls, dns, fd, ports, memory.
std::string_view failure_reason(const Failure& failure);

// "connection refused by 127.0.0.1:8080", "the process has no file descriptors left (...)".
std::string describe_failure(const Failure& failure);

// The failure is this machine running out of something, not the target: file descriptors
// (EMFILE, ENFILE), source ports (EADDRINUSE from bind, EADDRNOTAVAIL or EADDRINUSE from
// connect) or kernel memory for sockets (ENOBUFS, ENOMEM). Trying again at once fails the
// same way, so the engine backs the VU off (engine/exhaustion_backoff.hpp).
bool is_local_exhaustion(const Failure& failure);

// The peer closed the stream cleanly or abruptly: EOF, or a TLS stream cut without
// close_notify (which most HTTPS servers do).
bool is_end_of_stream(const boost::system::error_code& code);

// The peer dropped the connection (EOF, reset, broken pipe). On a reused keep-alive
// connection before any response byte, this is the server having closed it while idle.
bool is_peer_gone(const boost::system::error_code& code);

// Why OpenSSL refused the peer's certificate ("self-signed certificate", "hostname
// mismatch"), or empty when verification was not the problem.
std::string certificate_problem(SSL* ssl);

}  // namespace stampede::transport
