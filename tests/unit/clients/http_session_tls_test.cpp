// HTTPS against a certificate made in the test: verification refuses it unless trusted,
// `insecure` skips verification, the name must match, and keep-alive works over TLS.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "clients/http_fixture.hpp"
#include "clients/scripted_server.hpp"
#include "clients/test_certificate.hpp"

namespace stampede::testing {
namespace {

using clients::HttpRequest;
using clients::HttpSession;

void echo_target(ServerConnection& conn) {
  while (auto req = conn.read_request()) conn.send(http_response(200, req->target));
}

class HttpTls : public HttpFixture {
 protected:
  static TestCertificate& certificate() {
    static TestCertificate cert("localhost");
    return cert;
  }
};

TEST_F(HttpTls, SelfSignedCertificateFailsVerification) {
  ScriptedServer server(echo_target, certificate().server_context());
  HttpSession session(ctx);
  const std::string url = server.url("/secure", "localhost");
  auto res = get(session, url);
  EXPECT_EQ(res.error_reason, "tls") << res.error;
  EXPECT_NE(res.error.find(url), std::string::npos) << res.error;
  EXPECT_NE(res.error.find("certificate verify failed"), std::string::npos) << res.error;
  EXPECT_NE(res.error.find("self-signed"), std::string::npos) << res.error;
  EXPECT_EQ(errors(take(), "tls"), 1u);
}

TEST_F(HttpTls, InsecureSkipsVerificationAndKeepsTheConnection) {
  ScriptedServer server(echo_target, certificate().server_context());
  HttpSession session(ctx);
  for (int i = 0; i < 3; ++i) {
    HttpRequest req;
    req.url = server.url("/r" + std::to_string(i), "localhost");
    req.insecure = true;
    auto res = fetch(session, req);
    EXPECT_EQ(res.error, "");
    EXPECT_EQ(res.body, "/r" + std::to_string(i));
  }
  EXPECT_EQ(server.accepted(), 1);
}

TEST_F(HttpTls, InsecureAndVerifiedConnectionsAreNotShared) {
  ScriptedServer server(echo_target, certificate().server_context());
  HttpSession session(ctx);
  HttpRequest req;
  req.url = server.url("/", "localhost");
  req.insecure = true;
  EXPECT_EQ(fetch(session, req).status, 200);
  req.insecure = false;
  EXPECT_EQ(fetch(session, req).error_reason, "tls");  // not answered on the unverified connection
}

TEST_F(HttpTls, LargeBodyAcrossManyRecords) {
  const std::string big(700 * 1024, 'q');
  ScriptedServer server(
      [&big](ServerConnection& conn) {
        while (conn.read_request()) conn.send(http_response(200, big));
      },
      certificate().server_context());
  HttpSession session(ctx);
  HttpRequest req;
  req.url = server.url("/big", "localhost");
  req.insecure = true;
  for (int i = 0; i < 2; ++i) {
    auto res = fetch(session, req);
    EXPECT_EQ(res.error, "");
    EXPECT_EQ(res.body.size(), big.size());
  }
  EXPECT_EQ(server.accepted(), 1);
}

// Trusting the certificate through SSL_CERT_FILE (read when the verifying context is made).
class HttpTrustedTls : public HttpTls {
 protected:
  void SetUp() override {
    ca_file_ = std::filesystem::temp_directory_path() / ("stampede-test-ca-" + std::to_string(::getpid()) + ".pem");
    std::ofstream(ca_file_) << certificate().pem();
    ::setenv("SSL_CERT_FILE", ca_file_.c_str(), 1);
  }
  void TearDown() override {
    ::unsetenv("SSL_CERT_FILE");
    std::filesystem::remove(ca_file_);
  }
  std::filesystem::path ca_file_;
};

TEST_F(HttpTrustedTls, TrustedCertificateWithMatchingNameIsAccepted) {
  ScriptedServer server(echo_target, certificate().server_context());
  HttpSession session(ctx);
  auto res = get(session, server.url("/ok", "localhost"));
  EXPECT_EQ(res.error, "");
  EXPECT_EQ(res.body, "/ok");
}

TEST_F(HttpTrustedTls, NameMismatchFailsVerification) {
  ScriptedServer server(echo_target, certificate().server_context());
  HttpSession session(ctx);
  auto res = get(session, server.url("/ip"));  // 127.0.0.1: the certificate names only localhost
  EXPECT_EQ(res.error_reason, "tls") << res.error;
  EXPECT_NE(res.error.find("mismatch"), std::string::npos) << res.error;
}

}  // namespace
}  // namespace stampede::testing
