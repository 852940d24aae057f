// A LiveView socket's frames as user actions (../shared/phoenix-protocol.md §5, §6): the
// browser's phx_join of the page becomes live.connect, its events click/change/submit/...,
// live_patch a patch, a rejoin with "redirect" a navigate (or the follow of a live_redirect the
// previous action was answered with), allow_upload + the lvu: chunk traffic an upload. What the
// client does by itself (heartbeats, progress, cids_*, leaves, upload chunks, nested joins) is
// counted, not written.
#include <boost/json/parse.hpp>

#include <algorithm>
#include <map>

#include "proto/liveview_client_messages.hpp"
#include "proto/liveview_events.hpp"
#include "proto/form.hpp"
#include "proto/phoenix_message.hpp"
#include "proto/url_resolve.hpp"
#include "record/session_values.hpp"
#include "record/socket_steps.hpp"

namespace stampede::record {
namespace {

namespace json = boost::json;
namespace phx = proto::phx;
namespace lv = proto::lv;

struct Decoded {
  const WsFrame* frame;
  phx::Message message;
};

// Query keys the LiveSocket adds by itself: never app params.
bool is_liveview_bookkeeping(std::string_view key) {
  return key == "_csrf_token" || key == "vsn" || key == "_mounts" || key == "_mount_attempts" ||
         key == "_live_referer" || key.rfind("_track_static", 0) == 0;
}

// A reply's navigation: {"live_redirect": {...}} or {"redirect": {...}} in the response.
std::string navigation_of(const phx::Message& reply, bool& full_page) {
  json::error_code ec;
  const auto response = json::parse(phx::reply_response(reply), ec);
  if (ec || !response.is_object()) return {};
  for (const std::string_view kind : {"live_redirect", "redirect"}) {
    if (const auto* nav = response.as_object().if_contains(kind); nav != nullptr && nav->is_object()) {
      full_page = kind == "redirect";
      const auto* to = nav->as_object().if_contains("to");
      return to != nullptr && to->is_string() ? std::string(to->get_string()) : std::string("?");
    }
  }
  return {};
}

std::string push_navigation_of(const phx::Message& push, bool& full_page) {
  if (push.event != "live_redirect" && push.event != "redirect") return {};
  full_page = push.event == "redirect";
  json::error_code ec;
  const auto payload = json::parse(push.payload, ec);
  if (ec || !payload.is_object()) return "?";
  const auto* to = payload.as_object().if_contains("to");
  return to != nullptr && to->is_string() ? std::string(to->get_string()) : std::string("?");
}

// The fields a change or submit types into the form: not the CSRF token (the page's own hidden
// input holds this session's), and for a change not the fields the browser marked untouched.
Fields typed_fields(const lv::ClientEvent& event, Summary& summary) {
  Fields fields;
  for (const auto& [name, value] : event.fields) {
    if (name == "_csrf_token" || is_session_value(value)) {
      ++summary.hidden_tokens;
      continue;
    }
    if (std::find(event.unused.begin(), event.unused.end(), name) != event.unused.end()) continue;
    fields.emplace_back(name, value);
  }
  return fields;
}

// A click's value that is what the element gives anyway ({"value": ""} for a button without
// phx-value-*): left out, so the scenario reads like a person wrote it.
bool is_default_value(const json::value& value) {
  const auto* object = value.if_object();
  if (object == nullptr) return value.is_null();
  if (object->empty()) return true;
  if (object->size() != 1) return false;
  const auto* v = object->if_contains("value");
  return v != nullptr && v->is_string() && v->get_string().empty();
}

}  // namespace

void liveview_socket_steps(const Exchange& socket, const UrlParts& url, Summary& summary, std::vector<Step>& out) {
  std::vector<Decoded> frames;
  for (const auto& frame : socket.frames) {
    if (frame.binary) {
      ++summary.internal_frames;  // upload chunks on lvu: topics
      continue;
    }
    auto decoded = phx::decode(frame.data, false, phx::Serializer::V2,
                               frame.sent ? phx::Direction::ClientToServer : phx::Direction::ServerToClient);
    if (auto* message = std::get_if<phx::Message>(&decoded)) {
      frames.push_back({&frame, std::move(*message)});
    } else {
      ++summary.not_understood;
      Step comment;
      comment.kind = Step::Kind::Comment;
      comment.at_ms = frame.at_ms;
      comment.lines.push_back(std::string("a LiveView frame not understood (") + (frame.sent ? "sent" : "received") +
                              "): " + frame_excerpt(frame));
      out.push_back(std::move(comment));
    }
  }
  // Replies by topic and ref, so that an action learns how it was answered.
  std::map<std::pair<std::string, std::string>, const Decoded*> replies;
  for (const auto& d : frames)
    if (!d.frame->sent && d.message.event == "phx_reply" && d.message.ref)
      replies.emplace(std::make_pair(d.message.topic, *d.message.ref), &d);

  std::string socket_path = url.path;
  if (socket_path.size() >= 10 && socket_path.substr(socket_path.size() - 10) == "/websocket")
    socket_path.resize(socket_path.size() - 10);
  if (socket_path == "/live") socket_path.clear();
  json::object app_params;
  for (const auto& [key, value] : proto::decode_form(url.query)) {
    if (is_liveview_bookkeeping(key)) continue;
    if (is_session_name(key) || is_session_value(value)) {
      ++summary.hidden_tokens;
      continue;
    }
    app_params[key] = value;
  }

  std::string main_topic;
  std::string page_url = url.origin() + "/";  // what relative navigations resolve against
  std::map<std::string, std::string> upload_names;  // upload ref -> input name
  std::size_t last_index = std::size_t(-1);        // the action a navigation answers (in `out`)
  auto last_action_of = [&]() -> Step* { return last_index < out.size() ? &out[last_index] : nullptr; };
  bool navigation_pending = false;                  // a live_redirect is being followed

  for (std::size_t i = 0; i < frames.size(); ++i) {
    const auto& d = frames[i];
    const auto& m = d.message;
    const double at = d.frame->at_ms;
    if (!d.frame->sent) {
      // Pushes that navigate: the last action's doing (push_navigate / redirect from handle_event).
      bool full_page = false;
      const auto to = push_navigation_of(m, full_page);
      Step* last_action = last_action_of();
      if (!to.empty() && m.topic == main_topic && last_action != nullptr && !last_action->navigates) {
        last_action->navigates = true;
        if (full_page) last_action->follow_to = proto::resolve_url(page_url, to);
        navigation_pending = !full_page;
      }
      continue;
    }
    if (m.topic == "phoenix") {
      ++summary.dropped_heartbeats;
      continue;
    }
    const auto reply_it = m.ref ? replies.find({m.topic, *m.ref}) : replies.end();
    const Decoded* reply = reply_it != replies.end() ? reply_it->second : nullptr;
    const double end = reply != nullptr ? reply->frame->at_ms : at;
    const bool on_view = m.topic.rfind("lv:", 0) == 0;
    if (!on_view) {
      ++summary.internal_frames;  // lvu: joins, chunks' envelopes
      continue;
    }
    const std::string view_id = m.topic == main_topic ? std::string() : m.topic.substr(3);

    auto note_navigation = [&](Step& step) {
      if (reply == nullptr) return;
      bool full_page = false;
      const auto to = navigation_of(reply->message, full_page);
      if (to.empty()) return;
      step.navigates = true;
      if (full_page) step.follow_to = proto::resolve_url(page_url, to);
      navigation_pending = !full_page;
    };

    if (m.event == "phx_join") {
      const auto join = lv::read_client_join(m.payload);
      if (!join || join->url.empty()) {
        ++summary.internal_frames;  // a nested LiveView: the client joins it by itself
        continue;
      }
      if (join->redirect && !main_topic.empty()) {
        main_topic = m.topic;
        page_url = join->url;
        if (navigation_pending) {
          navigation_pending = false;  // the follow of the last action
          ++summary.internal_frames;
          continue;
        }
        Step step;
        step.kind = Step::Kind::LiveNavigate;
        step.var = "view";
        step.at_ms = at;
        step.end_ms = end;
        step.url = relative_url(join->url);
        ++summary.live_navigations;
        out.push_back(std::move(step));
        last_index = out.size() - 1;
        continue;
      }
      main_topic = m.topic;
      page_url = join->url;
      Step step;
      step.kind = Step::Kind::LiveConnect;
      step.var = "view";
      step.at_ms = at;
      step.end_ms = end;
      step.url = join->url;  // absolute: the builder finds the page load behind it
      step.socket_path = socket_path;
      step.params = app_params;
      for (const auto& [key, value] : join->params) {
        if (is_liveview_bookkeeping(key) || step.params.contains(key)) continue;
        if (is_session_name(key) || (value.is_string() && is_session_value(value.get_string()))) continue;
        step.params[key] = value;
      }
      ++summary.liveviews;
      // The page's session and static tokens and its CSRF token: the client reads this session's.
      summary.hidden_tokens += 1 + (join->params.contains("_csrf_token") ? 1 : 0);
      out.push_back(std::move(step));
      last_index = std::size_t(-1);
      continue;
    }
    if (m.event == "event") {
      const auto event = lv::read_client_event(m.payload);
      if (!event) {
        ++summary.not_understood;
        Step comment;
        comment.kind = Step::Kind::Comment;
        comment.at_ms = at;
        comment.lines.push_back("a LiveView event not understood: " + frame_excerpt(*d.frame));
        out.push_back(std::move(comment));
        continue;
      }
      Step step;
      step.var = "view";
      step.at_ms = at;
      step.end_ms = end;
      step.event = event->event;
      step.cid = event->cid.value_or(-1);
      step.view_id = view_id;
      if (event->type == "form") {
        if (event->has_uploads && !event->uploads.empty()) {
          // Files chosen: the upload step sends this phx-change itself.
          for (const auto& [ref, entries] : event->uploads) {
            const auto name = lv::upload_input_name(event->uploads, ref);
            if (!name.empty()) upload_names[std::string(ref)] = name;
          }
          ++summary.internal_frames;
          continue;
        }
        step.kind = event->has_uploads ? Step::Kind::LiveChange : Step::Kind::LiveSubmit;
        step.fields = typed_fields(*event, summary);
        step.field = event->target;
      } else {
        step.kind = Step::Kind::LiveEvent;
        step.type = event->type == "click-away" ? "click" : event->type;
        if (step.type != "hook" && is_default_value(event->value)) {
          step.value = nullptr;
        } else {
          step.value = event->value;
        }
      }
      ++summary.live_events;
      note_navigation(step);
      out.push_back(std::move(step));
      last_index = out.size() - 1;
      continue;
    }
    if (m.event == "live_patch") {
      const auto to = lv::read_client_live_patch(m.payload);
      Step step;
      step.kind = Step::Kind::LivePatch;
      step.var = "view";
      step.at_ms = at;
      step.end_ms = end;
      step.url = relative_url(to.value_or("/"));
      ++summary.live_navigations;
      note_navigation(step);
      out.push_back(std::move(step));
      last_index = out.size() - 1;
      continue;
    }
    if (m.event == "allow_upload") {
      const auto upload = lv::read_client_allow_upload(m.payload);
      if (!upload) {
        ++summary.not_understood;
        continue;
      }
      Step step;
      step.kind = Step::Kind::LiveUpload;
      step.var = "view";
      step.at_ms = at;
      step.end_ms = end;
      step.view_id = view_id;
      const auto name = upload_names.find(upload->ref);
      step.upload_name = name != upload_names.end() ? name->second : upload->ref;
      for (const auto& entry : upload->entries) step.files.push_back({entry.name, entry.size, entry.type});
      // The upload lasts until its last progress reply: later frames of it are internal.
      ++summary.uploads;
      out.push_back(std::move(step));
      last_index = out.size() - 1;
      continue;
    }
    // progress, cids_will_destroy, cids_destroyed, phx_leave: the client's own bookkeeping.
    if (Step* last_action = last_action_of();
        m.event == "progress" && last_action != nullptr && last_action->kind == Step::Kind::LiveUpload)
      last_action->end_ms = std::max(last_action->end_ms, end);
    ++summary.internal_frames;
  }
}

}  // namespace stampede::record
