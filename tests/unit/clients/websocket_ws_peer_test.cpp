// Our WebSocket client against an independent implementation: the npm `ws` server in
// tests/js/ws_echo_server.js, run as a child process, with and without permessage-deflate.
// Also measures what an idle open connection costs: the peer is another process, so the
// heap of this process holds only the client's side.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "clients/http_fixture.hpp"
#include "clients/websocket_session.hpp"
#include "heap_in_use.hpp"
#include "test_paths.hpp"

extern char** environ;

namespace stampede::testing {
namespace {

using clients::WebSocketSession;
using proto::ws::Opcode;
namespace close_code = proto::ws::close_code;

std::optional<std::string> find_on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::string_view rest = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  while (!rest.empty()) {
    const auto colon = rest.find(':');
    const std::filesystem::path candidate = std::filesystem::path(rest.substr(0, colon)) / program;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  return std::nullopt;
}

// tests/js, found from this source file's place in the repository.
std::filesystem::path js_directory() {
  return stampede::testing::tests_dir() / "js";
}

// The `ws` echo server as a child process, stopped with SIGTERM by the destructor.
class WsPeerProcess {
 public:
  explicit WsPeerProcess(bool compress) {
    const auto node = find_on_path("node");
    if (!node) {
      problem_ = "node is not installed, and this test runs the npm `ws` server as the independent peer; install "
                 "Node.js (Debian: apt-get install nodejs) and run scripts/setup-test-deps.sh";
      return;
    }
    const auto script = js_directory() / "ws_echo_server.js";
    if (!std::filesystem::exists(js_directory() / "node_modules" / "ws")) {
      problem_ = "tests/js/node_modules/ws is missing; run scripts/setup-test-deps.sh (npm ci in tests/js)";
      return;
    }
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) {
      problem_ = "pipe() failed";
      return;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    std::vector<std::string> args = {*node, script.string(), "0"};
    if (compress) args.emplace_back("--compress");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const int spawned = ::posix_spawn(&pid_, node->c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(fds[1]);
    if (spawned != 0) {
      ::close(fds[0]);
      pid_ = -1;
      problem_ = "cannot start " + *node;
      return;
    }
    // Wait for "listening <port>".
    std::string out;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (out.find('\n') == std::string::npos && std::chrono::steady_clock::now() < deadline) {
      pollfd p{fds[0], POLLIN, 0};
      if (::poll(&p, 1, 200) <= 0) continue;
      char chunk[256];
      const ssize_t n = ::read(fds[0], chunk, sizeof chunk);
      if (n <= 0) break;
      out.append(chunk, static_cast<std::size_t>(n));
    }
    ::close(fds[0]);
    if (out.rfind("listening ", 0) != 0) {
      problem_ = "the ws server did not start (it printed \"" + out + "\")";
      return;
    }
    port_ = static_cast<std::uint16_t>(std::stoi(out.substr(10)));
  }

  ~WsPeerProcess() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }

  const std::string& problem() const { return problem_; }
  std::string url(std::string_view path = "/") const {
    return "ws://127.0.0.1:" + std::to_string(port_) + std::string(path);
  }

 private:
  pid_t pid_ = -1;
  std::uint16_t port_ = 0;
  std::string problem_;
};

struct PeerEvents {
  std::vector<std::pair<Opcode, std::string>> messages;
  std::optional<WebSocketSession::CloseInfo> closed;

  WebSocketSession::Callbacks callbacks() {
    WebSocketSession::Callbacks cb;
    cb.on_message = [this](Opcode opcode, std::string_view payload) { messages.emplace_back(opcode, payload); };
    cb.on_close = [this](const WebSocketSession::CloseInfo& info) { closed = info; };
    return cb;
  }
};

class WsPeer : public HttpFixture, public ::testing::WithParamInterface<bool> {
 protected:
  void SetUp() override {
    peer_ = std::make_unique<WsPeerProcess>(compressed());
    if (!peer_->problem().empty()) FAIL() << peer_->problem();
  }

  bool compressed() const { return GetParam(); }

  WebSocketSession::ConnectOptions options() const {
    WebSocketSession::ConnectOptions o;
    o.compression = compressed();
    return o;
  }

  void open(WebSocketSession& session, WebSocketSession::ConnectOptions o) {
    std::optional<WebSocketSession::ConnectResult> result;
    session.connect(peer_->url("/socket/websocket"), std::move(o),
                    [&](WebSocketSession::ConnectResult r) { result = std::move(r); });
    ASSERT_TRUE(run_until([&] { return result.has_value(); }));
    ASSERT_TRUE(result->ok()) << result->error;
    EXPECT_EQ(result->compressed, compressed());
  }

  std::unique_ptr<WsPeerProcess> peer_;
};

TEST_P(WsPeer, EchoesTextAndBinary) {
  PeerEvents events;
  WebSocketSession session(ctx, events.callbacks());
  open(session, options());
  const std::string binary("\x00\xff\x10 binary \x80", 12);
  session.send_text("hello from stampede");
  session.send_binary(binary);
  session.send_text("Grüße, 世界");
  ASSERT_TRUE(run_until([&] { return events.messages.size() == 3; }));
  EXPECT_EQ(events.messages[0], std::make_pair(Opcode::Text, std::string("hello from stampede")));
  EXPECT_EQ(events.messages[1], std::make_pair(Opcode::Binary, binary));
  EXPECT_EQ(events.messages[2], std::make_pair(Opcode::Text, std::string("Grüße, 世界")));
}

TEST_P(WsPeer, ManyMessagesInARowArriveInOrder) {
  PeerEvents events;
  WebSocketSession session(ctx, events.callbacks());
  open(session, options());
  constexpr int kMessages = 2000;
  for (int i = 0; i < kMessages; ++i) session.send_text("message " + std::to_string(i));
  ASSERT_TRUE(run_until([&] { return events.messages.size() == kMessages; }));
  for (int i = 0; i < kMessages; ++i) ASSERT_EQ(events.messages[static_cast<std::size_t>(i)].second, "message " + std::to_string(i));
}

TEST_P(WsPeer, AnswersThePeersPing) {
  PeerEvents events;
  WebSocketSession session(ctx, events.callbacks());
  open(session, options());
  session.send_text("ping-me");
  ASSERT_TRUE(run_until([&] { return !events.messages.empty(); }));
  EXPECT_EQ(events.messages[0].second, "pong:hello");
}

TEST_P(WsPeer, ReassemblesFragments) {
  PeerEvents events;
  WebSocketSession session(ctx, events.callbacks());
  open(session, options());
  const std::string text = "Grüße aus dem Süden, with characters cut between fragments: äöü ß 日本 🎉 and more.";
  session.send_text("fragments 7 " + text);
  ASSERT_TRUE(run_until([&] { return !events.messages.empty(); }));
  EXPECT_EQ(events.messages[0], std::make_pair(Opcode::Text, text));
}

TEST_P(WsPeer, ReceivesABigMessage) {
  PeerEvents events;
  WebSocketSession session(ctx, events.callbacks());
  open(session, options());
  session.send_text("big 3000000");
  ASSERT_TRUE(run_until([&] { return !events.messages.empty(); }));
  EXPECT_EQ(events.messages[0].first, Opcode::Binary);
  EXPECT_EQ(events.messages[0].second, std::string(3000000, 'a'));
}

TEST_P(WsPeer, RefusesAMessageOverTheLimit) {
  PeerEvents events;
  WebSocketSession session(ctx, events.callbacks());
  auto o = options();
  o.max_message_bytes = 1024 * 1024;
  open(session, o);
  session.send_text("big 2000000");
  ASSERT_TRUE(run_until([&] { return events.closed.has_value(); }));
  EXPECT_TRUE(events.messages.empty());
  EXPECT_EQ(events.closed->code, close_code::kTooBig);
  EXPECT_EQ(events.closed->reason, "too big");
}

TEST_P(WsPeer, ThePeerClosesWith4000) {
  PeerEvents events;
  WebSocketSession session(ctx, events.callbacks());
  open(session, options());
  session.send_text("close-me");
  ASSERT_TRUE(run_until([&] { return events.closed.has_value(); }));
  EXPECT_EQ(events.closed->code, 4000);
  EXPECT_EQ(events.closed->reason, "as you asked");
  EXPECT_TRUE(events.closed->clean);
  const auto snapshot = take();
  const auto* disconnects = metric(snapshot, "ws.disconnects");
  ASSERT_NE(disconnects, nullptr);
  EXPECT_EQ(disconnects->reasons.at("remote 4000"), 1u);
}

TEST_P(WsPeer, OurCloseIsAnswered) {
  PeerEvents events;
  WebSocketSession session(ctx, events.callbacks());
  open(session, options());
  session.send_text("last words");
  session.close(close_code::kNormal, "done");
  ASSERT_TRUE(run_until([&] { return events.closed.has_value(); }));
  EXPECT_EQ(events.closed->code, close_code::kNormal);
  EXPECT_TRUE(events.closed->clean);
  EXPECT_EQ(events.messages.size(), 1u) << "the echo sent before the peer's close still arrives";
}

// Heap bytes per open, idle connection (the session object included), after one message
// each way so that compression state, when negotiated, exists in both directions.
TEST_P(WsPeer, IdleConnectionMemory) {
  int received = 0;
  WebSocketSession::Callbacks cb;
  cb.on_message = [&received](Opcode, std::string_view) { ++received; };
  constexpr int kConnections = 100;
  {
    WebSocketSession warm_up(ctx, cb);  // one-time costs: read buffer, DNS cache, Asio services, scratch
    open(warm_up, options());
    warm_up.send_text(std::string(2000, 'w'));
    ASSERT_TRUE(run_until([&] { return received == 1; }));
  }
  // What as many connections writing in one loop turn leave to the worker: its spare output
  // strings and its batch of sends keep their size for the next turn. Both are bounded (at
  // most 128 strings of up to 4 KB; the largest batch) however many connections there are,
  // so not a connection's cost. Made by connections that stay open, so that the measured
  // ones below still pay for their own socket state.
  std::vector<std::unique_ptr<WebSocketSession>> busy;
  for (int i = 0; i < kConnections; ++i) {
    busy.push_back(std::make_unique<WebSocketSession>(ctx, cb));
    open(*busy.back(), options());
  }
  for (int turn = 0; turn < 2; ++turn) {  // the batch alternates between two queues
    received = 0;
    for (auto& session : busy) session->send_text(std::string(2000, 'b'));
    ASSERT_TRUE(run_until([&] { return received == kConnections; }));
  }
  run_for(std::chrono::milliseconds(20));

  const auto before = static_cast<long long>(heap_in_use());
  std::vector<std::unique_ptr<WebSocketSession>> sessions;
  sessions.reserve(kConnections);
  int opened = 0;
  for (int i = 0; i < kConnections; ++i) {
    sessions.push_back(std::make_unique<WebSocketSession>(ctx, cb));
    sessions.back()->connect(peer_->url("/socket/websocket"), options(), [&opened](WebSocketSession::ConnectResult r) {
      EXPECT_TRUE(r.ok()) << r.error;
      ++opened;
    });
  }
  ASSERT_TRUE(run_until([&] { return opened == kConnections; }));
  received = 0;
  for (auto& session : sessions) session->send_text(R"(["1","1","room:lobby","phx_join",{}])");
  ASSERT_TRUE(run_until([&] { return received == kConnections; }));
  run_for(std::chrono::milliseconds(50));
  const long long per_connection = (static_cast<long long>(heap_in_use()) - before) / kConnections;
  for (auto& session : sessions) EXPECT_TRUE(session->is_open());

  std::cout << "[ memory   ] idle open WebSocket connection" << (compressed() ? " with permessage-deflate" : "")
            << " = " << per_connection << " heap bytes (session, socket, Asio's per-socket state"
            << (compressed() ? ", zlib deflate + inflate state" : "") << ")" << std::endl;
  EXPECT_GT(per_connection, 0) << "nothing was measured";
  if (compressed()) {
    EXPECT_LT(per_connection, 400 * 1024);
  } else {
    EXPECT_LT(per_connection, 2 * 1024);
  }
}

INSTANTIATE_TEST_SUITE_P(Compression, WsPeer, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& param) {
                           return param.param ? "Compressed" : "Plain";
                         });

}  // namespace
}  // namespace stampede::testing
