// The event-stream parser: lines are cut from the caller's bytes where they lie; only a line
// cut by the end of a chunk is copied (into line_). Field values are UTF-8 decoded one line at
// a time, which gives what decoding the whole stream first would: line breaks, ':' and ' ' are
// ASCII and can never sit inside a multi-byte sequence, and the standard's decoder never lets
// an ASCII byte be swallowed by a broken sequence before it.
#include "proto/event_stream.hpp"

#include <limits>
#include <utility>

namespace stampede::proto::sse {
namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";
constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD
constexpr std::string_view kDefaultType = "message";

// The WHATWG "UTF-8 decode" of `in`, appended to `out`: every maximal subpart of an ill-formed
// sequence becomes one U+FFFD (Unicode §3.9, "best practice"), exactly as browsers decode.
void append_utf8_decoded(std::string& out, std::string_view in) {
  std::size_t i = 0;
  while (i < in.size()) {
    const auto lead = static_cast<unsigned char>(in[i]);
    if (lead < 0x80) {
      // ASCII runs are copied whole.
      std::size_t end = i + 1;
      while (end < in.size() && static_cast<unsigned char>(in[end]) < 0x80) ++end;
      out.append(in.substr(i, end - i));
      i = end;
      continue;
    }
    std::size_t needed = 0;
    unsigned char lower = 0x80, upper = 0xBF;  // bounds of the first continuation byte
    if (lead >= 0xC2 && lead <= 0xDF) {
      needed = 1;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      needed = 2;
      if (lead == 0xE0) lower = 0xA0;  // no overlong forms
      if (lead == 0xED) upper = 0x9F;  // no surrogates
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      needed = 3;
      if (lead == 0xF0) lower = 0x90;
      if (lead == 0xF4) upper = 0x8F;  // nothing above U+10FFFF
    } else {
      out.append(kReplacement);
      ++i;
      continue;
    }
    std::size_t j = i + 1;
    bool complete = true;
    for (std::size_t k = 0; k < needed; ++k, ++j) {
      if (j == in.size()) {
        complete = false;
        break;
      }
      const auto c = static_cast<unsigned char>(in[j]);
      if (c < lower || c > upper) {
        complete = false;  // the byte is not consumed: it starts whatever comes next
        break;
      }
      lower = 0x80;
      upper = 0xBF;
    }
    if (complete) {
      out.append(in.substr(i, j - i));
    } else {
      out.append(kReplacement);
    }
    i = j;
  }
}

void assign_utf8_decoded(std::string& out, std::string_view in) {
  out.clear();
  append_utf8_decoded(out, in);
}

bool is_ascii_digits(std::string_view s) {
  if (s.empty()) return false;
  for (const char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

std::uint64_t saturating_decimal(std::string_view digits) {
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t v = 0;
  for (const char c : digits) {
    const auto d = static_cast<std::uint64_t>(c - '0');
    if (v > (kMax - d) / 10) return kMax;
    v = v * 10 + d;
  }
  return v;
}

}  // namespace

EventStreamParser::EventStreamParser(ParserLimits limits) : limits_(limits) {}

void EventStreamParser::feed(std::string_view bytes) {
  if (stopped_ || bytes.empty()) return;
  if (input_.empty()) {
    input_ = bytes;
    return;
  }
  // The previous input is not used up yet: keep both, in order, in memory of our own.
  std::string joined;
  joined.reserve(input_.size() + bytes.size());
  joined.append(input_);
  joined.append(bytes);
  spill_ = std::move(joined);
  input_ = spill_;
}

std::size_t EventStreamParser::buffered() const {
  return line_.size() + data_.size() + type_.size() + id_buffer_.size();
}

bool EventStreamParser::over_limit(std::size_t more) const {
  return buffered() + more > limits_.max_event_bytes;
}

SseEvent EventStreamParser::fail() {
  stopped_ = true;
  input_ = {};
  spill_.clear();
  line_.clear();
  data_.clear();
  type_.clear();
  id_buffer_.clear();
  id_pending_ = false;
  SseEvent event;
  event.kind = SseEvent::Kind::Error;
  event.error = "event stream: an event grew past the limit of " + std::to_string(limits_.max_event_bytes) + " bytes";
  return event;
}

void EventStreamParser::start_stream() {
  input_ = {};
  spill_.clear();
  line_.clear();
  skip_lf_ = false;
  at_stream_start_ = true;
  data_.clear();
  type_.clear();
  id_buffer_.clear();
  id_pending_ = false;
  stopped_ = false;
}

SseEvent EventStreamParser::next() {
  SseEvent event;
  while (!stopped_ && !input_.empty()) {
    if (skip_lf_) {
      skip_lf_ = false;
      if (input_.front() == '\n') {
        input_.remove_prefix(1);
        continue;
      }
    }
    const std::size_t end = input_.find_first_of("\r\n");
    if (end == std::string_view::npos) {
      // The line goes on in the next chunk: keep what we have of it.
      if (over_limit(input_.size())) return fail();
      line_.append(input_);
      input_ = {};
      break;
    }
    if (over_limit(end)) return fail();
    std::string_view line = input_.substr(0, end);
    if (!line_.empty()) {
      line_.append(line);
      line = line_;
    }
    skip_lf_ = input_[end] == '\r';
    input_.remove_prefix(end + 1);
    const bool produced = interpret_line(line, event);
    line_.clear();
    if (produced) return event;
    // The line fitted, but decoding may have grown it: each byte that is not UTF-8 becomes a
    // three-byte U+FFFD.
    if (buffered() > limits_.max_event_bytes) return fail();
  }
  spill_.clear();
  return event;  // NeedMore
}

bool EventStreamParser::interpret_line(std::string_view line, SseEvent& event) {
  if (at_stream_start_) {
    at_stream_start_ = false;
    if (line.substr(0, kBom.size()) == kBom) line.remove_prefix(kBom.size());
  }
  if (line.empty()) return dispatch(event);
  if (line.front() == ':') {
    if (!limits_.report_comments) return false;
    assign_utf8_decoded(comment_, line.substr(1));
    event.kind = SseEvent::Kind::Comment;
    event.comment = comment_;
    return true;
  }
  const std::size_t colon = line.find(':');
  std::string_view name = line;
  std::string_view value;
  if (colon != std::string_view::npos) {
    name = line.substr(0, colon);
    value = line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  }
  if (name == "event") {
    assign_utf8_decoded(type_, value);
  } else if (name == "data") {
    append_utf8_decoded(data_, value);
    data_ += '\n';
  } else if (name == "id") {
    if (value.find('\0') == std::string_view::npos) {
      assign_utf8_decoded(id_buffer_, value);
      id_pending_ = true;
    }
  } else if (name == "retry") {
    if (is_ascii_digits(value)) {
      reconnection_time_ms_ = saturating_decimal(value);
      event.kind = SseEvent::Kind::Retry;
      event.retry_ms = *reconnection_time_ms_;
      return true;
    }
  }
  // Any other field is ignored.
  return false;
}

bool EventStreamParser::dispatch(SseEvent& event) {
  last_event_id_ = id_buffer_;
  id_pending_ = false;
  if (data_.empty()) {
    type_.clear();
    return false;
  }
  data_.pop_back();  // the LF the last data: line appended
  dispatched_data_.swap(data_);
  data_.clear();
  if (type_.empty()) {
    dispatched_type_.assign(kDefaultType);
  } else {
    dispatched_type_.swap(type_);
    type_.clear();
  }
  event.kind = SseEvent::Kind::Message;
  event.type = dispatched_type_;
  event.data = dispatched_data_;
  event.last_event_id = last_event_id_;
  return true;
}

}  // namespace stampede::proto::sse
