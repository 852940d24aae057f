#include "proto/phoenix_message.hpp"

#include <boost/json/basic_parser_impl.hpp>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace stampede::proto::phx {
namespace {

namespace json = boost::json;

// Phoenix (Jason) has no nesting limit and Boost's default of 32 would reject real LiveView
// diffs, so allow far more; but Boost's parser recurses once per level, and this bound keeps
// a hostile frame from exhausting a worker thread's stack.
constexpr std::size_t kMaxJsonDepth = 256;

constexpr std::string_view kReplyEvent = "phx_reply";

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

json::parse_options element_options() {
  json::parse_options options;
  options.max_depth = kMaxJsonDepth;
  return options;
}

bool is_json_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

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

Read read_string(JsonCursor& in, std::string& field) {
  field.clear();
  ValueSink sink{JsonKind::Unknown, &field};
  if (!in.value(sink)) return Read::BadJson;
  return sink.kind == JsonKind::String ? Read::Ok : Read::WrongType;
}

Read read_nullable_string(JsonCursor& in, std::optional<std::string>& field) {
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

Read read_any(JsonCursor& in, JsonKind& kind, std::string_view& raw) {
  ValueSink sink;
  if (!in.value(sink, &raw)) return Read::BadJson;
  kind = sink.kind;
  return Read::Ok;
}

Read skip_value(JsonCursor& in) {
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
Read read_reply_object(JsonCursor& in, ReplyParts& parts, std::string_view& raw) {
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

void note_reply(Message& out, const ReplyParts& parts, std::string_view payload_raw) {
  if (!parts.has_response) return;
  out.response_offset = static_cast<std::size_t>(parts.response.data() - payload_raw.data());
  out.response_length = parts.response.size();
}

// ---------------------------------------------------------------------------------------
// Decoders

std::string v2_count_error(std::size_t count) {
  return "a V2 frame is [join_ref, ref, topic, event, payload]: this one has " + std::to_string(count) +
         (count == 1 ? " element" : " elements");
}

// After element number `count`, a comma must follow (the five fields are not all read yet).
std::string expect_more(JsonCursor& in, std::size_t count) {
  if (in.take(',')) return {};
  if (in.take(']')) return v2_count_error(count);
  return in.error();
}

std::string decode_v2_text(std::string_view frame, Direction direction, Message& out) {
  JsonCursor in(frame);
  if (!in.take('[')) return "a V2 text frame must be a JSON array [join_ref, ref, topic, event, payload]";
  if (in.take(']')) return v2_count_error(0);
  const auto field = [&](Read r, const char* what) -> std::string {
    if (r == Read::BadJson) return in.error();
    if (r == Read::WrongType) return std::string(what);
    return {};
  };
  std::string e;
  if (!(e = field(read_nullable_string(in, out.join_ref), "join_ref must be a string or null")).empty()) return e;
  if (!(e = expect_more(in, 1)).empty()) return e;
  if (!(e = field(read_nullable_string(in, out.ref), "ref must be a string or null")).empty()) return e;
  if (!(e = expect_more(in, 2)).empty()) return e;
  if (!(e = field(read_string(in, out.topic), "topic must be a string")).empty()) return e;
  if (!(e = expect_more(in, 3)).empty()) return e;
  if (!(e = field(read_string(in, out.event), "event must be a string")).empty()) return e;
  if (!(e = expect_more(in, 4)).empty()) return e;

  std::string_view payload;
  if (direction == Direction::ServerToClient) {
    // The server only sends objects. A reply is read member by member to find its status.
    ReplyParts parts{&out.status};
    const bool reply = out.event == kReplyEvent;
    const Read r = reply ? read_reply_object(in, parts, payload) : [&] {
      JsonKind kind = JsonKind::Unknown;
      const Read any = read_any(in, kind, payload);
      return any == Read::Ok && kind != JsonKind::Object ? Read::WrongType : any;
    }();
    if (!(e = field(r, "the payload of a server message must be a JSON object")).empty()) return e;
    if (reply) note_reply(out, parts, payload);
  } else {
    JsonKind kind;
    if (read_any(in, kind, payload) != Read::Ok) return in.error();
  }
  // Phoenix ignores elements after the fifth; they must still be JSON.
  while (!in.take(']')) {
    if (!in.take(',') || skip_value(in) != Read::Ok) return in.error();
  }
  if (!in.at_end()) return "text after the JSON array of a V2 frame";
  out.payload.assign(payload);
  return {};
}

std::string decode_v1_text(std::string_view frame, Direction direction, Message& out) {
  JsonCursor in(frame);
  if (!in.take('{')) return "a V1 text frame must be a JSON object {topic, event, payload, ref}";
  bool has_topic = false, has_event = false, has_payload = false, has_ref = false;
  JsonKind payload_kind = JsonKind::Unknown;
  std::string_view payload;
  out.join_ref.reset();
  const auto field = [&](Read r, const char* what) -> std::string {
    if (r == Read::BadJson) return in.error();
    if (r == Read::WrongType) return std::string(what);
    return {};
  };
  if (!in.take('}')) {
    std::string key;
    for (;;) {
      if (read_string(in, key) != Read::Ok || !in.take(':')) return in.error();
      std::string e;
      if (key == "topic") {
        e = field(read_string(in, out.topic), "topic must be a string");
        has_topic = true;
      } else if (key == "event") {
        e = field(read_string(in, out.event), "event must be a string");
        has_event = true;
      } else if (key == "payload") {
        e = field(read_any(in, payload_kind, payload), "");
        has_payload = true;
      } else if (key == "ref") {
        e = field(read_nullable_string(in, out.ref), "ref must be a string or null");
        has_ref = true;
      } else if (key == "join_ref" && direction == Direction::ClientToServer) {
        e = field(read_nullable_string(in, out.join_ref), "join_ref must be a string or null");
      } else {
        e = field(skip_value(in), "");
      }
      if (!e.empty()) return e;
      if (in.take(',')) continue;
      if (in.take('}')) break;
      return in.error();
    }
  }
  if (!in.at_end()) return "text after the JSON object of a V1 frame";
  for (const auto& [present, name] : {std::pair{has_topic, "topic"}, std::pair{has_event, "event"},
                                      std::pair{has_payload, "payload"}, std::pair{has_ref, "ref"}}) {
    if (!present) return std::string("a V1 message needs topic, event, payload and ref: ") + name + " is missing";
  }
  if (direction == Direction::ServerToClient && payload_kind != JsonKind::Object) {
    return "the payload of a server message must be a JSON object";
  }
  out.payload.assign(payload);
  if (direction == Direction::ServerToClient && out.event == kReplyEvent) {
    // Keys come in any order in V1, so the event is only known now: read the payload again
    // for the reply's status (V1 is the rare, old serializer; V2 does this in one pass).
    JsonCursor reply(out.payload);
    ReplyParts parts{&out.status};
    std::string_view raw;
    if (read_reply_object(reply, parts, raw) == Read::Ok) note_reply(out, parts, out.payload);
  }
  return {};
}

std::uint8_t byte_at(std::string_view s, std::size_t i) { return static_cast<std::uint8_t>(s[i]); }

// Takes the header strings of a binary frame in order; false when the frame is too short.
class BinaryReader {
 public:
  BinaryReader(std::string_view frame, std::size_t header_size) : frame_(frame), pos_(header_size) {}
  bool take(std::size_t length, std::string_view& out) {
    if (frame_.size() - pos_ < length) return false;
    out = frame_.substr(pos_, length);
    pos_ += length;
    return true;
  }
  std::string_view rest() const { return frame_.substr(pos_); }

 private:
  std::string_view frame_;
  std::size_t pos_;
};

std::string short_frame(std::uint8_t kind) {
  return "binary frame of kind " + std::to_string(kind) + " is shorter than its header says";
}

// The server writes a nil join_ref or ref as an empty field; give it back as null.
void assign_server_ref(std::optional<std::string>& field, std::string_view text) {
  if (text.empty()) {
    field.reset();
  } else {
    field.emplace(text);
  }
}

std::string decode_binary(std::string_view frame, Direction direction, Message& out) {
  if (frame.empty()) return "empty binary frame";
  const std::uint8_t kind = byte_at(frame, 0);
  out.binary = true;
  std::string_view join_ref, ref, topic, event, status;
  if (direction == Direction::ClientToServer) {
    if (kind != 0) return "binary frame of kind " + std::to_string(kind) + ": a client may only send kind 0 (push)";
    if (frame.size() < 5) return short_frame(kind);
    BinaryReader r(frame, 5);
    if (!r.take(byte_at(frame, 1), join_ref) || !r.take(byte_at(frame, 2), ref) || !r.take(byte_at(frame, 3), topic) ||
        !r.take(byte_at(frame, 4), event)) {
      return short_frame(kind);
    }
    out.join_ref.emplace(join_ref);  // an empty join_ref stays "" on the server (§2.3)
    out.ref.emplace(ref);
    out.topic.assign(topic);
    out.event.assign(event);
    out.payload.assign(r.rest());
    return {};
  }
  switch (kind) {
    case 0: {  // push: no ref
      if (frame.size() < 4) return short_frame(kind);
      BinaryReader r(frame, 4);
      if (!r.take(byte_at(frame, 1), join_ref) || !r.take(byte_at(frame, 2), topic) || !r.take(byte_at(frame, 3), event)) {
        return short_frame(kind);
      }
      out.payload.assign(r.rest());
      break;
    }
    case 1: {  // reply
      if (frame.size() < 5) return short_frame(kind);
      BinaryReader r(frame, 5);
      if (!r.take(byte_at(frame, 1), join_ref) || !r.take(byte_at(frame, 2), ref) || !r.take(byte_at(frame, 3), topic) ||
          !r.take(byte_at(frame, 4), status)) {
        return short_frame(kind);
      }
      event = kReplyEvent;
      out.payload.assign(r.rest());
      break;
    }
    case 2: {  // broadcast: neither join_ref nor ref
      if (frame.size() < 3) return short_frame(kind);
      BinaryReader r(frame, 3);
      if (!r.take(byte_at(frame, 1), topic) || !r.take(byte_at(frame, 2), event)) return short_frame(kind);
      out.payload.assign(r.rest());
      break;
    }
    default:
      return "unknown binary frame kind " + std::to_string(kind);
  }
  assign_server_ref(out.join_ref, join_ref);
  assign_server_ref(out.ref, ref);
  out.topic.assign(topic);
  out.event.assign(event);
  out.status.assign(status);
  return {};
}

// ---------------------------------------------------------------------------------------
// Encoders

// Length of the valid UTF-8 sequence that starts at s[i] (Unicode table 3-7: no overlongs,
// no surrogates, nothing above U+10FFFF), or 0 when it is not valid.
std::size_t utf8_sequence_length(std::string_view s, std::size_t i) {
  const auto at = [&](std::size_t k) -> unsigned { return i + k < s.size() ? byte_at(s, i + k) : 0u; };
  const auto continuation = [](unsigned b) { return (b & 0xC0u) == 0x80u; };
  const unsigned b0 = byte_at(s, i);
  if (b0 < 0x80) return 1;
  if (b0 >= 0xC2 && b0 <= 0xDF) return continuation(at(1)) ? 2 : 0;
  if (b0 >= 0xE0 && b0 <= 0xEF) {
    const unsigned lo = b0 == 0xE0 ? 0xA0 : 0x80, hi = b0 == 0xED ? 0x9F : 0xBF;
    return at(1) >= lo && at(1) <= hi && continuation(at(2)) ? 3 : 0;
  }
  if (b0 >= 0xF0 && b0 <= 0xF4) {
    const unsigned lo = b0 == 0xF0 ? 0x90 : 0x80, hi = b0 == 0xF4 ? 0x8F : 0xBF;
    return at(1) >= lo && at(1) <= hi && continuation(at(2)) && continuation(at(3)) ? 4 : 0;
  }
  return 0;
}

void append_escape(std::string& out, unsigned char b) {
  switch (b) {
    case '"': out += "\\\""; return;
    case '\\': out += "\\\\"; return;
    case '\n': out += "\\n"; return;
    case '\r': out += "\\r"; return;
    case '\t': out += "\\t"; return;
    case '\b': out += "\\b"; return;
    case '\f': out += "\\f"; return;
    default: {
      static constexpr char kHex[] = "0123456789abcdef";
      const char escaped[] = {'\\', 'u', '0', '0', kHex[b >> 4], kHex[b & 0xF]};
      out.append(escaped, sizeof escaped);
    }
  }
}

// Appends `s` as a JSON string literal. Runs of plain bytes are copied in one go.
void append_json_string(std::string& out, std::string_view s, const char* what) {
  out.push_back('"');
  std::size_t run = 0;
  for (std::size_t i = 0; i < s.size();) {
    const std::uint8_t b = byte_at(s, i);
    if (b >= 0x20 && b < 0x80 && b != '"' && b != '\\') {
      ++i;
    } else if (b >= 0x80) {
      const std::size_t n = utf8_sequence_length(s, i);
      if (n == 0) throw std::invalid_argument(std::string(what) + " is not valid UTF-8");
      i += n;
    } else {
      out.append(s.data() + run, i - run);
      append_escape(out, b);
      run = ++i;
    }
  }
  out.append(s.data() + run, s.size() - run);
  out.push_back('"');
}

void append_nullable(std::string& out, const std::optional<std::string_view>& s, const char* what) {
  if (s) {
    append_json_string(out, *s, what);
  } else {
    out += "null";
  }
}

// Payloads are spliced in unparsed (the hot path); catch only what is cheap to catch.
void check_text_payload(std::string_view payload, Direction direction) {
  std::size_t i = 0;
  while (i < payload.size() && is_json_space(payload[i])) ++i;
  if (i == payload.size()) throw std::invalid_argument("a text frame's payload must be JSON text, not empty");
  if (direction == Direction::ServerToClient && payload[i] != '{') {
    throw std::invalid_argument("a server message's payload must be a JSON object");
  }
}

void encode_v2_text(const MessageView& m, std::string& out) {
  out.reserve(m.payload.size() + m.topic.size() + m.event.size() + 32);
  out.push_back('[');
  append_nullable(out, m.join_ref, "join_ref");
  out.push_back(',');
  append_nullable(out, m.ref, "ref");
  out.push_back(',');
  append_json_string(out, m.topic, "topic");
  out.push_back(',');
  append_json_string(out, m.event, "event");
  out.push_back(',');
  out.append(m.payload);
  out.push_back(']');
}

void encode_v1_text(const MessageView& m, Direction direction, std::string& out) {
  out.reserve(m.payload.size() + m.topic.size() + m.event.size() + 64);
  out += "{\"topic\":";
  append_json_string(out, m.topic, "topic");
  out += ",\"event\":";
  append_json_string(out, m.event, "event");
  out += ",\"payload\":";
  out.append(m.payload);
  out += ",\"ref\":";
  append_nullable(out, m.ref, "ref");
  // Phoenix never sends join_ref to a V1 client; a V1 client may send it.
  if (direction == Direction::ClientToServer && m.join_ref) {
    out += ",\"join_ref\":";
    append_json_string(out, *m.join_ref, "join_ref");
  }
  out.push_back('}');
}

char length_byte(std::string_view s, const char* what) {
  if (s.size() > 255) {
    throw std::invalid_argument(std::string(what) + " is " + std::to_string(s.size()) +
                                " bytes; a binary frame allows at most 255");
  }
  return static_cast<char>(static_cast<std::uint8_t>(s.size()));
}

void encode_binary(const MessageView& m, Direction direction, std::string& out) {
  const std::string_view join_ref = m.join_ref.value_or(std::string_view{});
  const std::string_view ref = m.ref.value_or(std::string_view{});
  if (direction == Direction::ClientToServer) {
    const char header[] = {0, length_byte(join_ref, "join_ref"), length_byte(ref, "ref"), length_byte(m.topic, "topic"),
                           length_byte(m.event, "event")};
    out.reserve(sizeof header + join_ref.size() + ref.size() + m.topic.size() + m.event.size() + m.payload.size());
    out.append(header, sizeof header);
    out.append(join_ref).append(ref).append(m.topic).append(m.event).append(m.payload);
    return;
  }
  if (m.event == kReplyEvent) {
    const char header[] = {1, length_byte(join_ref, "join_ref"), length_byte(ref, "ref"), length_byte(m.topic, "topic"),
                           length_byte(m.status, "status")};
    out.reserve(sizeof header + join_ref.size() + ref.size() + m.topic.size() + m.status.size() + m.payload.size());
    out.append(header, sizeof header);
    out.append(join_ref).append(ref).append(m.topic).append(m.status).append(m.payload);
    return;
  }
  if (m.ref) throw std::invalid_argument("a server's binary push or broadcast has no ref field");
  if (m.join_ref) {
    const char header[] = {0, length_byte(join_ref, "join_ref"), length_byte(m.topic, "topic"), length_byte(m.event, "event")};
    out.reserve(sizeof header + join_ref.size() + m.topic.size() + m.event.size() + m.payload.size());
    out.append(header, sizeof header);
    out.append(join_ref).append(m.topic).append(m.event).append(m.payload);
    return;
  }
  const char header[] = {2, length_byte(m.topic, "topic"), length_byte(m.event, "event")};
  out.reserve(sizeof header + m.topic.size() + m.event.size() + m.payload.size());
  out.append(header, sizeof header);
  out.append(m.topic).append(m.event).append(m.payload);
}

}  // namespace

MessageView view_of(const Message& message) noexcept {
  MessageView v;
  if (message.join_ref) v.join_ref = *message.join_ref;
  if (message.ref) v.ref = *message.ref;
  v.topic = message.topic;
  v.event = message.event;
  v.payload = message.payload;
  v.binary = message.binary;
  v.status = message.status;
  return v;
}

bool encode_into(const MessageView& message, Serializer serializer, Direction direction, std::string& out) {
  out.clear();
  if (message.binary) {
    if (serializer == Serializer::V1) throw std::invalid_argument("V1 (vsn=1.0.0) cannot carry a binary payload");
    encode_binary(message, direction, out);
    return true;
  }
  check_text_payload(message.payload, direction);
  if (serializer == Serializer::V1) {
    encode_v1_text(message, direction, out);
  } else {
    encode_v2_text(message, out);
  }
  return false;
}

Frame encode(const Message& message, Serializer serializer, Direction direction) {
  Frame frame;
  frame.binary_frame = encode_into(view_of(message), serializer, direction, frame.data);
  return frame;
}

std::string decode_into(std::string_view frame, bool binary_frame, Serializer serializer, Direction direction,
                        Message& out) {
  out.status.clear();
  out.response_offset = 0;
  out.response_length = 0;
  if (binary_frame) {
    if (serializer == Serializer::V1) return "V1 (vsn=1.0.0) has no binary frames";
    return decode_binary(frame, direction, out);
  }
  out.binary = false;
  return serializer == Serializer::V1 ? decode_v1_text(frame, direction, out) : decode_v2_text(frame, direction, out);
}

Decoded decode(std::string_view frame, bool binary_frame, Serializer serializer, Direction direction) {
  Message message;
  std::string error = decode_into(frame, binary_frame, serializer, direction, message);
  if (!error.empty()) return error;
  return message;
}

std::string_view reply_response(const Message& message) noexcept {
  if (message.event != kReplyEvent) return {};
  if (message.binary) return message.payload;
  if (message.response_offset + message.response_length > message.payload.size()) return {};
  return std::string_view(message.payload).substr(message.response_offset, message.response_length);
}

bool split_reply(std::string_view payload_json, std::string& status, std::string& response_json) {
  JsonCursor in(payload_json);
  std::string found_status;
  ReplyParts parts{&found_status};
  std::string_view raw;
  if (read_reply_object(in, parts, raw) != Read::Ok || !in.at_end()) return false;
  if (!parts.has_status || !parts.has_response) return false;
  status = std::move(found_status);
  response_json.assign(parts.response);
  return true;
}

std::string reply_payload(std::string_view status, std::string_view response_json) {
  check_text_payload(response_json, Direction::ClientToServer);
  std::string out;
  out.reserve(status.size() + response_json.size() + 28);
  out += "{\"status\":";
  append_json_string(out, status, "status");
  out += ",\"response\":";
  out.append(response_json);
  out.push_back('}');
  return out;
}

}  // namespace stampede::proto::phx
