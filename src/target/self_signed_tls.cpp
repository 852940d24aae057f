#include "target/self_signed_tls.hpp"

#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <boost/asio/ssl/context.hpp>
#include <stdexcept>
#include <string>

namespace stampede::target {
namespace {

void add_extension(X509* cert, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, cert, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  if (ext == nullptr) throw std::runtime_error(std::string("the TLS certificate cannot be made: bad extension ") + value);
  X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
}

// "h2" if the client offers it; otherwise the handshake fails with no_application_protocol.
int select_h2(SSL*, const unsigned char** out, unsigned char* out_size, const unsigned char* in, unsigned in_size,
              void*) {
  for (unsigned i = 0; i < in_size;) {
    const unsigned size = in[i];
    if (i + 1 + size > in_size) break;
    if (size == 2 && in[i + 1] == 'h' && in[i + 2] == '2') {
      *out = in + i + 1;
      *out_size = 2;
      return SSL_TLSEXT_ERR_OK;
    }
    i += 1 + size;
  }
  return SSL_TLSEXT_ERR_ALERT_FATAL;
}

}  // namespace

std::unique_ptr<boost::asio::ssl::context> make_h2_server_tls() {
  namespace ssl = boost::asio::ssl;
  EVP_PKEY* key = EVP_EC_gen("P-256");
  X509* cert = X509_new();
  struct Free {
    EVP_PKEY* key;
    X509* cert;
    ~Free() {
      X509_free(cert);
      EVP_PKEY_free(key);
    }
  } free_later{key, cert};
  if (key == nullptr || cert == nullptr) throw std::runtime_error("the TLS certificate cannot be made: out of memory");
  X509_set_version(cert, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
  X509_gmtime_adj(X509_getm_notBefore(cert), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert), 365L * 24 * 3600);
  X509_set_pubkey(cert, key);
  X509_NAME* subject = X509_get_subject_name(cert);
  X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("localhost"), -1, -1,
                             0);
  X509_set_issuer_name(cert, subject);
  add_extension(cert, NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1,IP:::1");
  if (X509_sign(cert, key, EVP_sha256()) == 0) throw std::runtime_error("the TLS certificate cannot be signed");

  auto context = std::make_unique<ssl::context>(ssl::context::tls_server);
  context->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                       ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
  SSL_CTX* native = context->native_handle();
  if (SSL_CTX_use_certificate(native, cert) != 1 || SSL_CTX_use_PrivateKey(native, key) != 1) {
    throw std::runtime_error("the TLS certificate cannot be used");
  }
  SSL_CTX_set_alpn_select_cb(native, &select_h2, nullptr);
  // An idle connection gives its record buffers back, as the client's do.
  SSL_CTX_set_mode(native, SSL_MODE_RELEASE_BUFFERS);
  return context;
}

}  // namespace stampede::target
