#include "record/exchange_log.hpp"

#include <algorithm>

#include "record/har_writer.hpp"

namespace stampede::record {

bool ExchangeLog::keep(std::size_t bytes) {
  if (bytes <= max_kept_total_ - std::min(kept_, max_kept_total_)) {
    kept_ += bytes;
    return true;
  }
  if (!warned_full_) {
    warned_full_ = true;
    warn("the recording holds " + std::to_string(max_kept_total_ >> 20) +
         " MiB of bodies and WebSocket frames: what comes next is not kept (record a shorter session)");
  }
  return false;
}

void ExchangeLog::add(Exchange exchange) {
  exchanges_.push_back(std::move(exchange));
  if (on_exchange) on_exchange(exchanges_.back());
}

void ExchangeLog::warn(std::string text) {
  if (std::find(warnings_.begin(), warnings_.end(), text) != warnings_.end()) return;
  warnings_.push_back(std::move(text));
  if (on_warning) on_warning(warnings_.back());
}

Recording ExchangeLog::take(std::string source, double epoch_ms_at_zero) {
  Recording recording;
  recording.source = std::move(source);
  recording.exchanges = std::move(exchanges_);
  exchanges_.clear();
  recording.dropped_bodies = dropped_bodies_;
  recording.cut_frames = cut_frames_;
  auto& exchanges = recording.exchanges;
  std::stable_sort(exchanges.begin(), exchanges.end(),
                   [](const Exchange& a, const Exchange& b) { return a.started_ms < b.started_ms; });
  if (exchanges.empty()) return recording;
  const double base = exchanges.front().started_ms;
  recording.started_at = format_iso8601_ms(epoch_ms_at_zero + base);
  for (auto& exchange : exchanges) {
    exchange.started_ms -= base;
    exchange.ended_ms -= base;
    for (auto& frame : exchange.frames) frame.at_ms -= base;
  }
  return recording;
}

}  // namespace stampede::record
