#include "target/liveview_session.hpp"

#include <algorithm>
#include <utility>

#include "target/reply_text.hpp"

namespace stampede::target {
namespace {

namespace phx = proto::phx;
using namespace reply_text;  // kOk, kError, kEmpty, view()

}  // namespace

LiveViewSession::LiveViewSession(LiveViewConnectInfo info, phx::Serializer serializer, LiveViewServices services,
                                 ChannelsSink& sink)
    : info_(std::move(info)), services_(services), socket_(serializer, services.bus, sink) {}

LiveViewSession::~LiveViewSession() = default;

LiveViewSession::Topic LiveViewSession::topic_of(const ViewChannel& channel) {
  Topic topic;
  topic.text[0] = 'l';
  topic.text[1] = 'v';
  topic.text[2] = ':';
  std::copy(channel.id.begin(), channel.id.end(), topic.text.begin() + 3);
  return topic;
}

void LiveViewSession::handle_frame(std::string_view data, bool binary, Nanos now) {
  socket_.handle_frame(data, binary, [&](phx::Message& message) { handle_message(message, now); });
}

void LiveViewSession::handle_message(phx::Message& message, Nanos now) {
  if (message.event == "phx_join") {
    if (message.topic.starts_with("lv:")) {
      join_view(message);
    } else if (message.topic.starts_with("lvu:")) {
      join_upload(message);
    } else {
      services_.bus.stats().joins_refused.add();
      socket_.reply(std::nullopt, message.ref, message.topic, kError, R"({"reason":"unmatched topic"})");
    }
    return;
  }
  if (message.event == "phx_leave") {
    leave(message);
    return;
  }
  if (auto* channel = find_view(message.topic)) {
    if (!accepts_join_ref(channel->join_ref, message.join_ref)) return;
    handle_view_message(static_cast<std::size_t>(channel - views_.data()), message);
    return;
  }
  if (auto* upload = find_upload(message.topic)) {
    if (!accepts_join_ref(upload->join_ref, message.join_ref)) return;
    handle_upload_message(static_cast<std::size_t>(upload - uploads_.data()), message, now);
    return;
  }
  socket_.reply(std::nullopt, message.ref, message.topic, kError, R"({"reason":"unmatched topic"})");
}

bool LiveViewSession::accepts_join_ref(const std::optional<std::string>& channel_ref,
                                       const std::optional<std::string>& message_ref) const {
  if (!message_ref || message_ref == channel_ref) return true;
  // Phoenix 1.7.24 (the 0.20 app) still hands a message of an older join to the channel;
  // 1.8.12 drops it without a word (§3.1).
  return info_.scope.dialect == LiveViewDialect::V0_20;
}

void LiveViewSession::leave(const phx::Message& message) {
  const bool null_ref = !message.join_ref;
  if (auto* channel = find_view(message.topic)) {
    if (message.join_ref != channel->join_ref) {
      // A stale join_ref is ignored by both; a null one only by Phoenix 1.7.
      if (!null_ref || info_.scope.dialect == LiveViewDialect::V0_20) return;
    }
    services_.bus.stats().leaves.add();
    const auto join_ref = channel->join_ref;
    const auto topic = topic_of(*channel);
    // A LiveView closes before it replies (§3.4).
    socket_.send_lifecycle(join_ref, topic.view(), "phx_close");
    socket_.reply(join_ref, message.ref, topic.view(), kOk, kEmpty);
    remove_view(static_cast<std::size_t>(channel - views_.data()));
    return;
  }
  if (auto* upload = find_upload(message.topic)) {
    if (message.join_ref != upload->join_ref) {
      if (!null_ref || info_.scope.dialect == LiveViewDialect::V0_20) return;
    }
    services_.bus.stats().leaves.add();
    const auto join_ref = upload->join_ref;
    const auto topic = upload->topic;
    socket_.reply(join_ref, message.ref, topic, kOk, kEmpty);
    socket_.send_lifecycle(join_ref, topic, "phx_close");
    remove_upload(static_cast<std::size_t>(upload - uploads_.data()));
    return;
  }
  // Not joined (a refused join, a view that stopped): ok, and nothing to close.
  socket_.reply(message.join_ref, message.ref, message.topic, kOk, kEmpty);
}

void LiveViewSession::handle_time(Nanos now) {
  if (socket_.closed()) return;
  for (std::size_t i = uploads_.size(); i-- > 0;) {
    const auto& upload = uploads_[i];
    if (upload.chunk_deadline == 0 || upload.chunk_deadline > now) continue;
    // chunk_timeout: the upload channel stops (§6.1).
    socket_.send_lifecycle(upload.join_ref, upload.topic, "phx_close");
    remove_upload(i);
  }
}

std::optional<Nanos> LiveViewSession::next_due() const {
  std::optional<Nanos> due;
  if (socket_.closed()) return due;
  for (const auto& upload : uploads_) {
    if (upload.chunk_deadline != 0 && (!due || upload.chunk_deadline < *due)) due = upload.chunk_deadline;
  }
  return due;
}

void LiveViewSession::handle_disconnect() {
  socket_.mark_closed();
  if (disconnected_) return;
  disconnected_ = true;
  uploads_.clear();
  views_.clear();
}

LiveViewSession::ViewChannel* LiveViewSession::find_view(std::string_view topic) {
  if (topic.size() != 3 + kIdLength || !topic.starts_with("lv:")) return nullptr;
  const auto id = topic.substr(3);
  for (auto& channel : views_) {
    if (std::equal(channel.id.begin(), channel.id.end(), id.begin())) return &channel;
  }
  return nullptr;
}

LiveViewSession::ViewChannel* LiveViewSession::find_view_by_pid(std::uint32_t pid) {
  for (auto& channel : views_) {
    if (channel.pid == pid) return &channel;
  }
  return nullptr;
}

LiveViewSession::UploadChannel* LiveViewSession::find_upload(std::string_view topic) {
  for (auto& upload : uploads_) {
    if (upload.topic == topic) return &upload;
  }
  return nullptr;
}

void LiveViewSession::remove_view(std::size_t index) {
  // Its upload channels watch it: they stop with it.
  close_uploads_of(views_[index].pid, false);
  views_.erase(views_.begin() + static_cast<std::ptrdiff_t>(index));
}

}  // namespace stampede::target
