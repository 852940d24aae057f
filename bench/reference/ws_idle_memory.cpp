// bench/ws-idle-memory's program: the heap one idle, open WebSocket client connection holds,
// Stampede's (clients::WebSocketSession on proto/websocket_frame) against Boost.Beast's
// (websocket::stream<tcp_stream> with its read buffer and a read pending, as a client that
// waits for server pushes keeps it), in one process and one run. Each connection has done its
// upgrade and one echo (a Phoenix socket's join is such an exchange), then sits idle. Plain
// connected TCP sockets are measured too and subtracted: what is left is the protocol's.
// The echo server runs in a child process, so the counted heap is the clients' alone.
//
// Usage: ws_idle_memory CONNECTIONS ROUNDS   (prints one line per round and implementation)
#include <malloc.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "clients/client_context.hpp"
#include "clients/websocket_session.hpp"
#include "common/clock.hpp"
#include "metrics/metric_sink.hpp"

namespace {

std::atomic<long long> live_bytes{0};

}  // namespace

void* operator new(std::size_t n) {
  void* p = std::malloc(n == 0 ? 1 : n);
  if (p == nullptr) throw std::bad_alloc();
  live_bytes += static_cast<long long>(malloc_usable_size(p));
  return p;
}
void operator delete(void* p) noexcept {
  if (p == nullptr) return;
  live_bytes -= static_cast<long long>(malloc_usable_size(p));
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept { operator delete(p); }

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using asio::ip::tcp;

// The child: a Beast echo server on its own port, one thread per connection (no heap of the
// parent's is touched).
[[noreturn]] void serve(tcp::acceptor& acceptor) {
  for (;;) {
    tcp::socket socket(acceptor.get_executor());
    acceptor.accept(socket);
    std::thread([s = std::move(socket)]() mutable {
      try {
        websocket::stream<tcp::socket> ws(std::move(s));
        ws.accept();
        for (;;) {
          beast::flat_buffer buffer;
          ws.read(buffer);
          ws.text(ws.got_text());
          ws.write(buffer.data());
        }
      } catch (...) {
      }
    }).detach();
  }
}

struct Loop {
  asio::io_context& io;
  template <typename Done>
  void run_until(Done done) {
    while (!done()) io.run_one();
  }
};

// `n` connected plain sockets (the baseline), kept in `out`.
void plain(asio::io_context& io, tcp::endpoint at, int n, std::vector<std::unique_ptr<tcp::socket>>& out) {
  for (int i = 0; i < n; ++i) {
    out.push_back(std::make_unique<tcp::socket>(io));
    out.back()->connect(at);
  }
}

void stampede_sessions(stampede::clients::ClientContext& ctx, asio::io_context& io, const std::string& url, int n,
                       std::vector<std::unique_ptr<stampede::clients::WebSocketSession>>& out) {
  int echoed = 0;
  for (int i = 0; i < n; ++i) {
    stampede::clients::WebSocketSession::Callbacks callbacks;
    callbacks.on_message = [&echoed](stampede::proto::ws::Opcode, std::string_view) { ++echoed; };
    out.push_back(std::make_unique<stampede::clients::WebSocketSession>(ctx, std::move(callbacks)));
    auto* session = out.back().get();
    session->connect(url, {}, [session](const stampede::clients::WebSocketSession::ConnectResult& r) {
      if (!r.ok()) {
        std::fprintf(stderr, "connect: %s\n", r.error.c_str());
        std::exit(1);
      }
      session->send_text("{\"topic\":\"phoenix\",\"event\":\"heartbeat\"}");
    });
  }
  Loop{io}.run_until([&] { return echoed == n; });
}

struct BeastClient {
  websocket::stream<beast::tcp_stream> ws;
  beast::flat_buffer buffer;
  explicit BeastClient(asio::io_context& io) : ws(io) {}
};

void beast_clients(asio::io_context& io, tcp::endpoint at, int n, std::vector<std::unique_ptr<BeastClient>>& out) {
  int echoed = 0;
  for (int i = 0; i < n; ++i) {
    out.push_back(std::make_unique<BeastClient>(io));
    BeastClient* c = out.back().get();
    beast::get_lowest_layer(c->ws).async_connect(at, [c, &echoed](beast::error_code ec) {
      if (ec) std::exit(1);
      c->ws.async_handshake("127.0.0.1", "/", [c, &echoed](beast::error_code ec2) {
        if (ec2) std::exit(1);
        c->ws.text(true);
        c->ws.async_write(asio::buffer(std::string_view("{\"topic\":\"phoenix\",\"event\":\"heartbeat\"}")),
                          [c, &echoed](beast::error_code ec3, std::size_t) {
                            if (ec3) std::exit(1);
                            c->ws.async_read(c->buffer, [c, &echoed](beast::error_code ec4, std::size_t) {
                              if (ec4) std::exit(1);
                              ++echoed;
                              c->buffer.consume(c->buffer.size());
                              // Idle, waiting for the server's next push, as a client sits.
                              c->ws.async_read(c->buffer, [](beast::error_code, std::size_t) {});
                            });
                          });
      });
    });
  }
  Loop{io}.run_until([&] { return echoed == n; });
}

// Live heap bytes per item that `make` adds, after a warm round of the same kind has paid
// the one-time costs (Asio services, the worker's buffers); the warm round stays open.
template <typename Make>
long long per_item(Make make, int n) {
  make(n);  // warm
  const long long before = live_bytes.load();
  make(n);
  return (live_bytes.load() - before) / n;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 500;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 3;
  asio::io_context server_io;
  tcp::acceptor acceptor(server_io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  const tcp::endpoint at = acceptor.local_endpoint();
  const pid_t child = fork();
  if (child == 0) serve(acceptor);
  acceptor.close();
  const std::string url = "ws://127.0.0.1:" + std::to_string(at.port()) + "/";

  for (int round = 1; round <= rounds; ++round) {
    // Interleaved, a fresh loop and context each time.
    long long base = 0, ours = 0, theirs = 0;
    {
      asio::io_context io;
      std::vector<std::unique_ptr<tcp::socket>> sockets;
      base = per_item([&](int k) { plain(io, at, k, sockets); }, n);
    }
    {
      asio::io_context io;
      stampede::metrics::Registry registry;
      stampede::metrics::MetricSink sink(registry);
      stampede::SteadyClock clock;
      stampede::clients::ClientContext ctx(io, sink, clock);
      std::vector<std::unique_ptr<stampede::clients::WebSocketSession>> sessions;
      ours = per_item([&](int k) { stampede_sessions(ctx, io, url, k, sessions); }, n);
      sessions.clear();
      io.run_for(std::chrono::milliseconds(50));
    }
    {
      asio::io_context io;
      std::vector<std::unique_ptr<BeastClient>> clients;
      theirs = per_item([&](int k) { beast_clients(io, at, k, clients); }, n);
    }
    std::printf("round %d: plain socket %lld bytes; stampede websocket %lld (+%lld); beast websocket %lld (+%lld)\n",
                round, base, ours, ours - base, theirs, theirs - base);
    std::fflush(stdout);
  }
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  return 0;
}
