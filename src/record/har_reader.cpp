#include "record/har_reader.hpp"

#include <boost/json/basic_parser_impl.hpp>
#include <boost/json/value.hpp>
#include <boost/json/value_stack.hpp>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>
#include <vector>

#include "proto/base64.hpp"
#include "proto/form.hpp"

namespace stampede::record {
namespace {

namespace json = boost::json;

// What a string that was longer than HarLimits::max_string is replaced with: the converter
// then knows the value is missing rather than taking a prefix for the whole.
constexpr std::string_view kCutString = "\x01stampede:cut";

bool is_cut(std::string_view s) { return s == kCutString; }

// Where a value sits in the HAR document, for the values the reader wants.
enum class Where { Other, Root, Log, Version, Creator, Browser, Entries, Entry };

struct Container {
  bool array = false;
  std::string key;  // objects: the key of the member being read
};

std::string_view string_of(const json::object& object, std::string_view key) {
  const auto* value = object.if_contains(key);
  if (value == nullptr || !value->is_string()) return {};
  return value->get_string();
}

double number_of(const json::object& object, std::string_view key, double fallback = 0) {
  const auto* value = object.if_contains(key);
  if (value == nullptr) return fallback;
  if (value->is_double()) return value->get_double();
  if (value->is_int64()) return static_cast<double>(value->get_int64());
  if (value->is_uint64()) return static_cast<double>(value->get_uint64());
  return fallback;
}

// A number that must fit an int (statuses, opcodes): anything else, NaN or out of range, is `fallback`.
int int_of(const json::object& object, std::string_view key, int fallback) {
  const double d = number_of(object, key, fallback);
  if (!(d >= -1e9 && d <= 1e9)) return fallback;
  return static_cast<int>(d);
}

const json::object* object_of(const json::object& object, std::string_view key) {
  const auto* value = object.if_contains(key);
  return value != nullptr ? value->if_object() : nullptr;
}

const json::array* array_of(const json::object& object, std::string_view key) {
  const auto* value = object.if_contains(key);
  return value != nullptr ? value->if_array() : nullptr;
}

std::vector<Header> headers_of(const json::object& message) {
  std::vector<Header> headers;
  if (const auto* list = array_of(message, "headers")) {
    for (const auto& item : *list) {
      const auto* header = item.if_object();
      if (header == nullptr) continue;
      const auto name = string_of(*header, "name");
      if (name.empty() || is_cut(name)) continue;
      // HTTP/2 pseudo-headers (":authority", ":path") say nothing a request would carry.
      if (name.front() == ':') continue;
      headers.push_back({std::string(name), std::string(string_of(*header, "value"))});
    }
  }
  return headers;
}

// Response bodies worth keeping: what a scenario may read values from.
bool is_text_mime(std::string_view mime) {
  if (mime.find("javascript") != std::string_view::npos || mime.find("css") != std::string_view::npos) return false;
  for (const std::string_view kind : {"text/", "json", "xml", "x-www-form-urlencoded"}) {
    if (mime.find(kind) != std::string_view::npos) return true;
  }
  return false;
}

// The parts of the reader that Boost's parser calls back (its handler).
class HarHandler {
 public:
  static constexpr std::size_t max_object_size = std::size_t(-1);
  static constexpr std::size_t max_array_size = std::size_t(-1);
  static constexpr std::size_t max_key_size = 64 * 1024;
  static constexpr std::size_t max_string_size = std::size_t(-1);

  explicit HarHandler(const HarLimits& limits) : limits_(limits) {}

  bool on_document_begin(json::error_code&) { return true; }
  bool on_document_end(json::error_code&) { return true; }
  bool on_object_begin(json::error_code& ec) { return begin_container(false, ec); }
  bool on_array_begin(json::error_code& ec) { return begin_container(true, ec); }
  bool on_object_end(std::size_t n, json::error_code& ec) { return end_container(false, n, ec); }
  bool on_array_end(std::size_t n, json::error_code& ec) { return end_container(true, n, ec); }

  bool on_key_part(json::string_view s, std::size_t, json::error_code&) {
    key_.append(s.data(), s.size());
    return true;
  }
  bool on_key(json::string_view s, std::size_t, json::error_code&) {
    key_.append(s.data(), s.size());
    if (capturing_) {
      stack_.push_key(key_);
    } else {
      containers_.back().key = key_;
    }
    key_.clear();
    return true;
  }
  bool on_string_part(json::string_view s, std::size_t n, json::error_code& ec) {
    if (n == s.size() && !begin_scalar(ec)) return false;
    if (!capturing_) {
      if (string_.size() < limits_.max_string) string_.append(s.data(), std::min(s.size(), limits_.max_string));
      return true;
    }
    return append_string_piece(s, n);
  }
  bool on_string(json::string_view s, std::size_t n, json::error_code& ec) {
    if (!capturing_) {
      if (n == s.size() && !begin_scalar(ec)) return false;
      if (string_.size() < limits_.max_string) string_.append(s.data(), std::min(s.size(), limits_.max_string));
      if (where_of_scalar_ == Where::Version) version_ = string_;
      string_.clear();
      return true;
    }
    if (n == s.size() && !begin_scalar(ec)) return false;
    append_string_piece(s, n);
    stack_.push_string(string_cut_ ? kCutString : std::string_view(string_));
    string_.clear();
    string_cut_ = false;
    return true;
  }
  bool on_number_part(json::string_view, json::error_code&) { return true; }
  bool on_int64(std::int64_t i, json::string_view, json::error_code& ec) {
    if (!begin_scalar(ec)) return false;
    if (capturing_) stack_.push_int64(i);
    return true;
  }
  bool on_uint64(std::uint64_t u, json::string_view, json::error_code& ec) {
    if (!begin_scalar(ec)) return false;
    if (capturing_) stack_.push_uint64(u);
    return true;
  }
  bool on_double(double d, json::string_view, json::error_code& ec) {
    if (!begin_scalar(ec)) return false;
    if (capturing_) stack_.push_double(d);
    return true;
  }
  bool on_bool(bool b, json::error_code& ec) {
    if (!begin_scalar(ec)) return false;
    if (capturing_) stack_.push_bool(b);
    return true;
  }
  bool on_null(json::error_code& ec) {
    if (!begin_scalar(ec)) return false;
    if (capturing_) stack_.push_null();
    return true;
  }
  bool on_comment_part(json::string_view, json::error_code&) { return true; }
  bool on_comment(json::string_view, json::error_code&) { return true; }

  HarResult finish() {
    HarResult result;
    if (!error_.empty()) {
      result.error = error_;
      return result;
    }
    if (!saw_log_) {
      result.error = "not a HAR file: it has no \"log\" object (export it from the browser's Network panel: "
                     "\"Save all as HAR with content\")";
      return result;
    }
    if (version_.rfind("1.1", 0) == 0 || version_ == "1.0") {
      result.error = "this is a HAR " + version_ +
                     " file; Stampede reads HAR 1.2, which Chromium and Firefox export (log.version \"1.2\")";
      return result;
    }
    if (!saw_entries_) {
      result.error = "not a HAR file: its log has no \"entries\" array";
      return result;
    }
    auto& recording = recording_;
    std::stable_sort(recording.exchanges.begin(), recording.exchanges.end(),
                     [](const Exchange& a, const Exchange& b) { return a.started_ms < b.started_ms; });
    // Times relative to the first request, as the proxy records them.
    const double base = first_ms_.value_or(0);
    for (auto& exchange : recording.exchanges) {
      exchange.started_ms -= base;
      exchange.ended_ms -= base;
      for (auto& frame : exchange.frames) frame.at_ms -= base;
    }
    recording.source = "HAR " + (version_.empty() ? std::string("1.2") : version_);
    if (!creator_.empty()) recording.source += " from " + creator_;
    result.recording = std::move(recording_);
    return result;
  }

  void fail(std::string why) {
    if (error_.empty()) error_ = std::move(why);
  }
  bool failed() const { return !error_.empty(); }

 private:
  Where where_next() const {
    const auto depth = containers_.size();
    if (depth == 0) return Where::Root;
    const auto& c = containers_;
    if (depth == 1) return !c[0].array && c[0].key == "log" ? Where::Log : Where::Other;
    if (c[0].key != "log" || c[1].array) return Where::Other;
    if (depth == 2) {
      if (c[1].key == "version") return Where::Version;
      if (c[1].key == "creator") return Where::Creator;
      if (c[1].key == "browser") return Where::Browser;
      if (c[1].key == "entries") return Where::Entries;
      return Where::Other;
    }
    if (depth == 3 && c[1].key == "entries" && c[2].array) return Where::Entry;
    return Where::Other;
  }

  bool begin_scalar(json::error_code& ec) {
    if (capturing_) return true;
    const auto where = where_next();
    where_of_scalar_ = where;
    if (where == Where::Root) return stop(ec, "not a HAR file: it is a JSON value, not an object with \"log\"");
    if (where == Where::Log) return stop(ec, "not a HAR file: \"log\" is not an object");
    if (where == Where::Entries) return stop(ec, "not a HAR file: log.entries is not an array");
    if (where == Where::Entry) return stop(ec, "not a HAR file: an entry of log.entries is not an object");
    return true;
  }

  bool begin_container(bool array, json::error_code& ec) {
    if (capturing_) {
      if (++capture_depth_ > limits_.max_entry_depth) return stop(ec, "a HAR entry is nested too deeply");
      return true;
    }
    const auto where = where_next();
    if (where == Where::Root && array) return stop(ec, "not a HAR file: it is a JSON array, not an object with \"log\"");
    if (where == Where::Log) {
      if (array) return stop(ec, "not a HAR file: \"log\" is not an object");
      saw_log_ = true;
    }
    if (where == Where::Entries) {
      if (!array) return stop(ec, "not a HAR file: log.entries is not an array");
      saw_entries_ = true;
    }
    if (where == Where::Entry || where == Where::Creator || where == Where::Browser) {
      if (array) {
        if (where == Where::Entry) return stop(ec, "not a HAR file: an entry of log.entries is not an object");
      } else {
        capturing_ = true;
        capture_where_ = where;
        capture_depth_ = 1;
        stack_.reset();
        return true;
      }
    }
    containers_.push_back({array, {}});
    return true;
  }

  bool end_container(bool array, std::size_t n, json::error_code& ec) {
    if (!capturing_) {
      containers_.pop_back();
      return true;
    }
    if (array) {
      stack_.push_array(n);
    } else {
      stack_.push_object(n);
    }
    if (--capture_depth_ > 0) return true;
    capturing_ = false;
    const json::value value = stack_.release();
    const auto* object = value.if_object();
    if (object == nullptr) return true;
    if (capture_where_ == Where::Entry) return add_entry(*object, ec);
    if (capture_where_ == Where::Creator || (capture_where_ == Where::Browser && creator_.empty())) {
      creator_ = std::string(string_of(*object, "name"));
      const auto version = string_of(*object, "version");
      if (!version.empty()) creator_ += " " + std::string(version);
    }
    return true;
  }

  bool append_string_piece(json::string_view s, std::size_t n) {
    if (string_cut_) return true;
    if (n > limits_.max_string) {
      string_cut_ = true;
      string_.clear();
      string_.shrink_to_fit();
      return true;
    }
    string_.append(s.data(), s.size());
    return true;
  }

  bool stop(json::error_code& ec, std::string why) {
    fail(std::move(why));
    ec = json::error::syntax;  // any code: the message above is the one reported
    return false;
  }

  bool add_entry(const json::object& entry, json::error_code& ec) {
    Exchange exchange;
    double started = 0;
    if (!parse_iso8601_ms(string_of(entry, "startedDateTime"), started))
      return stop(ec, "a HAR entry has no valid startedDateTime (entry " + std::to_string(entries_ + 1) + ")");
    ++entries_;
    if (!first_ms_ || started < *first_ms_) first_ms_ = started;
    if (recording_.started_at.empty() || started <= *first_ms_)
      recording_.started_at = std::string(string_of(entry, "startedDateTime"));
    exchange.started_ms = started;
    exchange.ended_ms = started + std::max(0.0, number_of(entry, "time"));
    exchange.resource_type = std::string(string_of(entry, "_resourceType"));
    if (const auto* request = object_of(entry, "request")) {
      exchange.method = std::string(string_of(*request, "method"));
      exchange.url = std::string(string_of(*request, "url"));
      exchange.request_headers = headers_of(*request);
      if (const auto* post = object_of(*request, "postData")) {
        exchange.request_mime = std::string(string_of(*post, "mimeType"));
        const auto text = string_of(*post, "text");
        if (!is_cut(text)) exchange.request_body = std::string(text);
        // Firefox and older exports may give only `params` for a form.
        if (exchange.request_body.empty()) {
          if (const auto* params = array_of(*post, "params")) {
            proto::FormFields fields;
            for (const auto& item : *params)
              if (const auto* p = item.if_object())
                fields.emplace_back(std::string(string_of(*p, "name")), std::string(string_of(*p, "value")));
            exchange.request_body = proto::encode_form(fields);
          }
        }
      }
    }
    if (exchange.method.empty() || exchange.url.empty() || is_cut(exchange.url))
      return stop(ec, "a HAR entry has no request method or URL (entry " + std::to_string(entries_) + ")");
    if (const auto* response = object_of(entry, "response")) {
      exchange.status = int_of(*response, "status", 0);
      exchange.response_headers = headers_of(*response);
      if (const auto* content = object_of(*response, "content")) {
        exchange.response_mime = std::string(string_of(*content, "mimeType"));
        const auto text = string_of(*content, "text");
        const bool base64 = string_of(*content, "encoding") == "base64";
        if (!text.empty()) {
          std::optional<std::string> body;
          if (!is_cut(text) && is_text_mime(exchange.response_mime)) {
            if (base64) {
              body = proto::decode_base64(text);
            } else {
              body = std::string(text);
            }
          }
          if (body && body->size() <= limits_.max_kept_body) {
            exchange.response_body = std::move(*body);
            exchange.response_body_kept = true;
          } else {
            ++recording_.dropped_bodies;
          }
        }
      }
    }
    if (const auto* messages = array_of(entry, "_webSocketMessages")) {
      for (const auto& item : *messages) {
        const auto* message = item.if_object();
        if (message == nullptr) continue;
        const auto type = string_of(*message, "type");
        const auto opcode = int_of(*message, "opcode", 1);
        if ((type != "send" && type != "receive") || (opcode != 1 && opcode != 2)) continue;  // control frames
        const auto data = string_of(*message, "data");
        if (is_cut(data)) {
          ++recording_.cut_frames;
          continue;
        }
        WsFrame frame;
        frame.sent = type == "send";
        frame.binary = opcode == 2;
        frame.at_ms = number_of(*message, "time") * 1000.0;
        if (frame.binary) {
          auto bytes = proto::decode_base64(data);
          if (!bytes) {
            ++recording_.cut_frames;
            continue;
          }
          frame.data = std::move(*bytes);
        } else {
          frame.data = std::string(data);
        }
        kept_ += frame.data.size();
        exchange.ended_ms = std::max(exchange.ended_ms, frame.at_ms);
        exchange.frames.push_back(std::move(frame));
      }
      std::stable_sort(exchange.frames.begin(), exchange.frames.end(),
                       [](const WsFrame& a, const WsFrame& b) { return a.at_ms < b.at_ms; });
    }
    const bool ws_scheme = exchange.url.rfind("ws://", 0) == 0 || exchange.url.rfind("wss://", 0) == 0;
    exchange.websocket = exchange.status == 101 || !exchange.frames.empty() || ws_scheme ||
                         exchange.resource_type == "websocket";
    kept_ += exchange.response_body.size() + exchange.request_body.size();
    if (kept_ > limits_.max_kept_total)
      return stop(ec, "the recording holds more than " + std::to_string(limits_.max_kept_total >> 20) +
                          " MiB of WebSocket frames and page bodies: record a shorter session");
    recording_.exchanges.push_back(std::move(exchange));
    return true;
  }

  HarLimits limits_;
  std::vector<Container> containers_;  // outside captured values
  std::string key_;
  std::string string_;
  bool string_cut_ = false;
  Where where_of_scalar_ = Where::Other;
  bool capturing_ = false;
  Where capture_where_ = Where::Other;
  std::size_t capture_depth_ = 0;
  json::value_stack stack_;
  bool saw_log_ = false;
  bool saw_entries_ = false;
  std::string version_;
  std::string creator_;
  std::size_t entries_ = 0;
  std::optional<double> first_ms_;
  std::size_t kept_ = 0;
  Recording recording_;
  std::string error_;
};

json::parse_options parse_options() {
  json::parse_options options;
  options.max_depth = 80;  // the entries' own limit (max_entry_depth) is checked by the handler
  return options;
}

}  // namespace

struct HarReader::Impl {
  explicit Impl(const HarLimits& limits) : parser(parse_options(), limits) {}
  json::basic_parser<HarHandler> parser;
  std::size_t offset = 0;
  bool done = false;

  void record_error(const json::error_code& ec) {
    auto& handler = parser.handler();
    if (handler.failed()) return;
    if (ec == json::error::incomplete) {
      handler.fail("the HAR file ends early, after " + std::to_string(offset) +
                   " bytes (truncated? save it again from the browser)");
    } else if (ec == json::error::extra_data) {
      handler.fail("the HAR file has more after its JSON document ends (byte " + std::to_string(offset) + ")");
    } else if (ec == json::error::too_deep) {
      handler.fail("the HAR file is nested too deeply to be a HAR (byte " + std::to_string(offset) + ")");
    } else {
      handler.fail("the HAR file is not valid JSON near byte " + std::to_string(offset) + ": " + ec.message());
    }
  }
};

HarReader::HarReader(HarLimits limits) : impl_(new Impl(limits)) {}
HarReader::~HarReader() { delete impl_; }

bool HarReader::feed(std::string_view piece) {
  if (impl_->done || impl_->parser.handler().failed()) return false;
  std::size_t used = 0;
  while (used < piece.size()) {
    json::error_code ec;
    const auto n = impl_->parser.write_some(true, piece.data() + used, piece.size() - used, ec);
    used += n;
    impl_->offset += n;
    if (ec) {
      impl_->record_error(ec);
      return false;
    }
    if (impl_->parser.done()) {
      // Only whitespace may follow the document.
      const auto rest = piece.substr(used);
      if (rest.find_first_not_of(" \t\r\n") != std::string_view::npos) {
        impl_->record_error(json::error::extra_data);
        return false;
      }
      impl_->done = true;
      return true;
    }
  }
  return true;
}

HarResult HarReader::finish() {
  auto& parser = impl_->parser;
  if (!parser.handler().failed() && !impl_->done) {
    if (impl_->offset == 0) {
      parser.handler().fail("the HAR file is empty");
    } else {
      json::error_code ec;
      parser.write_some(false, nullptr, 0, ec);
      if (ec) impl_->record_error(ec);
    }
  }
  return parser.handler().finish();
}

HarResult read_har(std::istream& in, const HarLimits& limits) {
  HarReader reader(limits);
  std::array<char, 64 * 1024> buffer{};
  while (in) {
    in.read(buffer.data(), buffer.size());
    const auto got = static_cast<std::size_t>(in.gcount());
    if (got == 0) break;
    if (!reader.feed(std::string_view(buffer.data(), got))) break;
  }
  return reader.finish();
}

HarResult read_har_text(std::string_view text, const HarLimits& limits) {
  HarReader reader(limits);
  reader.feed(text);
  return reader.finish();
}

HarResult read_har_file(const std::string& path, const HarLimits& limits) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    HarResult result;
    result.error = "cannot open " + path + ": " + std::strerror(errno);
    return result;
  }
  return read_har(in, limits);
}

namespace {

int digits(std::string_view s, std::size_t at, std::size_t count, bool& ok) {
  int value = 0;
  if (at + count > s.size()) {
    ok = false;
    return 0;
  }
  for (std::size_t i = at; i < at + count; ++i) {
    if (s[i] < '0' || s[i] > '9') {
      ok = false;
      return 0;
    }
    value = value * 10 + (s[i] - '0');
  }
  return value;
}

// Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar (Howard Hinnant's algorithm).
long long days_from_civil(int y, int m, int d) {
  y -= m <= 2;
  const long long era = (y >= 0 ? y : y - 399) / 400;
  const long long yoe = y - era * 400;
  const long long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

}  // namespace

bool parse_iso8601_ms(std::string_view s, double& epoch_ms) {
  bool ok = true;
  const int year = digits(s, 0, 4, ok);
  const int month = digits(s, 5, 2, ok);
  const int day = digits(s, 8, 2, ok);
  const int hour = digits(s, 11, 2, ok);
  const int minute = digits(s, 14, 2, ok);
  const int second = digits(s, 17, 2, ok);
  if (!ok || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != ' ') || s[13] != ':' || s[16] != ':') return false;
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return false;
  std::size_t at = 19;
  double fraction = 0;
  if (at < s.size() && s[at] == '.') {
    double scale = 0.1;
    ++at;
    const auto start = at;
    while (at < s.size() && s[at] >= '0' && s[at] <= '9') {
      fraction += (s[at] - '0') * scale;
      scale /= 10;
      ++at;
    }
    if (at == start) return false;
  }
  int offset_minutes = 0;
  if (at < s.size()) {
    if (s[at] == 'Z' && at + 1 == s.size()) {
      ++at;
    } else if ((s[at] == '+' || s[at] == '-') && at + 6 == s.size() && s[at + 3] == ':') {
      const int sign = s[at] == '-' ? -1 : 1;
      const int oh = digits(s, at + 1, 2, ok);
      const int om = digits(s, at + 4, 2, ok);
      if (!ok) return false;
      offset_minutes = sign * (oh * 60 + om);
      at += 6;
    } else {
      return false;
    }
  }
  const long long days = days_from_civil(year, month, day);
  const double seconds = static_cast<double>(days) * 86400.0 + hour * 3600.0 + minute * 60.0 + second -
                         offset_minutes * 60.0 + fraction;
  epoch_ms = seconds * 1000.0;
  return true;
}

}  // namespace stampede::record
