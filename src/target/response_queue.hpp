#pragma once
// The responses a connection owes, in request order. HTTP/1.1 pipelining requires answers in
// the order the requests came, while each request's hold runs on its own clock; so a
// response that is ready waits behind an earlier one that is not.
//
// Slots are allocated once per connection and recycled (a ring of stable objects), so their
// strings are reused and a hold (Worker::hold) may safely point at its slot.
#include <cstddef>
#include <memory>
#include <vector>

#include "common/clock.hpp"
#include "target/response.hpp"

namespace stampede::target {

struct PendingResponse {
  Response response;
  Nanos received_at = 0;    // when the kernel received the request's last bytes
  int version_minor = 1;
  bool head_request = false;
  bool keep_alive = true;   // false: the connection ends after this response
  bool measured = false;    // counted in the truth when written
  bool interim = false;     // "100 Continue" before the body of the request that follows
  bool upgrade = false;     // "101 Switching Protocols" (in response.body): the last HTTP response
  bool ready = false;       // may be written (hold over, or nothing to wait for)
  bool in_flight = false;   // counted in the worker's InFlightLimit until written or dropped

  void recycle() {
    response.clear();
    received_at = 0;
    version_minor = 1;
    head_request = false;
    keep_alive = true;
    measured = false;
    interim = false;
    upgrade = false;
    ready = false;
    in_flight = false;
  }
};

class ResponseQueue {
 public:
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // The i-th oldest owed response (0 = the next one to write).
  PendingResponse& at(std::size_t i) { return *ring_[(head_ + i) & (ring_.size() - 1)]; }

  PendingResponse& push_back() {
    if (size_ == ring_.size()) grow();
    auto& slot = ring_[(head_ + size_) & (ring_.size() - 1)];
    if (!slot) slot = std::make_unique<PendingResponse>();
    ++size_;
    return *slot;
  }

  void pop_front() {
    ring_[head_]->recycle();
    head_ = (head_ + 1) & (ring_.size() - 1);
    --size_;
  }

 private:
  // Doubles the ring (a power of two, so positions wrap with a mask); the slot objects
  // themselves never move.
  void grow() {
    std::vector<std::unique_ptr<PendingResponse>> bigger(ring_.empty() ? 4 : ring_.size() * 2);
    for (std::size_t i = 0; i < ring_.size(); ++i) bigger[i] = std::move(ring_[(head_ + i) & (ring_.size() - 1)]);
    ring_ = std::move(bigger);
    head_ = 0;
  }

  std::vector<std::unique_ptr<PendingResponse>> ring_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace stampede::target
