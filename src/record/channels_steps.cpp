// A Phoenix Channels socket's frames as calls of stampede.channels (../shared/phoenix-protocol.md
// §2): the socket's URL becomes channels.connect (its params minus per-session tokens), each
// phx_join a join, each push the page sent a push (when the server replied) or a cast, and the
// broadcasts that came back after a push an await. Heartbeats are the client's own.
#include <boost/json/parse.hpp>

#include <map>
#include <set>

#include "proto/form.hpp"
#include "proto/phoenix_message.hpp"
#include "record/session_values.hpp"
#include "record/socket_steps.hpp"

namespace stampede::record {
namespace {

namespace json = boost::json;
namespace phx = proto::phx;

phx::Serializer serializer_of(const UrlParts& url) {
  return query_value(url.query, "vsn").rfind("1.", 0) == 0 ? phx::Serializer::V1 : phx::Serializer::V2;
}

// A payload without its per-session values (token-like keys or values), for joins and pushes.
json::value without_session_values(const json::value& value, Summary& summary) {
  if (const auto* object = value.if_object()) {
    json::object clean;
    for (const auto& [key, item] : *object) {
      if (is_session_name(key) || (item.is_string() && is_session_value(item.get_string()))) {
        ++summary.hidden_tokens;
        continue;
      }
      clean[key] = without_session_values(item, summary);
    }
    return clean;
  }
  return value;
}

json::value payload_value(const phx::Message& message, Summary& summary) {
  json::error_code ec;
  auto value = json::parse(message.payload, ec);
  if (ec) return json::object();
  return without_session_values(value, summary);
}

}  // namespace

SocketKind socket_kind(const Exchange& socket, const UrlParts& url) {
  const bool vsn = !query_value(url.query, "vsn").empty();
  const auto serializer = serializer_of(url);
  bool phoenix = false;
  for (const auto& frame : socket.frames) {
    auto decoded = phx::decode(frame.data, frame.binary, serializer,
                               frame.sent ? phx::Direction::ClientToServer : phx::Direction::ServerToClient);
    if (const auto* message = std::get_if<phx::Message>(&decoded)) {
      if (message->topic.rfind("lv:", 0) == 0) return SocketKind::LiveView;
      phoenix = true;
    }
  }
  if (socket.frames.empty() && url.path.size() >= 15 && url.path.substr(url.path.size() - 15) == "/live/websocket")
    return SocketKind::LiveView;
  return vsn || phoenix ? SocketKind::Channels : SocketKind::Plain;
}

void channels_socket_steps(const Exchange& socket, const UrlParts& url, const std::string& var, Summary& summary,
                           std::vector<Step>& out) {
  const auto serializer = serializer_of(url);
  Step connect;
  connect.kind = Step::Kind::ChannelsConnect;
  connect.var = var;
  connect.at_ms = socket.started_ms;
  connect.end_ms = socket.started_ms;
  std::string path = url.path;
  if (path.size() >= 10 && path.substr(path.size() - 10) == "/websocket") path.resize(path.size() - 10);
  connect.url = path;
  connect.serializer = serializer == phx::Serializer::V1 ? "1.0.0" : "";
  for (const auto& [key, value] : proto::decode_form(url.query)) {
    if (key == "vsn") continue;
    if (is_session_name(key) || is_session_value(value)) {
      connect.dropped.push_back(key);
      ++summary.hidden_tokens;
      continue;
    }
    connect.params[key] = value;
  }
  ++summary.channel_sockets;
  out.push_back(std::move(connect));

  struct Frame {
    const WsFrame* frame;
    phx::Message message;
  };
  std::vector<Frame> frames;
  for (const auto& frame : socket.frames) {
    auto decoded = phx::decode(frame.data, frame.binary, serializer,
                               frame.sent ? phx::Direction::ClientToServer : phx::Direction::ServerToClient);
    if (auto* message = std::get_if<phx::Message>(&decoded)) {
      frames.push_back({&frame, std::move(*message)});
    } else {
      ++summary.not_understood;
      Step comment;
      comment.kind = Step::Kind::Comment;
      comment.at_ms = frame.at_ms;
      comment.lines.push_back(std::string("a Channels frame not understood (") + (frame.sent ? "sent" : "received") +
                              "): " + frame_excerpt(frame));
      out.push_back(std::move(comment));
    }
  }
  std::map<std::pair<std::string, std::string>, const Frame*> replies;
  for (const auto& f : frames)
    if (!f.frame->sent && f.message.event == "phx_reply" && f.message.ref)
      replies.emplace(std::make_pair(f.message.topic, *f.message.ref), &f);

  std::set<std::pair<std::string, std::string>> awaited;  // since the last push
  bool after_push = false;
  for (const auto& f : frames) {
    const auto& m = f.message;
    const double at = f.frame->at_ms;
    if (!f.frame->sent) {
      // A push or broadcast after the user's push: what the page waited for.
      if (!after_push || m.ref || m.event.rfind("phx_", 0) == 0) continue;
      if (!awaited.insert({m.topic, m.event}).second) continue;
      Step step;
      step.kind = Step::Kind::ChannelsAwait;
      step.var = var;
      step.topic = m.topic;
      step.event = m.event;
      step.at_ms = at;
      step.end_ms = at;
      out.push_back(std::move(step));
      continue;
    }
    if (m.topic == "phoenix") {
      ++summary.dropped_heartbeats;
      continue;
    }
    const auto reply = m.ref ? replies.find({m.topic, *m.ref}) : replies.end();
    Step step;
    step.var = var;
    step.topic = m.topic;
    step.at_ms = at;
    step.end_ms = reply != replies.end() ? reply->second->frame->at_ms : at;
    if (m.event == "phx_join") {
      step.kind = Step::Kind::ChannelsJoin;
      step.value = payload_value(m, summary);
      summary.topics.push_back(m.topic);
    } else if (m.event == "phx_leave") {
      step.kind = Step::Kind::ChannelsLeave;
    } else {
      step.kind = reply != replies.end() ? Step::Kind::ChannelsPush : Step::Kind::ChannelsCast;
      step.event = m.event;
      if (m.binary) {
        step.is_binary = true;
        step.binary = m.payload;
      } else {
        step.value = payload_value(m, summary);
      }
    }
    awaited.clear();
    after_push = step.kind == Step::Kind::ChannelsPush || step.kind == Step::Kind::ChannelsCast;
    out.push_back(std::move(step));
  }
}

}  // namespace stampede::record
