#include "clients/liveview_pushes.hpp"

#include <boost/asio/post.hpp>

namespace stampede::clients {

LivePushBuffer::LivePushBuffer(boost::asio::io_context& io, std::size_t limit) : io_(io), limit_(limit) {}

LivePushBuffer::~LivePushBuffer() { *alive_ = false; }

void LivePushBuffer::add(std::string view_id, std::string kind, std::string event, std::string payload_json) {
  if (limit_ == 0) return;
  if (pushes_.size() >= limit_) pushes_.erase(pushes_.begin());
  pushes_.push_back(LivePush{++seq_, std::move(view_id), std::move(kind), std::move(event), std::move(payload_json)});
  if (waiter_ && pushes_.back().seq > wait_after_) finish_wait(&pushes_.back());
}

const LivePush* LivePushBuffer::find(std::uint64_t after_seq) const {
  for (const LivePush& p : pushes_)
    if (p.seq > after_seq) return &p;
  return nullptr;
}

void LivePushBuffer::consume(std::uint64_t seq) {
  for (auto it = pushes_.begin(); it != pushes_.end(); ++it) {
    if (it->seq == seq) {
      pushes_.erase(it);
      return;
    }
  }
}

void LivePushBuffer::wait(std::uint64_t after_seq, Nanos timeout, std::function<void(const LivePush*)> done) {
  if (waiter_) finish_wait(nullptr);
  if (const LivePush* p = find(after_seq)) {
    // Posted, never called from inside wait(): the caller is about to yield.
    boost::asio::post(io_, [this, alive = alive_, seq = p->seq, done = std::move(done)] {
      if (*alive) done(find(seq - 1));
    });
    return;
  }
  wait_after_ = after_seq;
  waiter_ = std::move(done);
  timer_ = std::make_unique<boost::asio::steady_timer>(io_);
  timer_->expires_after(std::chrono::nanoseconds(timeout));
  timer_->async_wait([this, alive = alive_](const boost::system::error_code& ec) {
    if (!ec && *alive) finish_wait(nullptr);
  });
}

void LivePushBuffer::interrupt() {
  if (waiter_) finish_wait(nullptr);
}

void LivePushBuffer::clear() { pushes_.clear(); }

void LivePushBuffer::finish_wait(const LivePush* push) {
  auto done = std::move(waiter_);
  waiter_ = nullptr;
  if (timer_) timer_->cancel();
  timer_.reset();
  done(push);
}

}  // namespace stampede::clients
