#pragma once
// What the recording proxy has recorded so far: the exchanges its connections finished, and
// how much of the memory budget their bodies and frames took. A browsing session can run for
// hours; past `max_kept_total` bytes no more bodies or frames are kept (the scenario made
// from it then misses them, and the warning says so) rather than the proxy growing without
// bound. One per proxy, used from its thread only.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "record/recording.hpp"

namespace stampede::record {

class ExchangeLog {
 public:
  explicit ExchangeLog(std::size_t max_kept_total = std::size_t{256} << 20) : max_kept_total_(max_kept_total) {}

  // Takes `bytes` of the budget for a body or a frame; false (nothing taken) when they would
  // not fit, and the first time a warning says so.
  bool keep(std::size_t bytes);
  void add(Exchange exchange);
  void count_dropped_body() { ++dropped_bodies_; }
  void count_cut_frame() { ++cut_frames_; }
  // A problem worth telling the person recording (each text once).
  void warn(std::string text);

  // Called with each exchange as it is added (the record command prints page loads).
  std::function<void(const Exchange&)> on_exchange;
  // Called with each new warning.
  std::function<void(const std::string&)> on_warning;

  std::size_t size() const { return exchanges_.size(); }
  const std::vector<std::string>& warnings() const { return warnings_; }

  // The recording: exchanges in start order, times made relative to the first request (as
  // a HAR's are read), `started_at` the first request's wall-clock time (ISO 8601) given the
  // wall-clock time (ms since the epoch) at which this log's times were 0.
  Recording take(std::string source, double epoch_ms_at_zero);

 private:
  std::size_t max_kept_total_;
  std::size_t kept_ = 0;
  bool warned_full_ = false;
  std::vector<Exchange> exchanges_;
  std::uint64_t dropped_bodies_ = 0;
  std::uint64_t cut_frames_ = 0;
  std::vector<std::string> warnings_;
};

}  // namespace stampede::record
