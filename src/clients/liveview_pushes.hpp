#pragma once
// What a LiveView sends by itself, kept for the scenario's await: diff pushes (handle_info,
// PubSub, send_update...), push_event events (from pushes and from event replies) and
// live_patch pushes. Kept from the join on, so nothing that arrived before await is lost; at
// most `limit` entries, the oldest going first. One waiter at a time: a VU is one coroutine.
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/clock.hpp"

namespace stampede::clients {

struct LivePush {
  std::uint64_t seq = 0;
  std::string view_id;       // the LiveView's element id (the topic without "lv:")
  std::string kind;          // "diff", "event" (push_event) or "live_patch"
  std::string event;         // kind "event": the event's name; "live_patch": the URL it patched to
  std::string payload_json;  // the diff, the event's payload, or {"to":...,"kind":...}
};

class LivePushBuffer {
 public:
  LivePushBuffer(boost::asio::io_context& io, std::size_t limit);
  ~LivePushBuffer();
  LivePushBuffer(const LivePushBuffer&) = delete;
  LivePushBuffer& operator=(const LivePushBuffer&) = delete;

  // Keeps the push (dropping the oldest past the limit) and hands it to the waiter, if any.
  void add(std::string view_id, std::string kind, std::string event, std::string payload_json);
  // The first push after `after_seq`; the pointer is valid until the next add() or consume().
  const LivePush* find(std::uint64_t after_seq) const;
  void consume(std::uint64_t seq);
  // done(push) with the first push after `after_seq`, now (posted) or when one arrives (the
  // pointer is valid during the call);
  // done(nullptr) on timeout or interrupt(). A second wait replaces the first, which gets nullptr.
  void wait(std::uint64_t after_seq, Nanos timeout, std::function<void(const LivePush*)> done);
  // Ends the wait, if any, with nullptr (the page went away or was navigated away from).
  void interrupt();
  void clear();
  std::size_t size() const { return pushes_.size(); }

 private:
  void finish_wait(const LivePush* push);

  boost::asio::io_context& io_;
  std::size_t limit_;
  std::uint64_t seq_ = 0;
  // A vector, not a deque: an empty one owns no memory (libstdc++'s deque allocates a block up
  // front), and most views never keep a push. Erasing from its front is a few moves at most.
  std::vector<LivePush> pushes_;
  std::uint64_t wait_after_ = 0;
  std::function<void(const LivePush*)> waiter_;
  std::unique_ptr<boost::asio::steady_timer> timer_;  // only while waiting
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace stampede::clients
