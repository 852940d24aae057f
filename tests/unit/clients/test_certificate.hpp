#pragma once
// A self-signed certificate made in the test with OpenSSL's APIs (no files shipped, nothing
// to expire in the repository), and a server context that presents it.
#include <openssl/ssl.h>

#include <string>
#include <string_view>

namespace stampede::testing {

class TestCertificate {
 public:
  // Subject CN and subjectAltName DNS:<dns_name>; also a CA, so it can be its own trust anchor.
  explicit TestCertificate(std::string_view dns_name = "localhost");
  ~TestCertificate();
  TestCertificate(const TestCertificate&) = delete;
  TestCertificate& operator=(const TestCertificate&) = delete;

  SSL_CTX* server_context() const { return server_; }
  std::string pem() const;  // the certificate, for a CA file

 private:
  EVP_PKEY* key_ = nullptr;
  X509* cert_ = nullptr;
  SSL_CTX* server_ = nullptr;
};

}  // namespace stampede::testing
