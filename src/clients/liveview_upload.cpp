// LiveViewSession::upload: a LiveView channel upload as the browser does it
// (../shared/phoenix-protocol.md §6.1, auto_upload off):
//   1. the files are chosen: phx-change on the input's form, with "uploads" describing them;
//   2. preflight: "allow_upload" with the entries; the reply carries one token per entry;
//   3. per entry, one after the other: join "lvu:<entry ref>" with its token, then binary "chunk"
//      pushes of chunk_size bytes, each waiting for its reply; after each acknowledged chunk a
//      "progress" event on the LiveView when the percentage rose (only the 100 waits for its
//      reply).
// The form can then be submitted: the final submit names no file, handle_event consumes them.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>

#include "clients/liveview_forms.hpp"
#include "clients/liveview_json.hpp"
#include "clients/liveview_session.hpp"

namespace stampede::clients {

namespace lv = proto::lv;

namespace {

// What a browser reports for a file's type when the scenario gives none: the MIME type its
// extension maps to ("" when unknown, as browsers do). LiveView's accept checks look at it.
std::string guess_type(const std::string& file_name) {
  static const std::map<std::string, std::string> types = {
      {"jpg", "image/jpeg"},  {"jpeg", "image/jpeg"},        {"png", "image/png"},
      {"gif", "image/gif"},   {"webp", "image/webp"},        {"svg", "image/svg+xml"},
      {"pdf", "application/pdf"}, {"txt", "text/plain"},     {"csv", "text/csv"},
      {"json", "application/json"}, {"html", "text/html"},   {"mp4", "video/mp4"},
      {"mp3", "audio/mpeg"},  {"zip", "application/zip"},   {"bin", "application/octet-stream"}};
  const auto dot = file_name.rfind('.');
  if (dot == std::string::npos) return {};
  std::string ext = file_name.substr(dot + 1);
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  const auto it = types.find(ext);
  return it == types.end() ? std::string() : it->second;
}

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

struct LiveViewSession::UploadRun {
  std::string view_id;
  std::string what;  // "upload avatar on the LiveView at ..."
  std::string upload_ref;
  std::string input_name;
  std::string progress_event;  // the input's phx-progress ("" = null)
  std::optional<int> cid;      // the component the input belongs to
  std::optional<lv::Form> form;
  std::vector<lv::UploadFile> files;
  std::vector<std::string> contents;
  std::vector<std::string> tokens;  // per file
  std::uint64_t chunk_size = lv::kDefaultChunkSize;
  Nanos chunk_timeout = static_cast<Nanos>(lv::kDefaultChunkTimeoutMs) * kMilli;
  Nanos timeout = 0;
  std::size_t entry = 0;  // the file being sent
  std::string entry_topic;
  std::uint64_t offset = 0;
  int last_progress = -1;
  Nanos started = 0;
  std::uint64_t generation = 0;
  Done done;
};

void LiveViewSession::upload(LiveUpload u, Done done) {
  LiveOutcome why;
  LiveViewTopic* view = joined_view(u.view_id, why);
  if (view == nullptr) return refuse(ids_.upload, std::move(done), std::move(why));
  auto run = std::make_shared<UploadRun>();
  run->what = fmt::format("upload {} on {}", u.input_name, describe(*view));
  if (u.files.empty()) {
    return fail_later(std::move(done), LiveOutcome::fail("upload_error", run->what + ": no files given"));
  }
  const std::string selector = fmt::format("input[data-phx-upload-ref][name=\"{}\"]", u.input_name);
  std::optional<lv::Element> input;
  if (u.input_name.find_first_of("\"\\\n") == std::string::npos && lv::selector_error(selector).empty()) {
    input = view->rendered.find(selector);
  }
  if (!input) {
    return fail_later(std::move(done),
                      LiveOutcome::fail("not_found", fmt::format("{}: the page has no live_file_input named \"{}\" "
                                                                 "(does mount call allow_upload(socket, :{}, ...)?)",
                                                                 run->what, u.input_name, u.input_name)));
  }
  run->view_id = view->root.id;
  run->upload_ref = *lv::find_attribute(input->attributes, "data-phx-upload-ref");
  run->input_name = u.input_name;
  if (const std::string* p = lv::find_attribute(input->attributes, "phx-progress")) run->progress_event = *p;
  run->cid = input->component;
  run->form = view->rendered.form(selector);
  run->timeout = u.timeout > 0 ? u.timeout : options_.event_timeout;
  const std::int64_t modified = now_ms();
  for (auto& file : u.files) {
    lv::UploadFile f;
    f.ref = std::to_string(next_upload_entry_++);
    f.name = file.name;
    f.type = file.type.empty() ? guess_type(file.name) : file.type;
    f.size = file.content.size();
    f.last_modified = modified;
    run->files.push_back(std::move(f));
    run->contents.push_back(std::move(file.content));
  }
  run->started = ctx_.clock.now();
  run->generation = generation_;
  run->done = std::move(done);
  if (run->form && lv::find_attribute(run->form->attributes, "phx-change") != nullptr) {
    upload_change(std::move(run));
  } else {
    upload_preflight(std::move(run));
  }
}

void LiveViewSession::upload_finish(std::shared_ptr<UploadRun> run, LiveOutcome outcome) {
  if (!run->done) return;
  record(ids_.upload, run->started, outcome);
  auto done = std::move(run->done);
  run->done = nullptr;
  done(outcome);
}

// 1. Choosing the files fires the form's phx-change, which describes them under "uploads".
void LiveViewSession::upload_change(std::shared_ptr<UploadRun> run) {
  LiveOutcome why;
  LiveViewTopic* view = joined_view(run->view_id, why);
  if (view == nullptr) return upload_finish(run, unsent(std::move(why)));
  lv::FormChange c;
  c.event = *lv::find_attribute(run->form->attributes, "phx-change");
  c.entries = fill_form(run->form, {}, view->used_fields, lv::FormPurpose::Change);
  c.target = run->input_name;
  c.values = lv::form_values(*run->form);
  c.uploads = lv::change_uploads(run->upload_ref, run->input_name, run->files);
  c.cid = target_cid(*view, run->form->attributes);
  view->used_fields.insert(run->input_name);
  request(*view, "event", lv::form_change_payload(version_, c), run->timeout, &ids_.event,
          fmt::format("change \"{}\" ({})", c.event, run->what),
          [weak = weak_from_this(), run](LiveOutcome o, bool) {
            auto self = weak.lock();
            if (!self) return;
            if (!o.ok()) return self->upload_finish(run, std::move(o));
            self->upload_preflight(run);
          });
}

// 2. The preflight: the server validates the entries and hands out one token each.
void LiveViewSession::upload_preflight(std::shared_ptr<UploadRun> run) {
  LiveOutcome why;
  LiveViewTopic* view = joined_view(run->view_id, why);
  if (view == nullptr) return upload_finish(run, unsent(std::move(why)));
  std::string error;
  try {
    connection_->phx->push(
        view->topic, "allow_upload", lv::allow_upload_payload(run->upload_ref, run->files, run->cid), false,
        run->timeout, [weak = weak_from_this(), run](const ChannelReply& reply) {
          auto self = weak.lock();
          if (!self) return;
          LiveViewTopic* v = run->generation == self->generation_ ? self->find_view(run->view_id) : nullptr;
          if (v == nullptr) return self->upload_finish(run, LiveOutcome::fail("closed", run->what + ": the page was left"));
          const std::string what = "allow_upload (" + run->what + ")";
          if (!reply.failure.empty()) return self->upload_finish(run, self->call_failure(*v, reply, what));
          if (reply.status != "ok") {
            LiveOutcome o = LiveOutcome::fail("upload_error", fmt::format("{}: the server replied {}: {}", what,
                                                                          reply.status, reply.response),
                                              "preflight " + reply.status);
            o.response_json = reply.response;
            return self->upload_finish(run, std::move(o));
          }
          boost::system::error_code ec;
          const boost::json::value response = parse_live_json(reply.response, ec);
          lv::PreflightReply preflight;
          std::string bad = ec ? "the reply is not JSON" : lv::read_preflight_reply(response, preflight);
          if (!bad.empty()) {
            return self->upload_finish(run, LiveOutcome::fail("upload_error", what + ": " + bad, "preflight"));
          }
          if (preflight.diff != nullptr && v->state == LiveViewTopic::State::Joined) {
            if (std::string merge_error = self->merge_diff(*v, *preflight.diff, reply.response); !merge_error.empty()) {
              return self->upload_finish(
                  run, LiveOutcome::fail("diff_error", what + ": the reply's diff cannot be merged: " + merge_error, "diff"));
            }
          }
          if (!preflight.errors.empty()) {
            std::string list;
            for (const auto& refused : preflight.errors) {
              const std::string& ref = refused.first;
              const auto& reason = refused.second;
              // (clang 14 cannot capture a structured binding in a lambda, so no `auto& [ref, reason]`)
              const auto file = std::find_if(run->files.begin(), run->files.end(),
                                             [&](const lv::UploadFile& f) { return f.ref == ref; });
              list += fmt::format("{}{} ({})", list.empty() ? "" : ", ",
                                  file == run->files.end() ? ref : file->name, reason);
            }
            LiveOutcome o = LiveOutcome::fail("upload_error", fmt::format("{}: the server refused {}", what, list),
                                              "refused");
            o.response_json = reply.response;
            return self->upload_finish(run, std::move(o));
          }
          for (const auto& file : run->files) {
            const auto token = std::find_if(preflight.tokens.begin(), preflight.tokens.end(),
                                            [&](const auto& t) { return t.first == file.ref; });
            if (token == preflight.tokens.end()) {
              return self->upload_finish(
                  run, LiveOutcome::fail("upload_error",
                                         fmt::format("{}: no upload token for {} (more files than max_entries, {}?)",
                                                     what, file.name, preflight.max_entries),
                                         "refused"));
            }
            run->tokens.push_back(token->second);
          }
          run->chunk_size = preflight.chunk_size > 0 ? preflight.chunk_size : lv::kDefaultChunkSize;
          run->chunk_timeout = static_cast<Nanos>(preflight.chunk_timeout_ms) * kMilli;
          self->upload_next_entry(run);
        });
  } catch (const std::exception& e) {
    error = e.what();
  }
  if (!error.empty()) post([this, run, error] { upload_finish(run, LiveOutcome::fail("upload_error", run->what + ": " + error)); });
}

// 3. One entry: its own channel on the same socket, joined with the entry's token.
void LiveViewSession::upload_next_entry(std::shared_ptr<UploadRun> run) {
  if (run->entry == run->files.size()) return upload_finish(run, LiveOutcome::success());
  if (!is_open()) return upload_finish(run, unsent(LiveOutcome::fail("closed", run->what + ": the socket closed")));
  const lv::UploadFile& file = run->files[run->entry];
  run->entry_topic = lv::upload_topic(file.ref);
  run->offset = 0;
  run->last_progress = -1;
  std::string error;
  try {
    connection_->phx->join(
        run->entry_topic, lv::upload_join_payload(run->tokens[run->entry]), options_.join_timeout,
        [weak = weak_from_this(), run](const ChannelReply& reply) {
          auto self = weak.lock();
          if (!self) return;
          if (run->generation != self->generation_) {
            return self->upload_finish(run, LiveOutcome::fail("closed", run->what + ": the page was left"));
          }
          const std::string what = fmt::format("join {} ({})", run->entry_topic, run->what);
          if (!reply.failure.empty()) {
            return self->upload_finish(
                run, LiveOutcome::fail(reply.failure == "timeout" ? "timeout" : "closed",
                                       what + ": " + reply.message, reply.failure == "timeout" ? "timeout" : "closed"));
          }
          if (!reply.ok()) {
            LiveOutcome o = LiveOutcome::fail("upload_error", fmt::format("the server refused to {}: {}", what,
                                                                          reply.response),
                                              "upload join refused");
            o.response_json = reply.response;
            return self->upload_finish(run, std::move(o));
          }
          self->upload_send_chunk(run);
        },
        upload_rejoin_hooks(run->entry_topic));
  } catch (const std::exception& e) {
    error = e.what();
  }
  if (!error.empty()) post([this, run, error] { upload_finish(run, LiveOutcome::fail("upload_error", run->what + ": " + error)); });
}

// Chunks go one at a time: the next leaves when the server acknowledged this one.
void LiveViewSession::upload_send_chunk(std::shared_ptr<UploadRun> run) {
  const lv::UploadFile& file = run->files[run->entry];
  const std::uint64_t length = lv::next_chunk_length(run->offset, file.size, run->chunk_size);
  if (length == 0) return upload_progress(run, 100);  // an empty file: nothing to send
  if (!is_open()) return upload_finish(run, unsent(LiveOutcome::fail("closed", run->what + ": the socket closed")));
  std::string chunk = run->contents[run->entry].substr(run->offset, length);
  connection_->phx->push(
      run->entry_topic, "chunk", std::move(chunk), true, run->chunk_timeout > 0 ? run->chunk_timeout : run->timeout,
      [weak = weak_from_this(), run, length](const ChannelReply& reply) {
        auto self = weak.lock();
        if (!self) return;
        if (run->generation != self->generation_) {
          return self->upload_finish(run, LiveOutcome::fail("closed", run->what + ": the page was left"));
        }
        const std::string what = fmt::format("chunk at byte {} of {} ({})", run->offset, run->entry_topic, run->what);
        if (!reply.failure.empty()) {
          return self->upload_finish(
              run, LiveOutcome::fail(reply.failure == "timeout" ? "timeout" : "closed", what + ": " + reply.message,
                                     reply.failure == "timeout" ? "timeout" : "closed"));
        }
        if (!reply.ok()) {
          LiveOutcome o = LiveOutcome::fail("upload_error", fmt::format("{}: the server replied {}: {}", what,
                                                                        reply.status, reply.response),
                                            "chunk refused");
          o.response_json = reply.response;
          return self->upload_finish(run, std::move(o));
        }
        run->offset += length;
        const auto progress =
            lv::progress_to_send(run->offset, run->files[run->entry].size, run->last_progress);
        if (progress) {
          run->last_progress = *progress;
          return self->upload_progress(run, *progress);
        }
        self->upload_send_chunk(run);
      });
}

// Progress on the LiveView topic; only the final 100 is waited for, as the browser does.
void LiveViewSession::upload_progress(std::shared_ptr<UploadRun> run, int progress) {
  LiveOutcome why;
  LiveViewTopic* view = joined_view(run->view_id, why);
  if (view == nullptr) return upload_finish(run, unsent(std::move(why)));
  const lv::UploadFile& file = run->files[run->entry];
  std::string payload = lv::progress_payload(run->upload_ref, file.ref, progress, run->progress_event, run->cid);
  const std::string what = fmt::format("progress {} of {} ({})", progress, file.name, run->what);
  if (progress < 100) {
    request(*view, "progress", std::move(payload), run->timeout, nullptr, what, [](LiveOutcome, bool) {});
    return upload_send_chunk(run);
  }
  request(*view, "progress", std::move(payload), run->timeout, nullptr, what,
          [weak = weak_from_this(), run](LiveOutcome o, bool) {
            auto self = weak.lock();
            if (!self) return;
            if (!o.ok()) return self->upload_finish(run, std::move(o));
            ++run->entry;
            self->upload_next_entry(run);
          });
}

}  // namespace stampede::clients
