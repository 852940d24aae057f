#include "target/longpoll_sessions.hpp"

#include <algorithm>
#include <charconv>

#include "proto/base64.hpp"
#include "proto/phoenix_longpoll.hpp"
#include "target/liveview_tokens.hpp"

namespace stampede::target {

namespace longpoll = proto::phx::longpoll;

// One LongPoll session: the application behind it, the frames it sent that no poll carried
// yet, and the poll held for them.
class LongPollSessions::Session final : public ChannelsSink {
 public:
  Session(LongPollSessions& owner, std::string token, Nanos now)
      : token(std::move(token)), opened_at(now), last_poll(now), owner_(owner) {}
  ~Session() {
    // Quietly, as a WebSocket session at shutdown: the owner calls handle_disconnect() first
    // when the session ends while the target runs.
    channels.reset();
    liveview.reset();
  }

  void send(std::string_view data, bool binary) override {
    if (ended) return;
    std::string& message = buffer.emplace_back();
    if (binary) {
      proto::append_base64(message, data);
    } else {
      message.assign(data);
    }
    if (held) owner_.ready(*this);
  }
  void close(std::uint16_t, std::string_view) override {
    if (ended) return;
    ended = true;
    owner_.ready(*this);
  }

  void handle_frame(std::string_view frame, Nanos now) {
    if (channels) channels->handle_frame(frame, false, now);
    if (liveview) liveview->handle_frame(frame, false, now);
  }
  void handle_time(Nanos now) {
    if (channels) channels->handle_time(now);
    if (liveview) liveview->handle_time(now);
  }
  std::optional<Nanos> next_due() const {
    if (channels) return channels->next_due();
    if (liveview) return liveview->next_due();
    return std::nullopt;
  }
  void disconnect() {
    if (channels) channels->handle_disconnect();
    if (liveview) liveview->handle_disconnect();
  }

  std::string token;
  std::optional<ChannelsSession> channels;
  std::unique_ptr<LiveViewSession> liveview;
  std::vector<std::string> buffer;  // serialized frames, oldest first
  Reply held;                       // the poll waiting for them
  Nanos held_until = 0;
  Nanos opened_at = 0;
  Nanos last_poll = 0;
  bool ended = false;      // the application closed the socket
  bool is_ready = false;   // in the owner's ready list

 private:
  LongPollSessions& owner_;
};

LongPollSessions::LongPollSessions(Services services) : services_(std::move(services)) {}

LongPollSessions::~LongPollSessions() = default;

std::optional<unsigned> LongPollSessions::owner_of(std::string_view token) {
  // "<worker>.<id>.<random>"
  const auto dot = token.find('.');
  if (dot == std::string_view::npos || dot == 0) return std::nullopt;
  unsigned worker = 0;
  const auto [end, ec] = std::from_chars(token.data(), token.data() + dot, worker);
  if (ec != std::errc() || end != token.data() + dot) return std::nullopt;
  return worker;
}

LongPollSessions::Session* LongPollSessions::find(std::string_view token) {
  const auto it = sessions_.find(std::string(token));
  if (it == sessions_.end() || it->second->ended) return nullptr;
  return it->second.get();
}

std::string LongPollSessions::open(Open open, Nanos now) {
  std::string token = std::to_string(services_.worker) + "." + std::to_string(++next_id_) + "." +
                      random_base64url(services_.random, 12);
  auto session = std::make_unique<Session>(*this, token, now);
  if (open.liveview) {
    const LiveViewServices services{services_.bus, services_.random, *services_.posts};
    session->liveview = std::make_unique<LiveViewSession>(std::move(open.liveview_info), open.serializer, services,
                                                          static_cast<ChannelsSink&>(*session));
  } else {
    session->channels.emplace(open.serializer, std::move(open.user_id), services_.bus,
                              static_cast<ChannelsSink&>(*session));
  }
  note_due(*session);
  sessions_.emplace(token, std::move(session));
  longpoll::Response response;
  response.status = 410;
  response.token = std::move(token);
  return longpoll::encode_response(response);
}

void LongPollSessions::poll(std::string_view token, std::optional<Open> open_new, Nanos now, Reply reply) {
  Session* session = find(token);
  if (session == nullptr) {
    reply(open_new ? open(std::move(*open_new), now) : longpoll::encode_response({403, std::nullopt, {}}));
    return;
  }
  in_call_ = true;
  session->last_poll = now;
  if (session->held) answer(*session, 204);  // the older poll ends: this one waits now
  session->held = std::move(reply);
  session->held_until = now + services_.window;
  if (!session->buffer.empty()) answer(*session, 200);
  note_due(*session);
  in_call_ = false;
  flush();
}

std::string LongPollSessions::publish(std::string_view token, std::string_view body, std::string_view content_type,
                                      Nanos now) {
  Session* session = find(token);
  if (session == nullptr) return longpoll::encode_response(longpoll::Response{410, std::nullopt, {}});
  in_call_ = true;
  for (const std::string_view frame : longpoll::split_publish_body(body, content_type)) {
    if (session->ended) break;
    session->handle_frame(frame, now);
  }
  note_due(*session);
  in_call_ = false;
  // The replies these frames caused go in the held poll's answer, all of them at once.
  flush();
  return longpoll::encode_response(longpoll::Response{200, std::nullopt, {}});
}

void LongPollSessions::ready(Session& session) {
  if (session.is_ready) return;
  session.is_ready = true;
  ready_.push_back(&session);
  if (!in_call_ && ready_.size() == 1 && services_.wake) services_.wake();
}

void LongPollSessions::answer(Session& session, int status) {
  if (!session.held) return;
  longpoll::Response response;
  response.status = status;
  response.token = session.token;
  if (status == 200) {
    response.messages = std::move(session.buffer);
    session.buffer.clear();
    std::vector<std::string>().swap(session.buffer);  // an idle session owns no buffer
  }
  Reply reply = std::move(session.held);
  session.held = nullptr;
  reply(longpoll::encode_response(response));
}

void LongPollSessions::end(Session& session) {
  // What the application sent before it closed still reaches a held poll; the next poll is 410.
  if (!session.buffer.empty()) answer(session, 200);
  if (session.held) {
    Reply reply = std::move(session.held);
    session.held = nullptr;
    reply(longpoll::encode_response(longpoll::Response{410, std::nullopt, {}}));
  }
  session.disconnect();
}

void LongPollSessions::flush() {
  auto ready = std::move(ready_);
  ready_.clear();
  std::vector<std::string> ended;
  for (Session* session : ready) {
    session->is_ready = false;
    if (session->ended) {
      ended.push_back(session->token);
    } else if (!session->buffer.empty()) {
      answer(*session, 200);
    }
  }
  for (const std::string& token : ended) {
    const auto it = sessions_.find(token);
    if (it == sessions_.end()) continue;
    end(*it->second);
    sessions_.erase(it);
  }
}

void LongPollSessions::handle_time(Nanos now) {
  in_call_ = true;
  std::vector<std::string> idle;
  for (auto& [token, session] : sessions_) {
    if (session->held && session->held_until <= now) answer(*session, 204);
    if (!session->held && now - session->last_poll > idle_limit()) idle.push_back(token);
    else if (services_.lifetime > 0 && now - session->opened_at >= services_.lifetime) idle.push_back(token);
    if (const auto due = session->next_due(); due && *due <= now) session->handle_time(now);
  }
  for (const std::string& token : idle) {
    const auto it = sessions_.find(token);
    if (it == sessions_.end()) continue;
    it->second->ended = true;
    ready(*it->second);
  }
  in_call_ = false;
  flush();
  due_.reset();
  for (const auto& [token, session] : sessions_) note_due(*session);
}

void LongPollSessions::note_due(const Session& session) {
  auto earlier = [this](Nanos at) { due_ = due_ ? std::min(*due_, at) : at; };
  if (session.held) {
    earlier(session.held_until);
  } else {
    earlier(session.last_poll + idle_limit() + 1);
  }
  if (services_.lifetime > 0) earlier(session.opened_at + services_.lifetime);
  if (const auto at = session.next_due()) earlier(*at);
}

}  // namespace stampede::target
