// HTTPS against a certificate made in the test: verification refuses it unless trusted,
// `insecure` skips verification, the name must match, keep-alive works over TLS, and so does
// a renegotiation the server starts.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/ssl.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "clients/http_fixture.hpp"
#include "clients/scripted_server.hpp"
#include "clients/test_certificate.hpp"
#include "wait_until.hpp"

namespace stampede::testing {
namespace {

using clients::HttpRequest;
using clients::HttpSession;

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

// TLS 1.2 renegotiation started by the server, as servers that ask for a client certificate
// for one path do: a HelloRequest right before the response. The client's reads answer it,
// the response arriving in the middle of the new handshake.
class HttpTlsRenegotiation : public HttpTls {
 protected:
  static TestCertificate& tls12() {
    static TestCertificate cert("localhost");
    SSL_CTX_set_max_proto_version(cert.server_context(), TLS1_2_VERSION);
    return cert;
  }

  // Renegotiates before answering each request; counts the new handshakes' Finished
  // messages it has sent. With `opened`, counts the connections in it, and after each answer
  // on the first one waits for a second connection before reading on: the client's
  // ClientHello stays unanswered until its next request has gone elsewhere.
  ScriptedServer::Script renegotiating_echo(std::atomic<int>& finished, std::atomic<int>* opened = nullptr) {
    return [&finished, opened](ServerConnection& conn) {
      if (opened != nullptr) ++*opened;
      SSL* ssl = conn.tls();
      const int fd = SSL_get_fd(ssl);
      const int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);  // each flight goes out at once
      SSL_set_msg_callback_arg(ssl, &finished);
      SSL_set_msg_callback(ssl, [](int write_p, int, int content_type, const void* buf, std::size_t len, SSL*, void* arg) {
        if (write_p == 1 && content_type == SSL3_RT_HANDSHAKE && len > 0 &&
            static_cast<const unsigned char*>(buf)[0] == SSL3_MT_FINISHED) {
          ++*static_cast<std::atomic<int>*>(arg);
        }
      });
      while (auto req = conn.read_request()) {
        if (SSL_renegotiate(ssl) != 1 || SSL_do_handshake(ssl) != 1) return;
        conn.send(http_response(200, req->target));
        if (opened != nullptr && conn.number() == 1 &&
            !wait_until("the client's next request on a second connection", [&] { return *opened >= 2; })) {
          return;
        }
      }
    };
  }

  HttpRequest request(const ScriptedServer& server, const std::string& path) {
    HttpRequest req;
    req.url = server.url(path, "localhost");
    req.insecure = true;
    return req;
  }
};

// The server's answer to the ClientHello comes while the connection is idle: checking the
// idle connection reads it (TLS may already hold it) and finishes the handshake, and the
// next request goes out on the same connection.
TEST_F(HttpTlsRenegotiation, FinishesOnTheIdleConnectionWhichIsReused) {
  std::atomic<int> finished{0};
  ScriptedServer server(renegotiating_echo(finished), tls12().server_context());
  HttpSession session(ctx);
  for (int i = 0; i < 5; ++i) {
    auto res = fetch(session, request(server, "/r" + std::to_string(i)));
    EXPECT_EQ(res.error, "");
    EXPECT_EQ(res.body, "/r" + std::to_string(i));
    ASSERT_TRUE(run_until([&] { return finished.load() == i + 1; })) << "the server never answered the ClientHello";
    run_for(std::chrono::milliseconds(5));  // its flight reaches the client
  }
  EXPECT_EQ(server.accepted(), 1);
}

// The next request comes before the server has answered: the connection is in the middle of
// a handshake that only reads can finish, and nobody reads an idle connection. The request
// must not wait for it: it goes out on a new connection.
TEST_F(HttpTlsRenegotiation, AConnectionInTheMiddleOfOneIsNotReused) {
  std::atomic<int> finished{0};
  std::atomic<int> opened{0};
  ScriptedServer server(renegotiating_echo(finished, &opened), tls12().server_context());
  HttpSession session(ctx);
  auto first = fetch(session, request(server, "/first"));
  EXPECT_EQ(first.error, "");
  HttpRequest second = request(server, "/second");
  second.timeout = 2 * kSecond;
  auto res = fetch(session, second);
  EXPECT_EQ(res.error, "");
  EXPECT_EQ(res.body, "/second");
  EXPECT_EQ(server.accepted(), 2);
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
