#include "cli/live_exports.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "cli/version.hpp"
#include "report/json_results.hpp"
#include "report/prometheus_text.hpp"

namespace stampede::cli {

LiveExports::LiveExports(const ResultOutputs& outputs)
    : stream_path_(outputs.stream), checkpoint_(outputs, {"stampede", version_number(), version_commit()}) {
  if (!outputs.stream.empty()) {
    stream_ = std::fopen(outputs.stream.c_str(), "w");
    if (stream_ == nullptr)
      throw std::runtime_error(fmt::format("--out-stream: cannot write {}: {}", outputs.stream, std::strerror(errno)));
  }
  if (!outputs.prometheus.empty()) {
    try {
      server_ = std::make_unique<PrometheusServer>(outputs.prometheus);
    } catch (...) {
      if (stream_ != nullptr) std::fclose(stream_);
      throw;
    }
  }
}

LiveExports::~LiveExports() {
  if (stream_ != nullptr) std::fclose(stream_);
}

std::uint16_t LiveExports::prometheus_port() const { return server_ ? server_->port() : 0; }

std::optional<std::string> LiveExports::second(const std::string& scenario, const report::SecondResult& second) {
  if (dashboard_ != nullptr) dashboard_->second(second);
  std::lock_guard lock(mutex_);
  if (stream_ == nullptr) return std::nullopt;
  const std::string line = report::second_json_line(scenario, second);
  if (std::fwrite(line.data(), 1, line.size(), stream_) == line.size() && std::fflush(stream_) == 0)
    return std::nullopt;
  const int error = errno;
  std::fclose(stream_);
  stream_ = nullptr;
  return fmt::format("--out-stream: cannot write {}: {}; no more seconds are written to it", stream_path_,
                     std::strerror(error));
}

void LiveExports::progress(report::ScenarioResult so_far) {
  if (!server_) return;
  std::string text;
  {
    std::lock_guard lock(mutex_);
    bool replaced = false;
    for (report::ScenarioResult& r : scenarios_) {
      if (r.scenario == so_far.scenario) {
        r = std::move(so_far);
        replaced = true;
        break;
      }
    }
    if (!replaced) scenarios_.push_back(std::move(so_far));
    text = report::prometheus_text(scenarios_);
  }
  server_->publish(std::move(text));
}

}  // namespace stampede::cli
