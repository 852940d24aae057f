// wss:// with reads and writes in flight at the same time, over real loopback TLS: tens of
// megabytes each way while the server echoes, and the same while the server makes the
// client's TLS reads write (a TLS 1.3 KeyUpdate that requests one back, a TLS 1.2
// renegotiation). Every byte must arrive intact and in order, and nothing may stall: this
// server stops reading while its echo is being sent, so the client has to keep reading
// while its own write waits for the socket.
#include <gtest/gtest.h>
#include <openssl/ssl.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "clients/http_fixture.hpp"
#include "clients/test_certificate.hpp"
#include "clients/websocket_session.hpp"
#include "clients/websocket_test_server.hpp"
#include "wait_until.hpp"

namespace stampede::testing {
namespace {

using clients::WebSocketSession;
using proto::ws::Opcode;

// Bytes that differ per message and per position: a lost, repeated, reordered or
// corrupted byte changes what arrives.
std::string pattern(std::size_t size, std::uint32_t seed) {
  std::string out(size, '\0');
  std::uint32_t x = seed * 2654435761U + 12345U;
  for (char& c : out) {
    x = x * 1664525U + 1013904223U;
    c = static_cast<char>(x >> 24);
  }
  return out;
}

// Echoes every message back; `before_echo(conn, i)` runs before the i-th echo is written
// (which is also when TLS handshake messages queued by it go out). Its socket buffers are
// small, so that the client's writes back up while the server is busy echoing: the client
// then reads while its own write waits for the socket.
WsTestServer::Script echo_with(std::function<void(WsServerConnection&, int)> before_echo) {
  return [before_echo = std::move(before_echo)](WsServerConnection& conn) {
    const int fd = SSL_get_fd(conn.tls());
    const int size = 64 * 1024;
    ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
    ::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
    if (!conn.handshake()) return;
    for (int i = 0;; ++i) {
      const ClientFrame frame = conn.read_frame();
      if (frame.kind == ClientFrame::Kind::Close) {
        conn.send_close(frame.close_code, frame.reason);
        conn.close();
        return;
      }
      if (frame.kind != ClientFrame::Kind::Message) return;
      before_echo(conn, i);
      conn.send_message(frame.opcode, frame.payload);
    }
  };
}

class WebSocketTlsDuplex : public HttpFixture {
 protected:
  // Sends `count` binary messages of `size` bytes: `burst` of them at once, then one more
  // each time an echo arrives, so that the client is writing while echoes come in. Checks
  // every echo against what was sent, in order, then closes cleanly.
  void exchange(const WsTestServer& server, int count, std::size_t size, int burst) {
    std::vector<std::string> sent;
    int received = 0;
    int mismatches = 0;
    std::optional<WebSocketSession::CloseInfo> closed;
    WebSocketSession* session_ptr = nullptr;
    auto send_next = [&] {
      sent.push_back(pattern(size, static_cast<std::uint32_t>(sent.size())));
      ASSERT_TRUE(session_ptr->send_binary(sent.back()));
    };

    WebSocketSession::Callbacks callbacks;
    callbacks.on_message = [&](Opcode opcode, std::string_view payload) {
      EXPECT_EQ(opcode, Opcode::Binary);
      const auto index = static_cast<std::size_t>(received++);
      if (index >= sent.size() || payload != sent[index]) ++mismatches;
      if (static_cast<int>(sent.size()) < count) send_next();
    };
    callbacks.on_close = [&](const WebSocketSession::CloseInfo& info) { closed = info; };
    WebSocketSession session(ctx, std::move(callbacks));
    session_ptr = &session;

    std::optional<WebSocketSession::ConnectResult> result;
    WebSocketSession::ConnectOptions options;
    options.insecure = true;
    session.connect(server.url("/", "localhost"), options,
                    [&](WebSocketSession::ConnectResult r) { result = std::move(r); });
    ASSERT_TRUE(run_until([&] { return result.has_value(); }));
    ASSERT_TRUE(result->ok()) << result->error;

    for (int i = 0; i < burst && i < count; ++i) send_next();
    ASSERT_TRUE(run_until([&] { return received == count || closed.has_value(); }, std::chrono::seconds(60)))
        << received << " of " << count << " echoes arrived: the connection stalled";
    EXPECT_FALSE(closed.has_value()) << closed->reason << ": " << closed->error;
    EXPECT_EQ(received, count);
    EXPECT_EQ(mismatches, 0);

    session.close();
    ASSERT_TRUE(run_until([&] { return closed.has_value(); }));
    EXPECT_TRUE(closed->clean) << closed->reason << ": " << closed->error;
  }
};

TEST_F(WebSocketTlsDuplex, ManyMegabytesEachWayWhileSendingArriveIntact) {
  static TestCertificate certificate("localhost");
  WsTestServer server(echo_with([](WsServerConnection&, int) {}), certificate.server_context());
  // 32 MiB each way, 8 MiB of it written in one go: far more than the sockets hold, so the
  // server's echoes wait for the client to read while the client's own write waits.
  exchange(server, 64, 512 * 1024, 16);
}

TEST_F(WebSocketTlsDuplex, ServerKeyUpdatesWhileTheClientWrites) {
  static TestCertificate certificate("localhost");
  SSL_CTX_set_min_proto_version(certificate.server_context(), TLS1_3_VERSION);
  std::atomic<int> updates{0};
  std::atomic<int> sent_alone{0};
  std::atomic<bool> tls13{true};
  int client = -1;  // the client's socket, the other end of the server's (one connection)
  WsTestServer server(echo_with([&](WsServerConnection& conn, int i) {
                        SSL* ssl = conn.tls();
                        if (SSL_version(ssl) != TLS1_3_VERSION) tls13 = false;
                        // A KeyUpdate that asks the client to update too, which OpenSSL answers
                        // from the read that finds it. Every fourth one is sent on its own once
                        // the client's write waits for the socket (this server has stopped
                        // reading, and the client has more queued than the sockets hold), so
                        // that it arrives then; the others go out with the echo.
                        if (SSL_key_update(ssl, SSL_KEY_UPDATE_REQUESTED) == 1) ++updates;
                        if (i % 4 != 0) return;
                        if (client < 0) {
                          client = other_end_in_this_process(SSL_get_fd(ssl));
                          ASSERT_GE(client, 0) << "the client's socket is not in this process";
                          // As small a send buffer as the server's: what the client has queued
                          // at the last of these (three 512 KiB messages) still fills it.
                          const int size = 64 * 1024;
                          ::setsockopt(client, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
                        }
                        wait_until("the client's write waits for the socket (echo " + std::to_string(i) + ")",
                                   [&] { return !writable(client); });
                        if (SSL_do_handshake(ssl) == 1) ++sent_alone;
                      }),
                      certificate.server_context());
  exchange(server, 64, 512 * 1024, 16);
  EXPECT_TRUE(tls13.load());
  EXPECT_EQ(updates.load(), 64);
  EXPECT_EQ(sent_alone.load(), 16);
}

TEST_F(WebSocketTlsDuplex, ServerRenegotiatesWhileTheClientWrites) {
  static TestCertificate certificate("localhost");
  SSL_CTX_set_max_proto_version(certificate.server_context(), TLS1_2_VERSION);
  std::atomic<int> requested{0};
  std::atomic<int> completed{0};
  WsTestServer server(echo_with([&](WsServerConnection& conn, int) {
                        SSL* ssl = conn.tls();
                        if (SSL_renegotiate_pending(ssl) == 1) return;  // the last one is not over yet
                        if (requested.load() > 0) ++completed;
                        // A HelloRequest: the client's TLS read answers with a ClientHello while
                        // its writes are in flight; the new handshake runs under the echoes.
                        if (SSL_renegotiate(ssl) == 1 && SSL_do_handshake(ssl) == 1) ++requested;
                      }),
                      certificate.server_context());
  exchange(server, 48, 256 * 1024, 8);
  EXPECT_GT(requested.load(), 1);
  EXPECT_GT(completed.load(), 0);
}

}  // namespace
}  // namespace stampede::testing
