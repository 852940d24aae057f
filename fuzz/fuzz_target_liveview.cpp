// libFuzzer target for the built-in target's LiveView socket server (target/liveview_session*):
// two sockets with a session (the 1.x dialect under "/", 0.20 under "/lv020") and one without
// (every join is "stale"), all on one bus, fed arbitrary frame sequences mixed with frames a
// browser would send, with time passing and sockets going away in between. Whatever arrives,
// the server must not crash, must only send frames a Phoenix client can decode, must stay
// within Phoenix's channel limit, and must send nothing after it has closed a socket.
//
// The well-formed frames matter: a join is only accepted with a signed data-phx-session
// token for the topic's id and a CSRF token of the socket's session, so random bytes alone
// never get past "stale". The fuzzer signs one token per page and dialect up front, joins
// views under fixed ids, and remembers what the server hands out (the upload input's ref,
// an upload entry's token) so that the next well-formed frames can use it, as a browser does.
//
// Input: a sequence of records. The first byte of each says what happens:
//   bits 0-2  op: 0-3 a frame (a length byte, then that many bytes), 4 time passes (next
//             byte x 50 ms), 5 the socket disconnects (a fresh one takes its place),
//             6 a join of a page (next byte chooses page and kind), 7 a browser frame on a
//             joined page (next byte chooses page and frame)
//   bits 3-4  which socket (0-2, 3 wraps to 0)
//   bit  6    a raw frame is binary
#include <algorithm>
#include <array>
#include <boost/json.hpp>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "proto/phoenix_message.hpp"
#include "target/channels_bus.hpp"
#include "target/liveview_posts_store.hpp"
#include "target/liveview_router.hpp"
#include "target/liveview_session.hpp"
#include "target/presence_registry.hpp"

namespace {

namespace json = boost::json;
namespace phx = stampede::proto::phx;
using stampede::Nanos;
using namespace stampede::target;  // NOLINT(google-build-using-namespace): the fuzzer's subject

void check(bool condition) {
  if (!condition) std::abort();
}

constexpr std::size_t kPages = 8;
constexpr std::string_view kOrigin = "http://127.0.0.1:4000";

// What every input starts from: the socket session's CSRF secret, and per dialect and page a
// signed data-phx-session for the fixed id "phx-FUZZVIEW0000000<page>".
struct Fixture {
  TokenRandom random{5};
  std::string secret = new_csrf_secret(random);
  std::string masked = mask_csrf_token(secret, random);
  std::array<std::array<std::string, kPages>, 2> sessions;
  std::string flash = sign_flash("Fuzzed", wall_clock_ms());

  static std::string id_of(std::size_t page) { return "phx-FUZZVIEW0000000" + std::to_string(page); }

  Fixture() {
    for (std::size_t d = 0; d < 2; ++d) {
      for (std::size_t p = 0; p < kPages; ++p) {
        const auto& route = route_of(static_cast<LiveViewPage>(p));
        sessions[d][p] = sign_view_session(dialect_of(d), {id_of(p), std::string(route.module),
                                                           std::string(route.live_session)}, wall_clock_ms());
      }
    }
  }
  static LiveViewDialect dialect_of(std::size_t socket) {
    return socket == 1 ? LiveViewDialect::V0_20 : LiveViewDialect::V1;
  }
  static std::string_view prefix_of(std::size_t socket) { return socket == 1 ? kLv020Prefix : std::string_view(); }
};

const Fixture& fixture() {
  static const Fixture f;
  return f;
}

// Checks each frame as a client would read it, and remembers what a browser would reuse.
class CheckingSink final : public ChannelsSink {
 public:
  void send(std::string_view data, bool binary) override {
    check(!closed_);
    check(phx::decode_into(data, binary, phx::Serializer::V2, phx::Direction::ServerToClient, scratch_).empty());
    if (binary) return;
    remember_upload_ref(data);
    json::error_code ec;
    const auto payload = json::parse(scratch_.payload, ec);
    check(!ec);  // a text frame's payload is JSON
    const auto* object = payload.if_object();
    const auto* response = object != nullptr ? object->if_contains("response") : nullptr;
    const auto* entries = response != nullptr && response->is_object() ? response->as_object().if_contains("entries")
                                                                        : nullptr;
    if (entries != nullptr && entries->is_object()) {
      for (const auto& [key, token] : entries->as_object()) {
        if (token.is_string()) entry_token = std::string(token.as_string());
      }
    }
  }
  void close(std::uint16_t code, std::string_view reason) override {
    check(code == 1011);
    check(!reason.empty());
    closed_ = true;
  }

  std::string upload_ref = "phx-AAAAAAAAAAAAAAAA";
  std::string entry_token = "none";

 private:
  // An upload input's ref is a "phx-" id in the rendered page that is not a view's id.
  void remember_upload_ref(std::string_view text) {
    for (auto at = text.find("phx-"); at != std::string_view::npos; at = text.find("phx-", at + 4)) {
      const auto id = text.substr(at, 20);
      const auto id_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_'; };
      if (id.size() == 20 && id.substr(4, 8) != "FUZZVIEW" && std::all_of(id.begin() + 4, id.end(), id_char)) {
        upload_ref = std::string(id);
      }
    }
  }

  phx::Message scratch_;
  bool closed_ = false;
};

struct Services {
  PresenceRegistry presence;
  ChannelsBus bus{presence, 0, 1, 1};
  TokenRandom random{9};
  LiveViewPostsStore posts;
};

struct Socket {
  Socket(Services& services, std::size_t which)
      : session(info_of(which), phx::Serializer::V2, LiveViewServices{services.bus, services.random, services.posts},
                sink) {}
  static LiveViewConnectInfo info_of(std::size_t which) {
    LiveViewConnectInfo info{{Fixture::dialect_of(which), Fixture::prefix_of(which)}, std::nullopt};
    if (which != 2) info.session = PlugSession{fixture().secret, which == 0 ? "" : "fuzz"};
    return info;
  }
  CheckingSink sink;
  LiveViewSession session;
  unsigned next_ref = 100;
};

std::string url_of(std::size_t which, std::string_view path) {
  return std::string(kOrigin) + std::string(Fixture::prefix_of(which)) + std::string(path);
}

std::string quoted(std::string_view text) {
  return json::serialize(json::string(text));
}

// A phx_join of page `choice % 8` of four kinds: the page's URL, a live navigation to it
// ("redirect", with a flash), a URL with a query, or the URL of another page (unauthorized).
std::string join_frame(std::size_t which, std::uint8_t choice) {
  const auto page = choice % kPages;
  const auto kind = (choice / kPages) % 4;
  const auto& f = fixture();
  const auto& route = route_of(static_cast<LiveViewPage>(page));
  std::string payload = R"({"params":{"_csrf_token":)" + quoted(f.masked) + R"(,"_mounts":0,"_track_static":[]},)";
  payload += R"("session":)" + quoted(f.sessions[which == 1 ? 1 : 0][page]) + R"(,"static":null,)";
  switch (kind) {
    case 0: payload += R"("url":)" + quoted(url_of(which, route.path)); break;
    case 1:
      payload += R"("redirect":)" + quoted(url_of(which, route.path)) + R"(,"flash":)" + quoted(f.flash);
      break;
    case 2: payload += R"("url":)" + quoted(url_of(which, std::string(route.path) + "?page=2&q=%C3%A9")); break;
    default:
      payload += R"("url":)" + quoted(url_of(which, route_of(static_cast<LiveViewPage>((page + 1) % kPages)).path));
  }
  payload += "}";
  const auto join_ref = std::to_string(page + 1);
  return "[\"" + join_ref + "\",\"" + join_ref + "\",\"lv:" + Fixture::id_of(page) + "\",\"phx_join\"," + payload + "]";
}

// An upload chunk (the binary push of the V2 serializer) on "lvu:0", joined with join_ref "90".
std::string chunk_frame(std::string_view ref, std::size_t bytes) {
  constexpr std::string_view kJoinRef = "90", kTopic = "lvu:0", kEvent = "chunk";
  std::string frame;
  frame.push_back(0);
  frame.push_back(static_cast<char>(kJoinRef.size()));
  frame.push_back(static_cast<char>(ref.size()));
  frame.push_back(static_cast<char>(kTopic.size()));
  frame.push_back(static_cast<char>(kEvent.size()));
  return frame + std::string(kJoinRef) + std::string(ref) + std::string(kTopic) + std::string(kEvent) +
         std::string(bytes, 'x');
}

// What a browser sends on joined page `choice % 8` (frame `choice / 8`). The boolean: binary.
std::pair<std::string, bool> browser_frame(Socket& socket, std::size_t which, std::uint8_t choice) {
  const auto page = choice % kPages;
  const auto topic = "lv:" + Fixture::id_of(page);
  const auto join_ref = std::to_string(page + 1);
  const auto ref = std::to_string(socket.next_ref++);
  const auto& upload_ref = socket.sink.upload_ref;
  const auto on_view = [&](std::string_view event, const std::string& payload) {
    return "[\"" + join_ref + "\",\"" + ref + "\",\"" + topic + "\",\"" + std::string(event) + "\"," + payload + "]";
  };
  const auto click = [&](std::string_view name, std::string_view extra = "") {
    return on_view("event", R"({"type":"click","event":")" + std::string(name) + R"(","value":{"value":""})" +
                                std::string(extra) + "}");
  };
  const auto form = [&](std::string_view name, std::string_view encoded) {
    return on_view("event", R"({"type":"form","event":")" + std::string(name) + R"(","value":)" + quoted(encoded) +
                                R"(,"uploads":{}})");
  };
  const auto progress = [&](std::string_view value) {
    return R"({"event":null,"ref":)" + quoted(upload_ref) + R"(,"entry_ref":"0","progress":)" + std::string(value) +
           "}";
  };
  switch ((choice / kPages) % 24) {
    case 0: return {click("inc"), false};
    case 1: return {click("inc_noreply"), false};
    case 2: return {click("bump", R"(,"cid":1)"), false};
    case 3: return {click("parent_click"), false};
    case 4: return {form("validate", "post%5Btitle%5D=Hi&_target=post%5Btitle%5D"), false};
    case 5: return {form("validate", "post%5Btitle%5D=+&_target=post%5Btitle%5D"), false};
    case 6: return {form("save", "post%5Btitle%5D=Hello"), false};
    case 7: return {form("save", ""), false};
    case 8: return {on_view("live_patch", R"({"url":)" + quoted(url_of(which, "/posts?page=3")) + "}"), false};
    case 9: return {on_view("live_patch", R"({"url":)" + quoted(url_of(which, "/counter")) + "}"), false};
    case 10: return {click("lv:clear-flash", R"(,"value":{"key":"info"})"), false};
    case 11:
      return {on_view("allow_upload", R"({"ref":)" + quoted(upload_ref) +
                                          R"(,"entries":[{"ref":"0","name":"f.bin","size":100,"type":"image/png",)"
                                          R"("last_modified":1,"relative_path":""}],"cid":null})"),
              false};
    case 12: return {on_view("progress", progress("50")), false};
    case 13: return {on_view("progress", progress("100")), false};
    case 14: return {on_view("progress", progress(R"({"error":"too_large"})")), false};
    case 15: return {on_view("cids_will_destroy", R"({"cids":[1]})"), false};
    case 16: return {on_view("cids_destroyed", R"({"cids":[1,2]})"), false};
    case 17: return {on_view("phx_leave", "{}"), false};
    case 18:
      return {R"(["90",")" + ref + R"(","lvu:0","phx_join",{"token":)" + quoted(socket.sink.entry_token) + "}]", false};
    case 19: return {chunk_frame(ref, 40), true};
    case 20: return {chunk_frame(ref, 60), true};
    case 21: return {R"(["90",")" + ref + R"(","lvu:0","phx_leave",{}])", false};
    case 22: return {R"([null,")" + ref + R"(","phoenix","heartbeat",{}])", false};
    default: return {form("save", "_ignored=1"), false};
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Services services;
  std::unique_ptr<Socket> sockets[3];
  for (std::size_t i = 0; i < 3; ++i) sockets[i] = std::make_unique<Socket>(services, i);

  std::string_view input(reinterpret_cast<const char*>(data), size);
  Nanos now = 0;
  while (!input.empty()) {
    const auto record = static_cast<std::uint8_t>(input.front());
    input.remove_prefix(1);
    const unsigned op = record & 0x07;
    const std::size_t who = ((record >> 3) & 0x03) % 3;
    auto& socket = *sockets[who];

    if (op <= 3) {
      if (input.empty()) break;
      const std::size_t length = std::min<std::size_t>(static_cast<std::uint8_t>(input.front()), input.size() - 1);
      const auto frame = input.substr(1, length);
      input.remove_prefix(1 + length);
      socket.session.handle_frame(frame, (record & 0x40) != 0, now);
    } else if (op == 4) {
      if (input.empty()) break;
      now += static_cast<Nanos>(static_cast<std::uint8_t>(input.front())) * 50 * stampede::kMilli;
      input.remove_prefix(1);
      for (auto& s : sockets) {
        s->session.handle_time(now);
        const auto due = s->session.next_due();
        check(!due || *due > now);
      }
    } else if (op == 5) {
      socket.session.handle_disconnect();
      check(socket.session.channel_count() == 0);
      sockets[who] = std::make_unique<Socket>(services, who);
    } else {
      if (input.empty()) break;
      const auto choice = static_cast<std::uint8_t>(input.front());
      input.remove_prefix(1);
      if (op == 6) {
        socket.session.handle_frame(join_frame(who, choice), false, now);
      } else {
        const auto [frame, binary] = browser_frame(socket, who, choice);
        socket.session.handle_frame(frame, binary, now);
      }
    }
    check(sockets[who]->session.channel_count() <= LiveViewSession::kMaxChannels);
  }
  for (auto& s : sockets) s->session.handle_disconnect();
  return 0;
}
