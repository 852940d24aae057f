#pragma once
// `stampede target --capacity N:MS`: a server that slows down past a known load, so that
// find-limit has a right answer to find. With more than N measured HTTP requests in flight
// on an event loop (received, not yet answered), each further request is held MS longer
// than its drawn delay. With the default single event loop (--threads 1) N is the whole
// server's; with more, each loop has its own N (no shared counter on the hot path).
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/clock.hpp"

namespace stampede::target {

struct CapacitySpec {
  std::uint64_t requests = 0;  // in flight before requests slow down
  double extra_ms = 0;         // how much longer each request past that is held
};

// "10:200" -> {10, 200}. Returns nullopt and sets `error` to a sentence otherwise.
std::optional<CapacitySpec> parse_capacity_spec(std::string_view text, std::string* error = nullptr);
std::string format_capacity_spec(const CapacitySpec& spec);

// One event loop's requests in flight. Its loop is the only writer; GET /metrics reads the
// count from another thread, so it is a relaxed atomic (a load and a store: what a plain
// increment costs, no read-modify-write).
class InFlightLimit {
 public:
  explicit InFlightLimit(std::optional<CapacitySpec> spec) : spec_(spec) {}
  // A measured request arrives: counts it, and returns the extra hold it gets (0 within capacity).
  Nanos enter() {
    const std::uint64_t n = in_flight();
    const bool over = spec_ && n >= spec_->requests;
    in_flight_.store(n + 1, std::memory_order_relaxed);
    return over ? static_cast<Nanos>(spec_->extra_ms * kMilli) : 0;
  }
  // It was answered, or its connection closed first.
  void leave() {
    const std::uint64_t n = in_flight();
    if (n > 0) in_flight_.store(n - 1, std::memory_order_relaxed);
  }
  std::uint64_t in_flight() const { return in_flight_.load(std::memory_order_relaxed); }

 private:
  std::optional<CapacitySpec> spec_;
  std::atomic<std::uint64_t> in_flight_{0};
};

}  // namespace stampede::target
