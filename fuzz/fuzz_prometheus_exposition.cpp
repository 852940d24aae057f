// Arbitrary bytes as a /metrics body, read in each format. Whatever the parser accepts must
// be well-formed (names of the right characters, UTF-8 label values, no label twice, an
// error with a message and a line that exists), and must survive a round trip: its samples
// written back as 0.0.4 text (escaped, no metadata) read again to the same names, labels,
// values and timestamps, which checks the label escapes both ways. With the sanitizers this
// also checks that garbage never crashes the parser or reads out of bounds.
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "proto/prometheus_exposition.hpp"
#include "proto/websocket_frame.hpp"

namespace {

using namespace stampede::proto;

bool metric_name_ok(std::string_view s) {
  if (s.empty()) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool start = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
    if (!start && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

bool label_name_ok(std::string_view s) { return metric_name_ok(s) && s.find(':') == std::string_view::npos; }

std::size_t line_count(std::string_view s) {
  std::size_t n = 0;
  for (const char c : s) n += c == '\n';
  return n + 1;
}

void append_value(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "NaN";
    return;
  }
  char buffer[64];
  const auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, v);  // shortest round trip
  if (error != std::errc{}) std::abort();
  out.append(buffer, end);
}

std::string as_text(const Exposition& e) {
  std::string out;
  for (const MetricFamily& f : e.families) {
    for (const Sample& s : f.samples) {
      out += s.name;
      out += '{';
      for (const Label& l : s.labels) {
        out += l.name;
        out += "=\"";
        for (const char c : l.value) {
          if (c == '\\' || c == '"') out += '\\';
          if (c == '\n') {
            out += "\\n";
          } else {
            out += c;
          }
        }
        out += "\",";
      }
      out += "} ";
      append_value(out, s.value);
      if (s.timestamp_ms) out += " " + std::to_string(*s.timestamp_ms);
      out += '\n';
    }
  }
  return out;
}

bool same_value(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, sizeof a) == 0;
}

void check(std::string_view body, ExpositionFormat format) {
  const ExpositionParse result = parse_exposition(body, format);
  if (!result.ok()) {
    const ExpositionError& e = *result.error;
    if (e.what.empty() || e.message().empty() || e.line > line_count(body)) std::abort();
    // Truncation is about a whole body that was asked to be OpenMetrics (Auto picks
    // OpenMetrics only for a body that ends with # EOF).
    if (e.truncated && (e.line != 0 || format != ExpositionFormat::OpenMetrics)) std::abort();
    if (!result.exposition.families.empty()) std::abort();
    return;
  }
  const Exposition& e = result.exposition;
  if (e.format == ExpositionFormat::Auto) std::abort();
  if (format != ExpositionFormat::Auto && e.format != format) std::abort();
  for (const MetricFamily& f : e.families) {
    if (!metric_name_ok(f.name) || !stampede::proto::ws::is_valid_utf8(f.help)) std::abort();
    for (const Sample& s : f.samples) {
      if (!metric_name_ok(s.name) || !s.name.starts_with(f.name)) std::abort();
      for (std::size_t i = 0; i < s.labels.size(); ++i) {
        if (!label_name_ok(s.labels[i].name) || !stampede::proto::ws::is_valid_utf8(s.labels[i].value)) std::abort();
        for (std::size_t j = 0; j < i; ++j) {
          if (s.labels[j].name == s.labels[i].name) std::abort();
        }
      }
    }
  }

  // The round trip through 0.0.4 text.
  const std::string text = as_text(e);
  const ExpositionParse again = parse_exposition(text, ExpositionFormat::Prometheus004);
  if (!again.ok()) std::abort();
  if (again.exposition.sample_count() != e.sample_count()) std::abort();
  // Without metadata each sample name is a family of its own, holding that name's samples
  // in the order they were written.
  std::unordered_map<std::string_view, std::pair<const MetricFamily*, std::size_t>> by_name;
  for (const MetricFamily& f : again.exposition.families) by_name[f.name] = {&f, 0};
  for (const MetricFamily& f : e.families) {
    for (const Sample& b : f.samples) {
      auto it = by_name.find(b.name);
      if (it == by_name.end() || it->second.second >= it->second.first->samples.size()) std::abort();
      const Sample& a = it->second.first->samples[it->second.second++];
      if (a.name != b.name || a.labels.size() != b.labels.size() || !same_value(a.value, b.value) ||
          a.timestamp_ms != b.timestamp_ms) {
        std::abort();
      }
      for (std::size_t j = 0; j < a.labels.size(); ++j) {
        if (a.labels[j].name != b.labels[j].name || a.labels[j].value != b.labels[j].value) std::abort();
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  check(body, ExpositionFormat::Prometheus004);
  check(body, ExpositionFormat::OpenMetrics);
  check(body, ExpositionFormat::Auto);
  return 0;
}
