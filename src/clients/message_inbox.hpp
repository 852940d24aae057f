#pragma once
// What a streaming client received and the scenario has not read yet, and the awaits waiting
// for it: the SSE, GraphQL-over-WebSocket and Socket.IO clients each keep one. A message is
// numbered (seq) as it arrives; an await asks for the first message after a seq that passes
// its filter, now or when one arrives, within a deadline. The Lua side's `match` functions
// run over what this hands back and ask again after the seq they rejected, so a message
// nobody took stays for the next await.
//
// Sized for idle connections (thousands per process): a std::list allocates nothing while
// empty (a std::deque allocates ~500 bytes at once), and an await's deadline is a
// WorkerTimer on the worker's shared timer, not an Asio timer per connection.
// Single-threaded, like everything on a worker.
#include <boost/asio/post.hpp>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <string>
#include <utility>

#include "clients/client_context.hpp"
#include "clients/worker_timers.hpp"

namespace stampede::clients {

template <typename Message>  // has a std::uint64_t seq
class MessageInbox {
 public:
  using Filter = std::function<bool(const Message&)>;
  // Called once: with the message, or with nullptr on timeout or when the inbox closes.
  using Done = std::function<void(const Message*)>;

  MessageInbox(ClientContext& ctx, std::size_t limit) : ctx_(&ctx), limit_(limit == 0 ? 1 : limit) {}
  MessageInbox(const MessageInbox&) = delete;
  MessageInbox& operator=(const MessageInbox&) = delete;

  // Numbers and keeps `m`, then wakes the first await it satisfies. Returns false when the
  // oldest message had to go to make room (the caller counts it).
  bool push(Message m) {
    bool kept_all = true;
    if (messages_.size() >= limit_) {
      messages_.pop_front();
      kept_all = false;
    }
    m.seq = ++seq_;
    messages_.push_back(std::move(m));
    const Message& stored = messages_.back();
    for (auto it = waiters_.begin(); it != waiters_.end(); ++it) {
      if (stored.seq > it->after && (!it->filter || it->filter(stored))) {
        Done done = std::move(it->done);
        waiters_.erase(it);
        done(&stored);
        break;  // each message is read by one await
      }
    }
    return kept_all;
  }

  // The first kept message after `after` that passes `filter` (none: any), or nullptr.
  const Message* find(std::uint64_t after, const Filter& filter) const {
    for (const Message& m : messages_) {
      if (m.seq > after && (!filter || filter(m))) return &m;
    }
    return nullptr;
  }

  // Calls `done` from the loop (never inside this call) with the first such message, now
  // or when it arrives, or with nullptr once `timeout` has passed or the inbox closes.
  void wait(std::uint64_t after, Filter filter, Nanos timeout, Done done) {
    if (const Message* m = find(after, filter); m != nullptr || closed_) {
      const std::uint64_t seq = m != nullptr ? m->seq : 0;
      if (!alive_) alive_ = std::make_shared<const bool>(true);
      auto weak = std::weak_ptr<const bool>(alive_);
      post([this, weak, seq, done = std::move(done)] {
        if (weak.expired()) return;
        done(seq == 0 ? nullptr : find(seq - 1, [seq](const Message& x) { return x.seq == seq; }));
      });
      return;
    }
    Waiter& w = waiters_.emplace_back();
    w.inbox = this;
    w.after = after;
    w.filter = std::move(filter);
    w.done = std::move(done);
    w.self = std::prev(waiters_.end());
    ctx_->timers().schedule_after(w.timer, timeout, &MessageInbox::on_deadline, &w);
  }

  // Takes the message out: an await read it.
  void consume(std::uint64_t seq) {
    for (auto it = messages_.begin(); it != messages_.end(); ++it) {
      if (it->seq == seq) {
        messages_.erase(it);
        return;
      }
    }
  }

  // Nothing more will arrive: every await waiting now gets nullptr (kept messages stay
  // readable), and later ones that find nothing get it at once.
  void close() {
    closed_ = true;
    auto waiters = std::move(waiters_);
    waiters_.clear();
    for (Waiter& w : waiters) {
      w.timer.cancel();
      if (w.done) w.done(nullptr);
    }
  }

  void set_limit(std::size_t limit) { limit_ = limit == 0 ? 1 : limit; }
  bool closed() const { return closed_; }
  std::size_t size() const { return messages_.size(); }
  std::uint64_t last_seq() const { return seq_; }

 private:
  struct Waiter {
    MessageInbox* inbox = nullptr;
    std::uint64_t after = 0;
    Filter filter;
    Done done;
    WorkerTimer timer;  // in a list node: never moves while armed
    typename std::list<Waiter>::iterator self;
  };

  static void on_deadline(void* arg) {
    auto* w = static_cast<Waiter*>(arg);
    MessageInbox* inbox = w->inbox;
    Done done = std::move(w->done);
    inbox->waiters_.erase(w->self);
    if (done) done(nullptr);
  }

  template <typename Fn>
  void post(Fn fn) {
    boost::asio::post(ctx_->io, std::move(fn));
  }

  ClientContext* ctx_;
  std::size_t limit_;
  std::list<Message> messages_;
  std::list<Waiter> waiters_;
  std::uint64_t seq_ = 0;
  bool closed_ = false;
  // Expires with the inbox: a posted completion must not touch it once it is gone. Made by
  // the first such completion, so an inbox that never had one allocates nothing for it.
  std::shared_ptr<const bool> alive_;
};

}  // namespace stampede::clients
