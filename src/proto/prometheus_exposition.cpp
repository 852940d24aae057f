// The exposition parser: one pass over the body, line by line, each line read left to
// right by a cursor with no backtracking. Samples are built in place in their family, so a
// sample costs its name, its labels and nothing else (no intermediate token list).
#include "proto/prometheus_exposition.hpp"

#include <algorithm>
#include <array>
#include <functional>
#include <unordered_map>
#include <utility>

#include "proto/ascii.hpp"
#include "proto/prometheus_number.hpp"
#include "proto/websocket_frame.hpp"  // ws::is_valid_utf8

namespace stampede::proto {
namespace {

constexpr std::size_t kNone = static_cast<std::size_t>(-1);

bool is_blank(char c) { return c == ' ' || c == '\t'; }
bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
using ascii::is_digit;
// Metric names: [a-zA-Z_:][a-zA-Z0-9_:]*; label names: the same without ':'.
bool is_metric_name_start(char c) { return is_alpha(c) || c == '_' || c == ':'; }
bool is_metric_name_char(char c) { return is_metric_name_start(c) || is_digit(c); }
bool is_label_name_start(char c) { return is_alpha(c) || c == '_'; }
bool is_label_name_char(char c) { return is_label_name_start(c) || is_digit(c); }

using ascii::ascii_lower;

std::string_view trim_blanks(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

// "a \"quoted\" word" for messages, cut short so one absurd line cannot make a huge one.
std::string quoted(std::string_view s) {
  constexpr std::size_t kMax = 60;
  std::string out = "\"";
  out.append(s.substr(0, kMax));
  if (s.size() > kMax) out += "...";
  out += '"';
  return out;
}

// "'x'" for a printable character, "byte 0x01" for anything else (control or non-ASCII).
std::string quoted_char(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (u < 0x20 || u >= 0x7f) {
    static constexpr char kHex[] = "0123456789abcdef";
    return std::string("byte 0x") + kHex[u >> 4] + kHex[u & 0xf];
  }
  return std::string("'") + c + "'";
}

std::optional<MetricType> metric_type_from(std::string_view word) {
  static constexpr std::array<std::pair<std::string_view, MetricType>, 9> kTypes{{
      {"counter", MetricType::Counter},
      {"gauge", MetricType::Gauge},
      {"histogram", MetricType::Histogram},
      {"gaugehistogram", MetricType::GaugeHistogram},
      {"summary", MetricType::Summary},
      {"info", MetricType::Info},
      {"stateset", MetricType::StateSet},
      {"untyped", MetricType::Unknown},  // 0.0.4's word
      {"unknown", MetricType::Unknown},  // OpenMetrics' word
  }};
  for (const auto& [name, type] : kTypes) {
    if (word == name) return type;
  }
  return std::nullopt;
}

// The sample-name suffixes by which a declared family claims a sample named otherwise
// than itself (OpenMetrics 1.0, "Metric types"; 0.0.4 has the histogram and summary ones).
bool family_takes_suffix(MetricType type, std::string_view suffix) {
  switch (type) {
    case MetricType::Counter: return suffix == "_total" || suffix == "_created";
    case MetricType::Histogram:
      return suffix == "_bucket" || suffix == "_sum" || suffix == "_count" || suffix == "_created";
    case MetricType::GaugeHistogram: return suffix == "_bucket" || suffix == "_gsum" || suffix == "_gcount";
    case MetricType::Summary: return suffix == "_sum" || suffix == "_count" || suffix == "_created";
    case MetricType::Info: return suffix == "_info";
    case MetricType::Unknown:
    case MetricType::Gauge:
    case MetricType::StateSet: return false;
  }
  return false;
}

constexpr std::array<std::string_view, 8> kSampleSuffixes{"_total", "_created", "_bucket", "_sum",
                                                          "_count",  "_gsum",    "_gcount", "_info"};

// Unescapes a HELP text: \\ and \n in both formats, and \" in OpenMetrics (whose HELP uses
// the label-value escapes). Any other backslash stays as written, as in Prometheus.
std::string unescape_help(std::string_view text, bool open_metrics) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\\' && i + 1 < text.size()) {
      const char e = text[i + 1];
      if (e == '\\' || e == 'n' || (open_metrics && e == '"')) {
        out += e == 'n' ? '\n' : e;
        ++i;
        continue;
      }
    }
    out += c;
  }
  return out;
}

// One line, read left to right.
struct Cursor {
  std::string_view s;
  std::size_t i = 0;

  bool done() const { return i >= s.size(); }
  char peek() const { return s[i]; }
  // True when at least one blank was skipped.
  bool skip_blanks() {
    const std::size_t start = i;
    while (i < s.size() && is_blank(s[i])) ++i;
    return i > start;
  }
  // The run of non-blank characters from here.
  std::string_view token() {
    const std::size_t start = i;
    while (i < s.size() && !is_blank(s[i])) ++i;
    return s.substr(start, i - start);
  }
  template <typename Pred>
  std::string_view take_while(Pred pred) {
    const std::size_t start = i;
    while (i < s.size() && pred(s[i])) ++i;
    return s.substr(start, i - start);
  }
  std::string_view rest() const { return s.substr(std::min(i, s.size())); }
};

// A line as the parser sees it: without its '\n', and without one '\r' before it.
std::string_view without_cr(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

bool is_blank_line(std::string_view line) {
  return std::all_of(line.begin(), line.end(), is_blank);
}

// "# EOF", with any blanks around its two words.
bool is_eof_line(std::string_view line) {
  Cursor c{line};
  c.skip_blanks();
  if (c.done() || c.peek() != '#') return false;
  ++c.i;
  if (!c.skip_blanks() || c.token() != "EOF") return false;
  c.skip_blanks();
  return c.done();
}

// Auto's test: is the last non-blank line, read as the parser reads lines, # EOF?
bool body_ends_with_eof(std::string_view body) {
  while (!body.empty()) {
    if (body.back() == '\n') body.remove_suffix(1);
    const std::size_t start = body.rfind('\n');
    const std::string_view line = body.substr(start == std::string_view::npos ? 0 : start + 1);
    if (!is_blank_line(without_cr(line))) return is_eof_line(without_cr(line));
    body.remove_suffix(line.size());
  }
  return false;
}

struct NameHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

class Parser {
 public:
  explicit Parser(ExpositionFormat format) : open_metrics_(format == ExpositionFormat::OpenMetrics) {
    out_.format = format;
  }

  ExpositionParse run(std::string_view body) {
    ExpositionParse result;
    std::size_t line_number = 0;
    std::size_t pos = 0;
    while (pos < body.size()) {
      ++line_number;
      const std::size_t newline = body.find('\n', pos);
      const std::size_t end = newline == std::string_view::npos ? body.size() : newline;
      const std::string_view line = without_cr(body.substr(pos, end - pos));
      pos = newline == std::string_view::npos ? body.size() : newline + 1;
      if (!parse_line(line)) {
        result.error = ExpositionError{line_number, std::move(what_), false};
        return result;
      }
    }
    if (open_metrics_ && !eof_seen_) {
      result.error = ExpositionError{0, "the body does not end with # EOF: cut short?", true};
      return result;
    }
    result.exposition = std::move(out_);
    return result;
  }

 private:
  bool fail(std::string what) {
    what_ = std::move(what);
    return false;
  }

  bool parse_line(std::string_view line) {
    Cursor c{line};
    c.skip_blanks();
    if (c.done()) return true;  // blank lines are allowed anywhere
    if (eof_seen_) return fail("data after # EOF");
    if (c.peek() == '#') return parse_comment(c);
    return parse_sample(c);
  }

  // "# HELP", "# TYPE", "# UNIT" (OpenMetrics), "# EOF" (OpenMetrics); anything else after
  // a '#' is a comment.
  bool parse_comment(Cursor& c) {
    ++c.i;
    if (!c.skip_blanks()) return true;  // "#text": a comment, as in Prometheus
    const std::string_view word = c.token();
    const bool help = word == "HELP";
    const bool type = word == "TYPE";
    const bool unit = open_metrics_ && word == "UNIT";
    if (open_metrics_ && word == "EOF") {
      c.skip_blanks();
      if (!c.done()) return fail("unexpected " + quoted(c.rest()) + " after # EOF");
      eof_seen_ = true;  // the same test as is_eof_line(), which Auto uses
      return true;
    }
    if (!help && !type && !unit) return true;

    c.skip_blanks();
    if (c.done()) return fail(std::string(word) + " line without a metric name");
    if (c.peek() == '"') return fail("quoted metric names (UTF-8 names) are not supported");
    if (!is_metric_name_start(c.peek())) {
      return fail("expected a metric name after " + std::string(word) + ", got " + quoted_char(c.peek()));
    }
    const std::string_view name = c.take_while(is_metric_name_char);
    if (!c.done() && !is_blank(c.peek())) {
      return fail("unexpected " + quoted_char(c.peek()) + " after the metric name in " + std::string(word) +
                  " " + quoted(name));
    }
    const std::string_view text = trim_blanks(c.rest());
    previous_family_ = kNone;  // metadata may change which family the next sample joins

    if (help) {
      if (!ws::is_valid_utf8(text)) return fail("HELP text of " + quoted(name) + " is not valid UTF-8");
      family(declare(name)).help = unescape_help(text, open_metrics_);
      return true;
    }
    if (unit) {
      if (text.find_first_of(" \t") != std::string_view::npos) {
        return fail("unexpected text after the unit of " + quoted(name));
      }
      family(declare(name)).unit = text;
      return true;
    }
    if (text.empty()) return fail("TYPE line for " + quoted(name) + " without a type");
    Cursor t{text};
    const std::string_view type_word = t.token();
    t.skip_blanks();
    if (!t.done()) return fail("unexpected " + quoted(t.rest()) + " after the type of " + quoted(name));
    const auto parsed = metric_type_from(type_word);
    if (!parsed) return fail("unknown metric type " + quoted(type_word) + " for " + quoted(name));
    family(declare(name)).type = *parsed;
    return true;
  }

  bool parse_sample(Cursor& c) {
    if (c.peek() == '{') return fail("quoted metric names ({\"name\", ...}) are not supported");
    if (!is_metric_name_start(c.peek())) {
      return fail("expected a metric name or '#', got " + quoted_char(c.peek()));
    }
    const std::string_view name = c.take_while(is_metric_name_char);
    const std::size_t index = family_for_sample(name);
    std::vector<Sample>& samples = family(index).samples;
    // A family's samples mostly have as many labels as the one before: room for them at
    // once instead of four reallocations of the vector for six labels (5% of the parse).
    const std::size_t labels_before = samples.empty() ? 0 : samples.back().labels.size();
    Sample& sample = samples.emplace_back();
    sample.labels.reserve(labels_before);
    sample.name.assign(name);
    previous_family_ = index;

    const bool blank_after_name = c.skip_blanks();
    bool separated = blank_after_name;
    if (!c.done() && c.peek() == '{') {
      if (!parse_labels(c, sample.labels, name)) return false;
      separated = true;  // Prometheus reads "x{a="b"}1": the brace ends the name
      c.skip_blanks();
    }
    if (c.done()) return fail("no value for " + quoted(name));
    if (!separated) return fail("unexpected " + quoted_char(c.peek()) + " after the metric name " + quoted(name));

    const std::string_view value_text = c.token();
    const auto value = parse_exposition_float(value_text);
    if (!value) return fail("invalid value " + quoted(value_text) + " for " + quoted(name));
    sample.value = *value;

    c.skip_blanks();
    if (c.done()) return true;
    if (c.peek() == '#') return parse_exemplar(c, name);
    const std::string_view timestamp_text = c.token();
    sample.timestamp_ms = open_metrics_ ? parse_second_timestamp(timestamp_text)
                                        : parse_millisecond_timestamp(timestamp_text);
    if (!sample.timestamp_ms) {
      return fail("invalid timestamp " + quoted(timestamp_text) + " for " + quoted(name) +
                  (open_metrics_ ? " (OpenMetrics: seconds)" : " (0.0.4: integer milliseconds)"));
    }
    c.skip_blanks();
    if (c.done()) return true;
    if (c.peek() == '#') return parse_exemplar(c, name);
    return fail("unexpected " + quoted(c.rest()) + " after the timestamp of " + quoted(name));
  }

  // From '{' to its '}'. Label values are unescaped into `labels`.
  bool parse_labels(Cursor& c, std::vector<Label>& labels, std::string_view whose) {
    ++c.i;  // '{'
    while (true) {
      c.skip_blanks();
      if (c.done()) return fail("label set of " + quoted(whose) + " not closed");
      if (c.peek() == '}') {
        ++c.i;
        return true;
      }
      if (c.peek() == '"') return fail("quoted label names (UTF-8 names) are not supported");
      if (!is_label_name_start(c.peek())) {
        return fail("expected a label name in " + quoted(whose) + ", got " + quoted_char(c.peek()));
      }
      const std::string_view label_name = c.take_while(is_label_name_char);
      c.skip_blanks();
      if (c.done() || c.peek() != '=') {
        return fail("expected '=' after label name " + quoted(label_name) + " of " + quoted(whose));
      }
      ++c.i;
      c.skip_blanks();
      if (c.done() || c.peek() != '"') {
        return fail("value of label " + quoted(label_name) + " of " + quoted(whose) + " is not quoted");
      }
      for (const Label& earlier : labels) {
        if (earlier.name == label_name) return fail("label " + quoted(label_name) + " appears twice in " + quoted(whose));
      }
      Label& label = labels.emplace_back();
      label.name.assign(label_name);
      if (!read_label_value(c, label.value)) {
        return fail("label value of " + quoted(label_name) + " in " + quoted(whose) + " not closed");
      }
      if (!ws::is_valid_utf8(label.value)) {
        return fail("label value of " + quoted(label_name) + " in " + quoted(whose) + " is not valid UTF-8");
      }
      c.skip_blanks();
      if (c.done()) return fail("label set of " + quoted(whose) + " not closed");
      if (c.peek() == ',') {
        ++c.i;  // a trailing comma before '}' is allowed, as in Prometheus
      } else if (c.peek() != '}') {
        return fail("expected ',' or '}' after the value of label " + quoted(label_name) + " of " + quoted(whose) +
                    ", got " + quoted_char(c.peek()));
      }
    }
  }

  // From the opening quote past the closing one. \\ \" \n are unescaped; any other
  // backslash pair stays as written (Prometheus' lexer accepts it, its unescaper keeps it).
  // False when the line ends first.
  static bool read_label_value(Cursor& c, std::string& out) {
    ++c.i;  // '"'
    // Most values have no backslash: up to the next quote in one copy.
    const std::size_t quote = c.s.find('"', c.i);
    if (quote != std::string_view::npos && c.s.substr(c.i, quote - c.i).find('\\') == std::string_view::npos) {
      out.assign(c.s.substr(c.i, quote - c.i));
      c.i = quote + 1;
      return true;
    }
    std::size_t run = c.i;
    while (c.i < c.s.size()) {
      const char ch = c.s[c.i];
      if (ch == '"') {
        out.append(c.s.substr(run, c.i - run));
        ++c.i;
        return true;
      }
      if (ch == '\\') {
        if (c.i + 1 >= c.s.size()) return false;
        out.append(c.s.substr(run, c.i - run));
        const char e = c.s[c.i + 1];
        if (e == '\\' || e == '"') {
          out += e;
        } else if (e == 'n') {
          out += '\n';
        } else {
          out += '\\';
          out += e;
        }
        c.i += 2;
        run = c.i;
        continue;
      }
      ++c.i;
    }
    return false;
  }

  // " # {trace_id="abc"} 1.0 1700000000.123": read to the end of the line, checked, dropped.
  bool parse_exemplar(Cursor& c, std::string_view whose) {
    ++c.i;  // '#'
    c.skip_blanks();
    if (c.done() || c.peek() != '{') {
      return fail("expected an exemplar's '{' after '#' on the line of " + quoted(whose));
    }
    exemplar_labels_.clear();
    if (!parse_labels(c, exemplar_labels_, whose)) {
      what_ = "exemplar: " + what_;
      return false;
    }
    c.skip_blanks();
    if (c.done()) return fail("exemplar of " + quoted(whose) + " without a value");
    const std::string_view value_text = c.token();
    if (!parse_exposition_float(value_text)) {
      return fail("invalid exemplar value " + quoted(value_text) + " for " + quoted(whose));
    }
    c.skip_blanks();
    if (c.done()) return true;
    const std::string_view timestamp_text = c.token();
    if (!parse_second_timestamp(timestamp_text)) {
      return fail("invalid exemplar timestamp " + quoted(timestamp_text) + " for " + quoted(whose));
    }
    c.skip_blanks();
    if (!c.done()) return fail("unexpected " + quoted(c.rest()) + " after the exemplar of " + quoted(whose));
    return true;
  }

  MetricFamily& family(std::size_t index) { return out_.families[index]; }

  // A new family, which from now on is the one its name finds.
  std::size_t add_family(std::string_view name, bool declared) {
    const std::size_t index = out_.families.size();
    out_.families.emplace_back().name.assign(name);
    declared_.push_back(declared);
    if (const auto it = index_.find(name); it != index_.end()) {
      it->second = index;
    } else {
      index_.emplace(std::string(name), index);
    }
    return index;
  }

  std::size_t find(std::string_view name) const {
    const auto it = index_.find(name);
    return it == index_.end() ? kNone : it->second;
  }

  // The family a HELP/TYPE/UNIT line is about. Metadata describes the samples after it,
  // as Prometheus reads the stream: while the family of that name has no samples yet the
  // line completes it (a later TYPE replaces an earlier one), and once it has some, the line
  // opens a new family of the same name. client_golang's OpenMetrics output needs that: it
  // writes the gauge go_memstats_alloc_bytes and, right after, the counter
  // go_memstats_alloc_bytes (samples go_memstats_alloc_bytes_total), each with its HELP.
  std::size_t declare(std::string_view name) {
    const std::size_t index = find(name);
    if (index == kNone || !family(index).samples.empty()) return add_family(name, true);
    declared_[index] = true;
    return index;
  }

  // Which family a sample joins: a declared family of its exact name; else a declared
  // family that claims it by suffix (x_bucket -> histogram x); else the undeclared family
  // of its exact name, made on first sight.
  std::size_t family_for_sample(std::string_view name) {
    // Fast path: the same name as the sample before (the buckets of one histogram, one
    // series' labels after another), with no metadata line in between.
    if (previous_family_ != kNone) {
      const auto& samples = family(previous_family_).samples;
      if (!samples.empty() && samples.back().name == name) return previous_family_;
    }
    const std::size_t exact = find(name);
    if (exact != kNone && declared_[exact]) return exact;
    for (const std::string_view suffix : kSampleSuffixes) {
      if (name.size() <= suffix.size() || !name.ends_with(suffix)) continue;
      const std::size_t base = find(name.substr(0, name.size() - suffix.size()));
      if (base != kNone && declared_[base] && family_takes_suffix(family(base).type, suffix)) return base;
    }
    if (exact != kNone) return exact;
    return add_family(name, false);
  }

  bool open_metrics_;
  Exposition out_;
  // Family name -> the latest family of that name (see declare()).
  std::unordered_map<std::string, std::size_t, NameHash, std::equal_to<>> index_;
  std::vector<bool> declared_;  // per family: it had a HELP, TYPE or UNIT line
  std::size_t previous_family_ = kNone;
  std::vector<Label> exemplar_labels_;  // scratch: exemplars are checked, then dropped
  bool eof_seen_ = false;
  std::string what_;
};

bool iequals_prefix(std::string_view text, std::string_view lower_prefix) {
  if (text.size() < lower_prefix.size()) return false;
  for (std::size_t i = 0; i < lower_prefix.size(); ++i) {
    if (ascii_lower(text[i]) != lower_prefix[i]) return false;
  }
  return true;
}

}  // namespace

ExpositionFormat exposition_format_of(std::string_view content_type) {
  const std::string_view media_type = trim_blanks(content_type.substr(0, content_type.find(';')));
  constexpr std::string_view kOpenMetrics = "application/openmetrics-text";
  constexpr std::string_view kText = "text/plain";
  if (media_type.size() == kOpenMetrics.size() && iequals_prefix(media_type, kOpenMetrics)) {
    return ExpositionFormat::OpenMetrics;
  }
  if (media_type.size() == kText.size() && iequals_prefix(media_type, kText)) return ExpositionFormat::Prometheus004;
  return ExpositionFormat::Auto;
}

std::string_view metric_type_name(MetricType type) {
  switch (type) {
    case MetricType::Unknown: return "unknown";
    case MetricType::Counter: return "counter";
    case MetricType::Gauge: return "gauge";
    case MetricType::Histogram: return "histogram";
    case MetricType::GaugeHistogram: return "gaugehistogram";
    case MetricType::Summary: return "summary";
    case MetricType::Info: return "info";
    case MetricType::StateSet: return "stateset";
  }
  return "unknown";
}

const std::string* Sample::label(std::string_view label_name) const {
  for (const Label& l : labels) {
    if (l.name == label_name) return &l.value;
  }
  return nullptr;
}

const MetricFamily* Exposition::find(std::string_view name) const {
  for (const MetricFamily& f : families) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::size_t Exposition::sample_count() const {
  std::size_t n = 0;
  for (const MetricFamily& f : families) n += f.samples.size();
  return n;
}

std::string ExpositionError::message() const {
  if (line == 0) return what;
  return "line " + std::to_string(line) + ": " + what;
}

ExpositionParse parse_exposition(std::string_view body, ExpositionFormat format) {
  if (format == ExpositionFormat::Auto) {
    format = body_ends_with_eof(body) ? ExpositionFormat::OpenMetrics : ExpositionFormat::Prometheus004;
  }
  return Parser(format).run(body);
}

}  // namespace stampede::proto
