#include "clients/test_certificate.hpp"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include <stdexcept>

namespace stampede::testing {

namespace {

void add_extension(X509* cert, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, cert, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
  if (ext == nullptr) throw std::runtime_error("test certificate: bad extension " + value);
  X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
}

}  // namespace

TestCertificate::TestCertificate(std::string_view dns_name) {
  const std::string name(dns_name);
  key_ = EVP_EC_gen("P-256");
  cert_ = X509_new();
  if (key_ == nullptr || cert_ == nullptr) throw std::runtime_error("test certificate: out of memory");
  X509_set_version(cert_, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert_), 1);
  X509_gmtime_adj(X509_getm_notBefore(cert_), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert_), 24 * 3600);
  X509_set_pubkey(cert_, key_);
  X509_NAME* subject = X509_get_subject_name(cert_);
  X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(name.c_str()), -1,
                             -1, 0);
  X509_set_issuer_name(cert_, subject);
  add_extension(cert_, NID_basic_constraints, "critical,CA:TRUE");
  add_extension(cert_, NID_subject_alt_name, "DNS:" + name);
  if (X509_sign(cert_, key_, EVP_sha256()) == 0) throw std::runtime_error("test certificate: signing failed");

  server_ = SSL_CTX_new(TLS_server_method());
  if (server_ == nullptr || SSL_CTX_use_certificate(server_, cert_) != 1 || SSL_CTX_use_PrivateKey(server_, key_) != 1) {
    throw std::runtime_error("test certificate: server context failed");
  }
}

TestCertificate::~TestCertificate() {
  SSL_CTX_free(server_);
  X509_free(cert_);
  EVP_PKEY_free(key_);
}

std::string TestCertificate::pem() const {
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_X509(bio, cert_);
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio, &data);
  std::string out(data, static_cast<std::size_t>(size));
  BIO_free(bio);
  return out;
}

}  // namespace stampede::testing
