// The upload channels, lvu:<entry ref> (Phoenix.LiveView.UploadChannel, §6.1): a join with
// the entry token allow_upload handed out, then binary "chunk" pushes, each acknowledged
// before the client sends the next, until the declared size is reached. A channel stops
// when its entry is consumed, when its view goes, or when no chunk came for chunk_timeout.
#include <boost/json/parse.hpp>

#include "target/liveview_session.hpp"
#include "target/liveview_uploads.hpp"
#include "target/rendered_json.hpp"

namespace stampede::target {
namespace {

namespace json = boost::json;
namespace phx = proto::phx;

std::optional<std::string> token_of(std::string_view payload) {
  json::error_code ec;
  const auto parsed = json::parse(payload, ec);
  const auto* object = ec ? nullptr : parsed.if_object();
  const auto* token = object != nullptr ? object->if_contains("token") : nullptr;
  if (token == nullptr || !token->is_string()) return std::nullopt;
  return std::string(token->as_string());
}

}  // namespace

void LiveViewSession::join_upload(phx::Message& message) {
  const auto join_ref = message.join_ref ? message.join_ref : message.ref;
  ReplacedJoin replaced;
  if (!make_room_for_join(message, join_ref, replaced)) return;
  const auto token = token_of(message.payload);
  const auto claims = token ? verify_upload_entry(info_.scope.dialect, *token, wall_clock_ms()) : std::nullopt;
  // The token names a view of this socket, its upload and a preflighted entry.
  auto* channel = claims ? find_view_by_pid(claims->view_pid) : nullptr;
  auto* uploads = channel != nullptr ? channel->view->uploads() : nullptr;
  auto* entry = uploads != nullptr && uploads->ref() == claims->upload_ref ? uploads->find(claims->entry_ref) : nullptr;
  if (entry == nullptr || !entry->preflighted) {
    refuse_join(message, join_ref, R"({"reason":"invalid_token"})", replaced);
    return;
  }
  if (entry->channel_joined) {
    refuse_join(message, join_ref, R"({"reason":"already_registered"})", replaced);
    return;
  }
  entry->channel_joined = true;
  UploadChannel upload;
  upload.topic = message.topic;
  upload.join_ref = join_ref;
  upload.view_pid = channel->pid;
  upload.entry_ref = entry->ref;
  uploads_.push_back(std::move(upload));
  services_.bus.stats().joins.add();
  socket_.reply(join_ref, message.ref, message.topic, "ok", "{}");
  if (replaced) socket_.send_lifecycle(*replaced, message.topic, "phx_close");
  // The view learns the entry has a channel and re-renders: a diff push follows the reply.
  const auto diff = render_diff(*channel->view, channel->view->upload_changed(LiveView::UploadStep::ChannelJoined), {});
  if (!diff.empty()) socket_.push(channel->join_ref, topic_of(*channel).view(), "diff", diff);
}

void LiveViewSession::handle_upload_message(std::size_t index, const phx::Message& message, Nanos now) {
  services_.bus.stats().pushes_received.add();
  auto& upload = uploads_[index];
  auto* channel = find_view_by_pid(upload.view_pid);
  auto* uploads = channel != nullptr ? channel->view->uploads() : nullptr;
  auto* entry = uploads != nullptr ? uploads->find(upload.entry_ref) : nullptr;
  if (message.event != "chunk" || !message.binary || entry == nullptr) {
    // Only binary chunks have a clause: anything else crashes the upload channel.
    services_.bus.stats().channel_crashes.add();
    socket_.send_lifecycle(upload.join_ref, upload.topic, "phx_error", "{}");
    remove_upload(index);
    return;
  }
  services_.bus.stats().upload_chunks.add();
  entry->received += message.payload.size();
  if (entry->received > entry->size) {
    std::string response = R"({"limit":)" + std::to_string(entry->size) + R"(,"reason":"file_size_limit_exceeded"})";
    socket_.reply(upload.join_ref, message.ref, upload.topic, "error", response);
    socket_.send_lifecycle(upload.join_ref, upload.topic, "phx_close");
    remove_upload(index);
    return;
  }
  // chunk_timeout runs from each chunk until the entry is complete.
  upload.chunk_deadline = entry->received < entry->size ? now + LiveUploads::kChunkTimeout : 0;
  socket_.reply(upload.join_ref, message.ref, upload.topic, "ok", "{}");
}

void LiveViewSession::close_uploads_of(std::uint32_t pid, bool only_gone_entries) {
  auto* channel = find_view_by_pid(pid);
  auto* uploads = channel != nullptr && channel->view ? channel->view->uploads() : nullptr;
  for (std::size_t i = uploads_.size(); i-- > 0;) {
    const auto& upload = uploads_[i];
    if (upload.view_pid != pid) continue;
    if (only_gone_entries && uploads != nullptr && uploads->find(upload.entry_ref) != nullptr) continue;
    socket_.send_lifecycle(upload.join_ref, upload.topic, "phx_close");
    remove_upload(i);
  }
}

void LiveViewSession::remove_upload(std::size_t index) {
  const auto& upload = uploads_[index];
  if (auto* channel = find_view_by_pid(upload.view_pid)) {
    if (auto* uploads = channel->view->uploads()) {
      if (auto* entry = uploads->find(upload.entry_ref)) entry->channel_joined = false;
    }
  }
  uploads_.erase(uploads_.begin() + static_cast<std::ptrdiff_t>(index));
}

}  // namespace stampede::target
