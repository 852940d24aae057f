#pragma once
// The TLS side of the target's HTTP/2 listener (--tls-listen): a server context with a
// self-signed certificate made when the target starts (nothing shipped, nothing to expire
// in the repository; clients connect with --insecure / insecure = true), and ALPN that
// agrees on "h2" only: the TLS listener speaks HTTP/2 and nothing else.
#include <memory>

namespace boost::asio::ssl {
class context;
}

namespace stampede::target {

// Certificate: EC P-256, CN "localhost", subjectAltName DNS:localhost, IP:127.0.0.1, IP:::1,
// valid from an hour ago for a year. A client offering ALPN without "h2" is refused with the
// no_application_protocol alert; one offering no ALPN at all is served HTTP/2 (prior
// knowledge). Throws std::runtime_error if OpenSSL cannot make it.
std::unique_ptr<boost::asio::ssl::context> make_h2_server_tls();

}  // namespace stampede::target
