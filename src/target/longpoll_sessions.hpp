#pragma once
// The target's LongPoll transport (/socket/longpoll, /live/longpoll), one worker's sessions:
// what Phoenix.Transports.LongPoll and its LongPoll.Server process do, with the same
// ChannelsSession / LiveViewSession a WebSocket drives behind them (through their ChannelsSink),
// so a channel behaves the same over either transport.
//
//   GET  without a token     a new session: {"messages":[],"status":410,"token":T}
//                            (403 {"status":403} for a vsn neither serializer accepts)
//   GET  with token T        messages buffered: {"messages":[...],"status":200,"token":T} at
//                            once; none: held until one arrives (200) or the window passes (204)
//   POST with token T        each line of an application/x-ndjson body (else the whole body) is
//                            one frame for the session; {"status":200}
//   GET, a token no session has   a new session, as without a token (Phoenix's resume_session
//                            fails, new_session follows): the client sees 410 with a token,
//                            which is "session gone" to one that held a token
//   POST, a token no session has  {"status":410}
// A session that nobody polled for 1.5 windows ends (Phoenix's :shutdown_if_inactive), as does
// one whose socket the application closed (an undecodable frame), and, with a lifetime
// (Services::lifetime), one that old: its held poll gets {"status":410}, as when it ends
// otherwise.
//
// Frames the application sends as binary (a binary reply) go as their base64 text: a LongPoll
// message is a JSON string.
//
// Unlike Phoenix, a held poll whose connection the client dropped is not noticed: messages
// handed to it are lost (Phoenix keeps them for the next poll, as its listener process is
// gone). phoenix.js and Stampede abandon a poll only when they close the socket.
//
// No sockets, no clocks: the time is passed in, answers go to a Reply callback. Used only
// from its worker's thread; the hub (longpoll_hub.hpp) brings it the requests for its tokens.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/clock.hpp"
#include "proto/phoenix_message.hpp"
#include "target/channels_session.hpp"
#include "target/liveview_session.hpp"

namespace stampede::target {

class LongPollSessions {
 public:
  // Phoenix's default window_ms: how long a poll is held.
  static constexpr Nanos kDefaultWindow = 10 * kSecond;

  // The JSON body of an answer (its HTTP status is always 200). Called once per request.
  using Reply = std::function<void(std::string body)>;

  struct Services {
    ChannelsBus& bus;
    TokenRandom& random;
    LiveViewPostsStore* posts = nullptr;  // LiveView sessions need it
    unsigned worker = 0;                  // in every token, so any worker finds the owner
    // Called (at most once until flush() runs) when an answer is ready outside any call of
    // this class: a broadcast reached a session with a held poll. The owner then calls flush()
    // from the loop, outside the bus's delivery.
    std::function<void()> wake;
    Nanos window = kDefaultWindow;
    // Not Phoenix's: every session ends this long after it opened (0: never), as if the server
    // restarted, so that clients' reconnects can be tested (stampede target
    // --longpoll-session-lifetime).
    Nanos lifetime = 0;
  };

  // What opens a session: the socket's application, as the WebSocket upgrade decides it.
  struct Open {
    proto::phx::Serializer serializer = proto::phx::Serializer::V2;
    bool liveview = false;
    std::string user_id;           // channels: the connect parameter
    LiveViewConnectInfo liveview_info;  // LiveView: the dialect and the session
  };

  explicit LongPollSessions(Services services);
  ~LongPollSessions();
  LongPollSessions(const LongPollSessions&) = delete;
  LongPollSessions& operator=(const LongPollSessions&) = delete;

  // A GET without a token: opens a session, returns the answer's body.
  std::string open(Open open, Nanos now);
  // A GET with a token: answers now or holds the poll (one per session: a second poll ends the
  // first with 204, as the older request would time out in Phoenix). No session has the
  // token: opens one with `open_new` ({"status":403} when nullopt: the vsn refused it).
  void poll(std::string_view token, std::optional<Open> open_new, Nanos now, Reply reply);
  // A POST: returns the answer's body.
  std::string publish(std::string_view token, std::string_view body, std::string_view content_type, Nanos now);

  // Ends the polls whose window passed (204), the sessions idle for 1.5 windows, runs the
  // applications' timers (Absinthe data, upload timeouts).
  void handle_time(Nanos now);
  // When handle_time() must run next, if ever (no earlier than needed: it may be a moment
  // late after a session went, which costs one handle_time() that finds nothing).
  std::optional<Nanos> next_due() const { return due_; }
  // Answers the held polls that have messages, drops the sessions that ended.
  void flush();

  std::size_t size() const { return sessions_.size(); }
  // Which worker owns `token`; nullopt when it is not one of ours.
  static std::optional<unsigned> owner_of(std::string_view token);

 private:
  class Session;

  Session* find(std::string_view token);
  void ready(Session& session);  // a session has something for its held poll, or ended
  void answer(Session& session, int status);
  void end(Session& session);
  void note_due(const Session& session);
  // Phoenix ends a session nobody polled for 1.5 windows (LongPoll.Server's window_ms * 1.5).
  Nanos idle_limit() const { return services_.window + services_.window / 2; }

  Services services_;
  std::unordered_map<std::string, std::unique_ptr<Session>> sessions_;
  std::vector<Session*> ready_;  // answer from flush()
  std::optional<Nanos> due_;
  std::uint64_t next_id_ = 0;
  bool in_call_ = false;  // inside open/poll/publish/handle_time: flush at its end, no wake
};

}  // namespace stampede::target
