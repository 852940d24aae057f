// What a joined LiveView does with its messages (§5.5-§5.8): events, patches, the upload
// preflight and progress, component bookkeeping; and how a callback's outcome goes out:
// the reply (with its diff), a navigation, a crash.
#include <algorithm>
#include <boost/json/parse.hpp>

#include "proto/json_string.hpp"
#include "proto/websocket_frame.hpp"
#include "target/json_field.hpp"
#include "target/liveview_layout.hpp"
#include "target/liveview_session.hpp"
#include "target/liveview_uploads.hpp"
#include "target/rendered_json.hpp"

namespace stampede::target {
namespace {

namespace json = boost::json;
namespace phx = proto::phx;

std::string diff_response(const std::string& diff) { return diff.empty() ? "{}" : "{\"diff\":" + diff + "}"; }

}  // namespace

void LiveViewSession::handle_view_message(std::size_t index, phx::Message& message) {
  services_.bus.stats().pushes_received.add();
  json::error_code ec;
  const auto parsed = json::parse(message.payload, ec);
  const auto* payload = ec ? nullptr : parsed.if_object();
  if (payload == nullptr) {
    crash_view(index);
    return;
  }
  const auto& event = message.event;
  if (event == "event") {
    handle_event(index, message, *payload);
  } else if (event == "live_patch") {
    handle_live_patch(index, message, *payload);
  } else if (event == "allow_upload") {
    handle_allow_upload(index, message, *payload);
  } else if (event == "progress") {
    handle_progress(index, message, *payload);
  } else if (event == "cids_will_destroy") {
    socket_.reply(views_[index].join_ref, message.ref, message.topic, "ok", "{}");
  } else if (event == "cids_destroyed") {
    // The demo's only component is always rendered: nothing to delete.
    socket_.reply(views_[index].join_ref, message.ref, message.topic, "ok", R"({"cids":[]})");
  } else {
    crash_view(index);  // LiveView has no clause for it
  }
}

void LiveViewSession::handle_event(std::size_t index, const phx::Message& message, const json::object& payload) {
  auto& channel = views_[index];
  LiveEvent event;
  const auto* type = string_at(payload, "type");
  const auto* name = string_at(payload, "event");
  if (type == nullptr || name == nullptr) {
    crash_view(index);
    return;
  }
  event.type = *type;
  event.name = *name;
  event.value = payload.if_contains("value");
  if (const auto* cid = payload.if_contains("cid")) {
    if (!cid->is_int64()) {
      crash_view(index);
      return;
    }
    event.cid = cid->as_int64();
  }
  if (const auto* uploads = payload.if_contains("uploads")) event.uploads = uploads->if_object();
  if (event.type == "form") {
    const auto* value = event.value != nullptr ? event.value->if_string() : nullptr;
    if (value == nullptr) {
      crash_view(index);
      return;
    }
    event.form = proto::decode_form(*value);
    // Plug decodes %XX into any bytes; rendering them back would raise in Jason.
    for (const auto& [key, field] : event.form) {
      if (!proto::ws::is_valid_utf8(key) || !proto::ws::is_valid_utf8(field)) {
        crash_view(index);
        return;
      }
    }
  }

  ViewOutcome outcome;
  if (event.name == "lv:clear-flash") {
    // Handled by LiveView itself for every view.
    const bool had_flash = !channel.view->flash().empty();
    channel.view->set_flash({});
    outcome = ViewOutcome::render(had_flash ? Changed::only(LiveView::kFlashChanged) : Changed{});
  } else if (event.name.substr(0, 3) == "lv:") {
    outcome = ViewOutcome::crash();
  } else {
    outcome = channel.view->handle_event(event);
  }
  apply(index, message, outcome);
}

void LiveViewSession::handle_live_patch(std::size_t index, const phx::Message& message, const json::object& payload) {
  const auto* url = string_at(payload, "url");
  const auto parts = url != nullptr ? split_absolute_url(*url) : std::nullopt;
  if (!parts) {
    crash_view(index);
    return;
  }
  auto& channel = views_[index];
  std::string_view path_in_scope;
  const auto scope = scope_of_path(parts->path, info_.scope.dialect, path_in_scope);
  const auto* route = route_for_path(path_in_scope);
  if (route == nullptr || scope.prefix != info_.scope.prefix || route->page != channel.view->page()) {
    // Another view: the client falls back to a live navigation (§5.8).
    socket_.reply(channel.join_ref, message.ref, message.topic, "ok", R"({"link_redirect":true})");
    return;
  }
  auto outcome = channel.view->handle_params(parts->query);
  apply(index, message, outcome);
}

void LiveViewSession::handle_allow_upload(std::size_t index, const phx::Message& message, const json::object& payload) {
  auto& channel = views_[index];
  auto* uploads = channel.view->uploads();
  const auto* ref = string_at(payload, "ref");
  const auto* entries = payload.if_contains("entries");
  // allow_upload for an upload the view does not have raises in LiveView.
  if (uploads == nullptr || ref == nullptr || *ref != uploads->ref() || entries == nullptr || !entries->is_array() ||
      !uploads->put_entries(entries->as_array())) {
    crash_view(index);
    return;
  }
  const auto dialect = info_.scope.dialect;
  const auto pid = channel.pid;
  const auto now_ms = wall_clock_ms();
  std::string tokens;
  std::string errors;
  const bool valid = uploads->preflight(
      [&](const LiveUploads::Entry& entry) {
        return sign_upload_entry(dialect, {pid, uploads->ref(), entry.ref}, now_ms);
      },
      tokens, errors);
  std::string response = "{";
  if (!valid) {
    response += "\"error\":" + errors + ",\"ref\":";
    proto::append_json_string(response, uploads->ref(), "an upload ref");
    socket_.reply(channel.join_ref, message.ref, message.topic, "ok", response + "}");
    return;
  }
  response += "\"config\":" + upload_config_json(dialect) + ",";
  const auto diff = render_diff(*channel.view, channel.view->upload_changed(LiveView::UploadStep::Preflighted), {});
  if (!diff.empty()) response += "\"diff\":" + diff + ",";
  response += "\"entries\":" + tokens + ",\"errors\":{},\"ref\":";
  proto::append_json_string(response, uploads->ref(), "an upload ref");
  socket_.reply(channel.join_ref, message.ref, message.topic, "ok", response + "}");
}

void LiveViewSession::handle_progress(std::size_t index, const phx::Message& message, const json::object& payload) {
  auto& channel = views_[index];
  auto* uploads = channel.view->uploads();
  const auto* ref = string_at(payload, "ref");
  const auto* entry_ref = string_at(payload, "entry_ref");
  const auto* progress = payload.if_contains("progress");
  auto* entry = uploads != nullptr && ref != nullptr && *ref == uploads->ref() && entry_ref != nullptr
                    ? uploads->find(*entry_ref)
                    : nullptr;
  if (entry == nullptr || progress == nullptr) {
    socket_.reply(channel.join_ref, message.ref, message.topic, "ok", "{}");  // an entry already gone
    return;
  }
  if (progress->is_int64()) {
    entry->progress = static_cast<int>(std::clamp<std::int64_t>(progress->as_int64(), 0, 100));
  } else if (const auto* failure = progress->if_object()) {
    // {"error": reason}: the client gave up on the entry.
    const auto* reason = string_at(*failure, "error");
    entry->error = reason != nullptr ? std::string(*reason) : std::string("failed");
  } else {
    crash_view(index);
    return;
  }
  const auto diff = render_diff(*channel.view, channel.view->upload_changed(LiveView::UploadStep::Progress), {});
  socket_.reply(channel.join_ref, message.ref, message.topic, "ok", diff_response(diff));
}

void LiveViewSession::apply(std::size_t index, const phx::Message& message, ViewOutcome& outcome) {
  auto& channel = views_[index];
  const auto topic = topic_of(channel);
  switch (outcome.kind) {
    case ViewOutcome::Kind::Crash: crash_view(index); return;
    case ViewOutcome::Kind::Navigate: {
      // push_navigate: the events of the callback go first as a diff push, then the reply,
      // then the view stops (the recorded submit step).
      socket_.push(channel.join_ref, topic.view(), "diff", R"({"e":[]})");
      std::string response = R"({"live_redirect":{)";
      if (!outcome.flash.empty()) {
        response += "\"flash\":";
        proto::append_json_string(response, sign_flash(outcome.flash, wall_clock_ms()), "a flash token");
        response += ",";
      }
      response += "\"kind\":\"push\",\"to\":";
      proto::append_json_string(response, outcome.navigate_to, "a navigation target");
      response += "}}";
      const auto join_ref = channel.join_ref;
      socket_.reply(join_ref, message.ref, topic.view(), "ok", response);
      socket_.send_lifecycle(join_ref, topic.view(), "phx_close");
      remove_view(index);
      return;
    }
    case ViewOutcome::Kind::Render: break;
  }
  // consume_uploaded_entries stops the entries' upload channels before the callback returns.
  if (outcome.consumed_uploads) close_uploads_of(channel.pid, true);
  const auto diff = render_diff(*channel.view, outcome.changed, outcome.reply);
  socket_.reply(channel.join_ref, message.ref, topic.view(), "ok", diff_response(diff));
  if (!outcome.then_push.none()) {
    const auto after = render_diff(*channel.view, outcome.then_push, {});
    if (!after.empty()) socket_.push(channel.join_ref, topic.view(), "diff", after);
  }
}

std::string LiveViewSession::render_diff(const LiveView& view, Changed changed, std::string_view reply_map) {
  std::string diff;
  RenderedJson writer(info_.scope.dialect, diff);
  if (!changed.none()) render_layout(writer, info_.scope.dialect, view, changed);
  if (!reply_map.empty()) writer.reply(reply_map);
  writer.finish();
  if (writer.empty()) diff.clear();
  return diff;
}

void LiveViewSession::crash_view(std::size_t index) {
  services_.bus.stats().channel_crashes.add();
  const auto& channel = views_[index];
  // Phoenix 1.7 sends {}; 1.8.10 and later say why (§3.5).
  socket_.send_lifecycle(channel.join_ref, topic_of(channel).view(), "phx_error",
                 info_.scope.dialect == LiveViewDialect::V0_20 ? "{}" : R"({"reason":"channel_crash"})");
  remove_view(index);
}

}  // namespace stampede::target
