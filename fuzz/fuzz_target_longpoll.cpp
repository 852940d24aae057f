// libFuzzer target for the target's LongPoll sessions (target/longpoll_sessions): sessions of
// both serializers on one bus, fed arbitrary polls, POST bodies (ndjson or not), unknown
// tokens, time passing and flushes. Whatever arrives, the server must not crash, must answer
// every poll exactly once, only with LongPoll responses a phoenix.js client can read (a status,
// the session's token, messages that decode with the session's serializer), and must answer
// a POST with {"status":200} or {"status":410}.
//
// Input: a sequence of records. The first byte of each says what happens:
//   bits 0-2  op: 0 open a session, 1 poll, 2-3 publish (a length byte, then that many bytes;
//             3: as application/x-ndjson), 4 time passes (next byte x 100 ms), 5 flush,
//             6 poll with a token no session has, 7 publish a well-formed frame (next byte chooses)
//   bits 3-5  which session (of those opened, modulo)
//   bit  6    the session opened is V1
// The input's first byte also chooses, by its bit 7, a session lifetime (its value modulo 32
// plus 1, times 100 ms): sessions then end by age too.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "proto/phoenix_longpoll.hpp"
#include "target/channels_bus.hpp"
#include "target/longpoll_sessions.hpp"
#include "target/presence_registry.hpp"

namespace {

namespace phx = stampede::proto::phx;
namespace lp = stampede::proto::phx::longpoll;
using stampede::Nanos;
using stampede::kMilli;
using stampede::target::ChannelsBus;
using stampede::target::LongPollSessions;
using stampede::target::PresenceRegistry;

void check(bool condition) {
  if (!condition) std::abort();
}

struct Opened {
  std::string token;
  phx::Serializer serializer;
};

// Every reply: called once, a LongPoll body whose messages the session's serializer reads.
struct Replies {
  std::vector<Opened>* sessions = nullptr;
  int pending = 0;

  LongPollSessions::Reply make(std::string token, phx::Serializer serializer) {
    ++pending;
    auto called = std::make_shared<bool>(false);
    return [this, token = std::move(token), serializer, called](std::string body) {
      check(!*called);
      *called = true;
      --pending;
      auto decoded = lp::decode_response(body);
      check(std::holds_alternative<lp::Response>(decoded));
      const lp::Response& response = std::get<lp::Response>(decoded);
      check(response.status == 200 || response.status == 204 || response.status == 410 || response.status == 403);
      if (response.status == 200 || response.status == 204) check(response.token && *response.token == token);
      std::vector<phx::Message> messages;
      check(lp::decode_messages(response, serializer, messages).empty());
    };
  }
};

const char* const kFrames[] = {
    R"(["1","1","room:lobby","phx_join",{}])",
    R"(["1","2","room:lobby","ping",{"n":1}])",
    R"(["1","3","room:lobby","shout",{"a":1}])",
    R"([null,"4","phoenix","heartbeat",{}])",
    R"(["5","5","presence:lobby","phx_join",{}])",
    R"(["1","6","room:lobby","phx_leave",{}])",
    R"(["7","7","room:crashme","phx_join",{}])",
    R"(["7","8","room:crashme","crash",{}])",
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  PresenceRegistry presence;
  ChannelsBus bus(presence, 0, 1, 1);
  stampede::target::TokenRandom random(7);
  std::vector<Opened> opened;
  Replies replies;
  replies.sessions = &opened;
  bool woken = false;
  LongPollSessions::Services services{bus, random, nullptr, 0, [&woken] { woken = true; }};
  // Half the inputs run with a session lifetime (stampede target --longpoll-session-lifetime):
  // sessions then also end by age, their held polls answered 410.
  if (size > 0 && (data[0] & 0x80) != 0) services.lifetime = (1 + data[0] % 32) * 100 * kMilli;
  auto sessions = std::make_unique<LongPollSessions>(std::move(services));
  Nanos now = 1000 * kMilli;

  std::size_t at = 0;
  auto next_byte = [&](std::uint8_t& b) {
    if (at >= size) return false;
    b = data[at++];
    return true;
  };
  std::uint8_t head = 0;
  while (next_byte(head)) {
    const int op = head & 7;
    const bool v1 = (head & 0x40) != 0;
    const Opened* chosen = opened.empty() ? nullptr : &opened[((head >> 3) & 7) % opened.size()];
    switch (op) {
      case 0: {
        LongPollSessions::Open open;
        open.serializer = v1 ? phx::Serializer::V1 : phx::Serializer::V2;
        auto decoded = lp::decode_response(sessions->open(std::move(open), now));
        check(std::holds_alternative<lp::Response>(decoded));
        const lp::Response& response = std::get<lp::Response>(decoded);
        check(response.status == 410 && response.token);
        if (opened.size() < 8) opened.push_back({*response.token, v1 ? phx::Serializer::V1 : phx::Serializer::V2});
        break;
      }
      case 1:
        if (chosen != nullptr) sessions->poll(chosen->token, std::nullopt, now, replies.make(chosen->token, chosen->serializer));
        break;
      case 2:
      case 3: {
        std::uint8_t n = 0;
        if (!next_byte(n)) break;
        const std::size_t len = std::min<std::size_t>(n, size - at);
        const std::string_view body(reinterpret_cast<const char*>(data) + at, len);
        at += len;
        if (chosen == nullptr) break;
        const std::string answer =
            sessions->publish(chosen->token, body, op == 3 ? lp::kBatchContentType : "application/json", now);
        check(answer == R"({"status":200})" || answer == R"({"status":410})");
        break;
      }
      case 4: {
        std::uint8_t n = 0;
        if (!next_byte(n)) break;
        now += n * 100 * kMilli;
        sessions->handle_time(now);
        break;
      }
      case 5:
        woken = false;
        sessions->flush();
        break;
      case 6:
        sessions->poll("0.999.nobody", std::nullopt, now, replies.make("0.999.nobody", phx::Serializer::V2));
        break;
      case 7: {
        std::uint8_t n = 0;
        if (!next_byte(n) || chosen == nullptr) break;
        if (chosen->serializer == phx::Serializer::V2) {
          sessions->publish(chosen->token, kFrames[n % (sizeof kFrames / sizeof kFrames[0])], lp::kBatchContentType, now);
        }
        break;
      }
      default:
        break;
    }
    // A poll held is a poll with a deadline: nothing waits without a timer to end it.
    if (replies.pending > 0) check(sessions->next_due().has_value());
  }
  // Every held poll ends within a window: after it, none is left waiting.
  now += 2 * LongPollSessions::kDefaultWindow;
  sessions->handle_time(now);
  sessions->flush();
  check(replies.pending == 0);
  return 0;
}
