#pragma once
// Reading a Phoenix frame's JSON element by element, without a DOM (phoenix_message.hpp: the
// decoders validate the whole frame in one pass). Header-only so the decoders' hot path stays
// inlined. Internal to proto/: phoenix_message_*.cpp, and the envelopes read the same way
// (phoenix_longpoll.cpp, graphql_ws.cpp).
#include <boost/json/basic_parser_impl.hpp>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "proto/phoenix_message.hpp"

namespace stampede::proto::phx::detail {

namespace json = boost::json;

// Phoenix (Jason) has no nesting limit and Boost's default of 32 would reject real LiveView
// diffs, so allow far more; but Boost's parser recurses once per level, and this bound keeps
// a hostile frame from exhausting a worker thread's stack.
inline constexpr std::size_t kMaxJsonDepth = 256;

inline constexpr std::string_view kReplyEvent = "phx_reply";

// ---------------------------------------------------------------------------------------
// Reading JSON element by element.
//
// The frame's outer array or object is walked here; each element is handed to Boost's SAX
// parser, which stops right after one complete value and says how many bytes it took. That
// gives, in a single validating pass and without a DOM: the header strings (unescaped by
// Boost), the exact byte range of the payload, and for replies the status and the range of
// the response.

enum class JsonKind : std::uint8_t { Unknown, Null, Bool, Number, String, Array, Object };

// What the handler learned about the one value it was given.
struct ValueSink {
  JsonKind kind = JsonKind::Unknown;
  std::string* text = nullptr;  // when set, a top-level string's unescaped text is appended
};

class SinkHandler {
 public:
  static constexpr std::size_t max_object_size = std::size_t(-1);
  static constexpr std::size_t max_array_size = std::size_t(-1);
  static constexpr std::size_t max_key_size = std::size_t(-1);
  static constexpr std::size_t max_string_size = std::size_t(-1);

  ValueSink* sink = nullptr;

  bool on_document_begin(json::error_code&) { return true; }
  bool on_document_end(json::error_code&) { return true; }
  bool on_array_begin(json::error_code&) { return open(JsonKind::Array); }
  bool on_array_end(std::size_t, json::error_code&) { return close(); }
  bool on_object_begin(json::error_code&) { return open(JsonKind::Object); }
  bool on_object_end(std::size_t, json::error_code&) { return close(); }
  bool on_string_part(json::string_view s, std::size_t, json::error_code&) { return string_piece(s); }
  bool on_string(json::string_view s, std::size_t, json::error_code&) { return string_piece(s); }
  bool on_key_part(json::string_view, std::size_t, json::error_code&) { return true; }
  bool on_key(json::string_view, std::size_t, json::error_code&) { return true; }
  bool on_number_part(json::string_view, json::error_code&) { return scalar(JsonKind::Number); }
  bool on_int64(std::int64_t, json::string_view, json::error_code&) { return scalar(JsonKind::Number); }
  bool on_uint64(std::uint64_t, json::string_view, json::error_code&) { return scalar(JsonKind::Number); }
  bool on_double(double, json::string_view, json::error_code&) { return scalar(JsonKind::Number); }
  bool on_bool(bool, json::error_code&) { return scalar(JsonKind::Bool); }
  bool on_null(json::error_code&) { return scalar(JsonKind::Null); }
  bool on_comment_part(json::string_view, json::error_code&) { return true; }
  bool on_comment(json::string_view, json::error_code&) { return true; }

  void start(ValueSink& s) {
    sink = &s;
    depth_ = 0;
  }

 private:
  bool open(JsonKind kind) {
    if (depth_++ == 0) sink->kind = kind;
    return true;
  }
  bool close() {
    --depth_;
    return true;
  }
  bool scalar(JsonKind kind) {
    if (depth_ == 0) sink->kind = kind;
    return true;
  }
  bool string_piece(json::string_view s) {
    if (depth_ == 0) {
      sink->kind = JsonKind::String;
      if (sink->text) sink->text->append(s.data(), s.size());
    }
    return true;
  }

  std::size_t depth_ = 0;
};

inline json::parse_options element_options() {
  json::parse_options options;
  options.max_depth = kMaxJsonDepth;
  return options;
}

inline bool is_json_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

class JsonCursor {
 public:
  explicit JsonCursor(std::string_view text) : text_(text), parser_(element_options()) {}

  void skip_space() {
    while (pos_ < text_.size() && is_json_space(text_[pos_])) ++pos_;
  }
  // Skips whitespace, then consumes `c` if it is next.
  bool take(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool at_end() {
    skip_space();
    return pos_ == text_.size();
  }
  std::size_t position() const { return pos_; }
  std::string_view since(std::size_t start) const { return text_.substr(start, pos_ - start); }

  // Reads one complete JSON value. On success `raw` (when given) is its exact text.
  bool value(ValueSink& sink, std::string_view* raw = nullptr) {
    skip_space();
    const std::size_t start = pos_;
    parser_.reset();
    parser_.handler().start(sink);
    json::error_code ec;
    const std::size_t used = parser_.write_some(true, text_.data() + pos_, text_.size() - pos_, ec);
    pos_ += used;
    if (ec || !parser_.done()) {
      problem_ = ec ? ec.message() : std::string("truncated");
      return false;
    }
    if (raw) {
      std::size_t end = pos_;  // Boost also eats the whitespace after the value
      while (end > start && is_json_space(text_[end - 1])) --end;
      *raw = text_.substr(start, end - start);
    }
    return true;
  }

  std::string error() const {
    std::string e = "invalid JSON at byte " + std::to_string(pos_);
    if (!problem_.empty()) e += " (" + problem_ + ")";
    return e;
  }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
  std::string problem_;
  json::basic_parser<SinkHandler> parser_;
};

enum class Read { Ok, BadJson, WrongType };

inline Read read_string(JsonCursor& in, std::string& field) {
  field.clear();
  ValueSink sink{JsonKind::Unknown, &field};
  if (!in.value(sink)) return Read::BadJson;
  return sink.kind == JsonKind::String ? Read::Ok : Read::WrongType;
}

inline Read read_nullable_string(JsonCursor& in, std::optional<std::string>& field) {
  if (field) {
    field->clear();
  } else {
    field.emplace();
  }
  ValueSink sink{JsonKind::Unknown, &*field};
  if (!in.value(sink)) return Read::BadJson;
  if (sink.kind == JsonKind::Null) field.reset();
  return sink.kind == JsonKind::String || sink.kind == JsonKind::Null ? Read::Ok : Read::WrongType;
}

inline Read read_any(JsonCursor& in, JsonKind& kind, std::string_view& raw) {
  ValueSink sink;
  if (!in.value(sink, &raw)) return Read::BadJson;
  kind = sink.kind;
  return Read::Ok;
}

inline Read skip_value(JsonCursor& in) {
  ValueSink sink;
  return in.value(sink) ? Read::Ok : Read::BadJson;
}

// The parts of a {"status": ..., "response": ...} reply payload found while reading it.
struct ReplyParts {
  std::string* status;
  bool has_status = false;
  std::string_view response;
  bool has_response = false;
};

// Reads the object at the cursor member by member, so a reply's status and response are found
// in the same pass that validates it. Duplicate keys: the last one wins, as in Jason.
inline Read read_reply_object(JsonCursor& in, ReplyParts& parts, std::string_view& raw) {
  in.skip_space();
  const std::size_t start = in.position();
  if (!in.take('{')) {
    JsonKind kind;
    std::string_view ignored;
    return read_any(in, kind, ignored) == Read::Ok ? Read::WrongType : Read::BadJson;
  }
  if (!in.take('}')) {
    std::string key;
    for (;;) {
      if (read_string(in, key) != Read::Ok || !in.take(':')) return Read::BadJson;
      if (key == "status") {
        const Read r = read_string(in, *parts.status);
        if (r == Read::BadJson) return r;
        parts.has_status = r == Read::Ok;
        if (!parts.has_status) parts.status->clear();
      } else if (key == "response") {
        JsonKind kind;
        if (read_any(in, kind, parts.response) != Read::Ok) return Read::BadJson;
        parts.has_response = true;
      } else if (skip_value(in) != Read::Ok) {
        return Read::BadJson;
      }
      if (in.take(',')) continue;
      if (in.take('}')) break;
      return Read::BadJson;
    }
  }
  raw = in.since(start);
  return Read::Ok;
}

inline void note_reply(Message& out, const ReplyParts& parts, std::string_view payload_raw) {
  if (!parts.has_response) return;
  out.response_offset = static_cast<std::size_t>(parts.response.data() - payload_raw.data());
  out.response_length = parts.response.size();
}

}  // namespace stampede::proto::phx::detail
