// libFuzzer target for the recording proxy's session (record/proxy_session.hpp): the input is
// a script of events on one connection (bytes from the browser, bytes from the app, either
// side closing, the app unreachable or late, the proxy stopping), played twice: with each
// piece of bytes as given, and byte by byte. Both must send each side the same bytes and
// record the same exchanges; every call must use at most what it was given; bytes held back
// while an upgrade awaits its answer are given again afterwards, as recording_proxy does.
// This also drives the HTTP parsers' proxy modes (feed_head, drop_body, interim heads) and
// the WebSocket taps (frames, permessage-deflate) with hostile input from both sides.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "record/exchange_log.hpp"
#include "record/proxy_session.hpp"

namespace {

using namespace stampede::record;

void check(bool condition) {
  if (!condition) std::abort();
}

struct Played {
  std::string to_app;
  std::string to_browser;
  std::string recorded;
};

struct Player {
  ExchangeLog log{1 << 16};
  ProxySession session;
  std::string held;  // browser bytes not taken yet (an upgrade awaits its answer)
  Played played;

  explicit Player(const ProxyLimits& limits)
      : session({"http://127.0.0.1:4000", "127.0.0.1:4000", "http://127.0.0.1:8080"}, log, limits) {}

  void drain() {
    played.to_app += session.to_app();
    session.to_app().clear();
    played.to_browser += session.to_browser();
    session.to_browser().clear();
    while (!held.empty() && !session.browser_paused()) {
      const auto used = session.from_browser(held, 0);
      check(used <= held.size());
      held.erase(0, used);
      played.to_app += session.to_app();
      session.to_app().clear();
      played.to_browser += session.to_browser();
      session.to_browser().clear();
      if (used == 0) break;
    }
  }

  void browser(std::string_view bytes) {
    if (!held.empty()) {  // what came before goes first
      held.append(bytes);
      drain();
      return;
    }
    const auto used = session.from_browser(bytes, 0);
    check(used <= bytes.size());
    if (used < bytes.size()) {
      check(session.browser_paused());
      held.assign(bytes.substr(used));
    }
    drain();
  }

  void app(std::string_view bytes) {
    session.from_app(bytes, 0);
    drain();
  }
};

Played play(std::string_view script, bool bytewise) {
  ProxyLimits limits;
  limits.max_kept_body = 256;  // small limits reach the dropping paths with short inputs
  limits.max_message = 512;
  limits.max_head = 1024;
  Player player(limits);
  while (!script.empty()) {
    const auto op = static_cast<unsigned char>(script.front());
    script.remove_prefix(1);
    switch (op % 8) {
      case 0:
      case 1:
      case 2:
      case 3: {  // bytes: the length comes next
        std::size_t size = 0;
        if (!script.empty()) {
          size = static_cast<unsigned char>(script.front()) + 1;
          script.remove_prefix(1);
        }
        const auto bytes = script.substr(0, size);
        script.remove_prefix(bytes.size());
        const bool from_browser = op % 2 == 0;
        if (!bytewise) {
          from_browser ? player.browser(bytes) : player.app(bytes);
        } else {
          for (std::size_t i = 0; i < bytes.size(); ++i)
            from_browser ? player.browser(bytes.substr(i, 1)) : player.app(bytes.substr(i, 1));
        }
        break;
      }
      case 4:
        player.session.browser_closed(0);
        break;
      case 5:
        player.session.app_closed(0);
        break;
      case 6:
        if (op & 8) {
          player.session.app_unreachable("refused", 0);
        } else {
          player.session.app_timed_out("within 1s", 0);
        }
        break;
      case 7:
        player.session.stop(0);
        break;
    }
    player.drain();
    if (player.session.finished()) check(!player.session.awaiting_app());
  }
  player.session.stop(0);
  player.drain();
  check(player.session.finished());
  const auto recording = player.log.take("stampede record", 0);
  for (const auto& exchange : recording.exchanges) {
    player.played.recorded += exchange.method + ' ' + exchange.url + ' ' + std::to_string(exchange.status) + " req=" +
                              exchange.request_body + " res=" + exchange.response_body + '\n';
    // Each direction in order. Across directions the order may differ: bytes the browser sent
    // early, held while the upgrade awaited its 101, are taken after the 101 arrives; whether
    // the app's first frames came in the same read as the 101 or later decides which side's
    // frames are recorded first, and both are what the proxy saw.
    for (const bool sent : {true, false})
      for (const auto& frame : exchange.frames)
        if (frame.sent == sent) player.played.recorded += (sent ? "> " : "< ") + frame.data + '\n';
  }
  return std::move(player.played);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view script(reinterpret_cast<const char*>(data), size);
  const auto whole = play(script, false);
  const auto bytewise = play(script, true);
  check(whole.to_app == bytewise.to_app);
  check(whole.to_browser == bytewise.to_browser);
  check(whole.recorded == bytewise.recorded);
  return 0;
}
