// libFuzzer target for the client's LongPoll state machine (clients/longpoll_cycle): arbitrary
// answers to polls and POSTs, and frames queued in between. Whatever the server sends, the
// cycle must not crash, must close at most once and then stay closed, must never have two
// POSTs in flight, and every POST body must hold 1 to 100 frames without a stray line break.
//
// Input: records; the first byte's bits 0-2 say what happens:
//   0 a poll answer (a length byte, then the body), 1 a poll failure ("timeout" or "reset"),
//   2 a POST answer (length, body), 3 queue a frame (length, bytes; bit 3: binary),
//   4 take a batch, 5 the opening answer {"status":410,"token":"T"}, 6 close (bit 3, once
//   closed: reopen, as the socket reconnects), 7 a POST failure
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "clients/longpoll_cycle.hpp"

namespace {

using stampede::clients::LongPollCycle;

void check(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  LongPollCycle cycle("http://h/socket/longpoll?vsn=2.0.0");
  std::size_t at = 0;
  auto take = [&](std::string_view& out) {
    if (at >= size) return false;
    const std::size_t wanted = data[at++];
    const std::size_t n = std::min(wanted, size - at);
    out = std::string_view(reinterpret_cast<const char*>(data) + at, n);
    at += n;
    return true;
  };
  bool closed = false;
  bool in_flight = false;
  auto closes = [&](bool now_closed) {
    if (now_closed) {
      check(!closed);
      closed = true;
      in_flight = false;
    }
    check(closed == (cycle.state() == LongPollCycle::State::Closed));
  };
  while (at < size) {
    const std::uint8_t head = data[at++];
    std::string_view body;
    switch (head & 7) {
      case 0:
        if (!take(body)) break;
        closes(cycle.on_poll(200, body).close.has_value());
        break;
      case 1:
        closes(cycle.on_poll(0, "", (head & 8) ? "timeout" : "reset").close.has_value());
        break;
      case 2:
        if (!take(body)) break;
        if (in_flight) {
          in_flight = false;
          closes(cycle.on_publish(200, body).has_value());
        }
        break;
      case 3:
        if (!take(body)) break;
        // A text frame with a line break never reaches the cycle: ChannelsSocket refuses it
        // (ChannelsOptions::one_line_frames).
        if ((head & 8) == 0 && body.find_first_of("\r\n") != std::string_view::npos) break;
        cycle.queue(body, (head & 8) != 0);
        break;
      case 4:
        if (auto batch = cycle.take_batch()) {
          check(!in_flight && !closed);
          in_flight = true;
          const auto lines = 1 + std::count(batch->begin(), batch->end(), '\n');
          check(lines >= 1 && lines <= 100);
        }
        break;
      case 5:
        closes(cycle.on_poll(200, R"({"messages":[],"status":410,"token":"T"})").close.has_value());
        break;
      case 6:
        if ((head & 8) != 0 && closed) {
          // The socket reconnects: a new session, asked for without a token.
          cycle.reopen();
          check(cycle.state() == LongPollCycle::State::Connecting && !cycle.token());
          check(!cycle.take_batch());
          closed = false;
          in_flight = false;
          break;
        }
        cycle.close();
        closed = true;
        in_flight = false;
        break;
      case 7:
        if (in_flight) {
          in_flight = false;
          closes(cycle.on_publish(0, "", "closed").has_value());
        }
        break;
    }
  }
  return 0;
}
