#include "transport/errors.hpp"

#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>

#include <boost/asio/error.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/system/errc.hpp>

namespace stampede::transport {

namespace {

namespace asio_error = boost::asio::error;
using boost::system::errc::errc_t;

bool is(const boost::system::error_code& code, errc_t condition) {
  return code == boost::system::errc::make_error_condition(condition);
}

bool out_of_descriptors(const boost::system::error_code& code) {
  return is(code, errc_t::too_many_files_open) || is(code, errc_t::too_many_files_open_in_system);
}

// connect() finds no free (source address, source port) pair for this destination, or
// bind() finds no free port on the source address.
bool out_of_ports(const boost::system::error_code& code) {
  return is(code, errc_t::address_not_available) || is(code, errc_t::address_in_use);
}

bool out_of_socket_memory(const boost::system::error_code& code) {
  return is(code, errc_t::no_buffer_space) || is(code, errc_t::not_enough_memory);
}

bool is_tls_error(const boost::system::error_code& code) {
  return code.category() == asio_error::get_ssl_category() ||
         (code.category() == boost::asio::ssl::error::get_stream_category() &&
          code != boost::asio::ssl::error::stream_truncated);
}

std::string with_detail(std::string text, const std::string& detail) {
  if (!detail.empty()) text += " (" + detail + ")";
  return text;
}

constexpr std::string_view kFdAdvice =
    "; run fewer VUs per process, run more processes, or raise the limit with `ulimit -n`";
constexpr std::string_view kMemoryAdvice =
    "; fewer connections per machine, or more socket memory for the kernel (sysctl net.ipv4.tcp_mem, "
    "net.core.wmem_max / rmem_max; see docs/guides/limits-of-one-machine.md)";
constexpr std::string_view kPortAdvice =
    "; spread connections over more source addresses with `local_addresses` "
    "(for a loopback target: 127.0.0.2, 127.0.0.3, ...)";

}  // namespace

bool is_end_of_stream(const boost::system::error_code& code) {
  return code == asio_error::eof || code == boost::asio::ssl::error::stream_truncated;
}

bool is_peer_gone(const boost::system::error_code& code) {
  return is_end_of_stream(code) || code == asio_error::connection_reset || code == asio_error::broken_pipe;
}

std::string_view failure_reason(const Failure& f) {
  const auto& code = f.code;
  if (code == asio_error::operation_aborted) return "closed";
  if (out_of_socket_memory(code)) return "memory";
  switch (f.step) {
    case Step::resolve:
      return "dns";
    case Step::open:
      return out_of_descriptors(code) ? "fd" : "refused";
    case Step::bind:
      return "ports";
    case Step::connect:
      if (out_of_ports(code)) return "ports";
      if (code == asio_error::timed_out) return "timeout";
      if (code == asio_error::connection_reset) return "reset";
      // No route to the host or its network: nothing there refused anything.
      if (code == asio_error::host_unreachable || code == asio_error::network_unreachable) return "unreachable";
      return "refused";
    case Step::handshake:
      return "tls";
    case Step::write:
    case Step::read:
      if (is_end_of_stream(code)) return "closed";
      if (code == asio_error::timed_out) return "timeout";
      if (is_tls_error(code)) return "tls";
      return "reset";
  }
  return "reset";
}

bool is_local_exhaustion(const Failure& f) {
  const auto& code = f.code;
  if (out_of_socket_memory(code)) return true;
  switch (f.step) {
    case Step::open:
      return out_of_descriptors(code);
    case Step::bind:
      // EADDRNOTAVAIL from bind is a source address that is not ours: a mistake, not a shortage.
      return is(code, errc_t::address_in_use);
    case Step::connect:
      return out_of_ports(code);
    default:
      return false;
  }
}

std::string describe_failure(const Failure& f) {
  const auto& code = f.code;
  if (code == asio_error::operation_aborted) return "the connection was closed before the operation finished";
  if (out_of_socket_memory(code))
    return with_detail("the kernel has no memory left for sockets (" + code.message() + ")", f.detail) +
           std::string(kMemoryAdvice);
  switch (f.step) {
    case Step::resolve:
      if (code == asio_error::host_not_found || code == asio_error::host_not_found_try_again)
        return with_detail("the host name does not resolve", f.detail);
      return with_detail("name resolution failed: " + code.message(), f.detail);
    case Step::open:
      if (is(code, errc_t::too_many_files_open))
        return std::string("cannot open a socket: the process has no file descriptors left (too many open files)") +
               std::string(kFdAdvice);
      if (is(code, errc_t::too_many_files_open_in_system))
        return std::string("cannot open a socket: the system has no file descriptors left (too many open files "
                           "in system)") +
               std::string(kFdAdvice);
      return "cannot open a socket: " + code.message();
    case Step::bind:
      if (code == asio_error::address_family_not_supported)
        return with_detail("no address in local_addresses has the address family of the target", f.detail);
      if (is(code, errc_t::address_not_available))
        return with_detail("the source address is not an address of this machine; check local_addresses", f.detail);
      if (is(code, errc_t::address_in_use))
        return with_detail("no local port is free on the source address", f.detail) + std::string(kPortAdvice);
      return with_detail("cannot bind to the source address: " + code.message(), f.detail);
    case Step::connect:
      if (out_of_ports(code))
        return with_detail("no local port is free to connect from (ephemeral ports exhausted)", f.detail) +
               std::string(kPortAdvice);
      if (code == asio_error::connection_refused) return with_detail("connection refused", f.detail);
      if (code == asio_error::timed_out) return with_detail("connecting timed out", f.detail);
      return with_detail("cannot connect: " + code.message(), f.detail);
    case Step::handshake:
      if (is_end_of_stream(code) || code == asio_error::connection_reset)
        return with_detail("the server dropped the connection during the TLS handshake", f.detail);
      return with_detail("TLS handshake failed: " + code.message(), f.detail);
    case Step::write:
    case Step::read:
      if (is_end_of_stream(code)) return "the server closed the connection";
      if (code == asio_error::connection_reset || code == asio_error::broken_pipe)
        return "the connection was reset by the server";
      if (is_tls_error(code)) return with_detail("TLS error: " + code.message(), f.detail);
      return with_detail("connection error: " + code.message(), f.detail);
  }
  return code.message();
}

std::string certificate_problem(SSL* ssl) {
  if (ssl == nullptr) return {};
  const long result = SSL_get_verify_result(ssl);
  if (result == X509_V_OK) return {};
  return X509_verify_cert_error_string(result);
}

}  // namespace stampede::transport
