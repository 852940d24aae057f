// RFC 6455 frames. The reader is a two-stage state machine per frame (header, then payload)
// over the caller's bytes; see the header for when it copies and when it does not.
#include "proto/websocket_frame.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace stampede::proto::ws {

namespace {

bool is_control(Opcode opcode) { return (static_cast<std::uint8_t>(opcode) & 0x8) != 0; }

bool is_known(std::uint8_t opcode) {
  return opcode <= 0x2 || (opcode >= 0x8 && opcode <= 0xA);
}

const char* opcode_name(Opcode opcode) {
  switch (opcode) {
    case Opcode::Continuation: return "continuation";
    case Opcode::Text: return "text";
    case Opcode::Binary: return "binary";
    case Opcode::Close: return "close";
    case Opcode::Ping: return "ping";
    case Opcode::Pong: return "pong";
  }
  return "unknown";
}

std::string hex_byte(std::uint8_t value) {
  static constexpr char kHex[] = "0123456789abcdef";
  return std::string("0x") + kHex[value >> 4] + kHex[value & 0xf];
}

}  // namespace

bool is_valid_close_code(std::uint16_t code) {
  return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) || (code >= 3000 && code <= 4999);
}

void apply_mask(char* data, std::size_t size, std::uint32_t key, std::size_t offset) {
  const unsigned char key_bytes[4] = {static_cast<unsigned char>(key >> 24), static_cast<unsigned char>(key >> 16),
                                      static_cast<unsigned char>(key >> 8), static_cast<unsigned char>(key)};
  // The key repeats every 4 bytes, so an 8-byte pattern starting at the right key byte
  // masks any 8 consecutive bytes; memcpy keeps the word access free of alignment rules.
  unsigned char pattern[8];
  for (std::size_t i = 0; i < 8; ++i) pattern[i] = key_bytes[(offset + i) & 3];
  std::uint64_t word_mask = 0;
  std::memcpy(&word_mask, pattern, sizeof word_mask);
  std::size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    std::uint64_t word = 0;
    std::memcpy(&word, data + i, sizeof word);
    word ^= word_mask;
    std::memcpy(data + i, &word, sizeof word);
  }
  for (; i < size; ++i) data[i] = static_cast<char>(static_cast<unsigned char>(data[i]) ^ pattern[i & 7]);
}

void write_frame(std::string& out, Opcode opcode, std::string_view payload, bool fin,
                 std::optional<std::uint32_t> mask, bool rsv1) {
  if (is_control(opcode) && (!fin || payload.size() > kMaxControlPayload)) {
    throw std::invalid_argument(std::string("a ") + opcode_name(opcode) +
                                " frame must be unfragmented and carry at most 125 bytes");
  }
  unsigned char header[kMaxHeaderBytes];
  std::size_t n = 0;
  header[n++] = static_cast<unsigned char>((fin ? 0x80 : 0) | (rsv1 ? 0x40 : 0) | static_cast<std::uint8_t>(opcode));
  const unsigned char mask_bit = mask ? 0x80 : 0;
  const std::uint64_t size = payload.size();
  if (size < 126) {
    header[n++] = static_cast<unsigned char>(mask_bit | size);
  } else if (size <= 0xFFFF) {
    header[n++] = mask_bit | 126;
    header[n++] = static_cast<unsigned char>(size >> 8);
    header[n++] = static_cast<unsigned char>(size);
  } else {
    header[n++] = mask_bit | 127;
    for (int shift = 56; shift >= 0; shift -= 8) header[n++] = static_cast<unsigned char>(size >> shift);
  }
  if (mask) {
    for (int shift = 24; shift >= 0; shift -= 8) header[n++] = static_cast<unsigned char>(*mask >> shift);
  }
  out.append(reinterpret_cast<const char*>(header), n);
  const std::size_t start = out.size();
  out.append(payload);
  if (mask) apply_mask(out.data() + start, payload.size(), *mask);
}

std::string close_payload(std::uint16_t code, std::string_view reason) {
  if (code == close_code::kNoStatus) return {};
  constexpr std::size_t kMaxReason = kMaxControlPayload - 2;
  if (reason.size() > kMaxReason) {
    std::size_t cut = kMaxReason;
    // Back off to the start of the character the cut would split (continuation bytes are 10xxxxxx).
    while (cut > 0 && (static_cast<unsigned char>(reason[cut]) & 0xC0) == 0x80) --cut;
    reason = reason.substr(0, cut);
  }
  std::string out;
  out.reserve(2 + reason.size());
  out += static_cast<char>(code >> 8);
  out += static_cast<char>(code & 0xFF);
  out += reason;
  return out;
}

// ---------------------------------------------------------------------------------------
// UTF-8

bool Utf8Validator::feed(std::string_view bytes) {
  if (failed_) return false;
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  const auto* end = p + bytes.size();
  while (p < end) {
    if (needed_ == 0) {
      // Most text is ASCII: skip it a word at a time.
      while (end - p >= 8) {
        std::uint64_t word = 0;
        std::memcpy(&word, p, sizeof word);
        if ((word & 0x8080808080808080ULL) != 0) break;
        p += 8;
      }
      if (p == end) break;
      const unsigned char c = *p++;
      if (c < 0x80) continue;
      // The lead byte says how many continuation bytes follow and, for the edge cases,
      // narrows the next byte's range: E0 and F0 exclude overlong forms, ED excludes
      // UTF-16 surrogates, F4 stops at U+10FFFF. C0, C1 and F5..FF never appear.
      if (c >= 0xC2 && c <= 0xDF) {
        needed_ = 1;
      } else if (c == 0xE0) {
        needed_ = 2;
        lower_ = 0xA0;
      } else if (c == 0xED) {
        needed_ = 2;
        upper_ = 0x9F;
      } else if (c >= 0xE1 && c <= 0xEF) {
        needed_ = 2;
      } else if (c == 0xF0) {
        needed_ = 3;
        lower_ = 0x90;
      } else if (c >= 0xF1 && c <= 0xF3) {
        needed_ = 3;
      } else if (c == 0xF4) {
        needed_ = 3;
        upper_ = 0x8F;
      } else {
        failed_ = true;
        return false;
      }
    } else {
      const unsigned char c = *p++;
      if (c < lower_ || c > upper_) {
        failed_ = true;
        return false;
      }
      lower_ = 0x80;
      upper_ = 0xBF;
      --needed_;
    }
  }
  return true;
}

bool is_valid_utf8(std::string_view text) {
  Utf8Validator validator;
  return validator.feed(text) && validator.complete();
}

// ---------------------------------------------------------------------------------------
// Reader

WebSocketReader::WebSocketReader(Role role, ReaderLimits limits) : role_(role), limits_(limits) {}

void WebSocketReader::feed(std::string_view bytes) {
  if (stopped_ || bytes.empty()) return;
  if (input_.empty()) {
    input_ = bytes;
    return;
  }
  // The previous bytes are not used up yet: keep both, in a buffer of our own.
  std::string joined;
  joined.reserve(input_.size() + bytes.size());
  joined.append(input_).append(bytes);
  spill_.swap(joined);
  input_ = spill_;
}

std::size_t WebSocketReader::buffered() const {
  return header_size_ + control_size_ + (message_delivered_ ? 0 : message_.size()) + input_.size();
}

void WebSocketReader::shrink() {
  if (message_delivered_ || message_.empty()) {
    std::string().swap(message_);
    message_delivered_ = false;
  }
  if (input_.empty()) std::string().swap(spill_);
}

WsEvent WebSocketReader::fail(std::uint16_t code, std::string why) {
  stopped_ = true;
  input_ = {};
  WsEvent event;
  event.kind = WsEvent::Kind::Error;
  event.error_code = code;
  event.error = std::move(why);
  return event;
}

// Gathers the header (2 to 14 bytes) into header_, then checks it. Returns true once a
// complete, valid header is read; false with `event` left as NeedMore (input used up) or
// set to an Error.
bool WebSocketReader::read_header(WsEvent& event) {
  const auto gather = [this](std::size_t want) {
    const std::size_t n = std::min<std::size_t>(want - std::min<std::size_t>(want, header_size_), input_.size());
    if (n == 0) return header_size_ >= want;  // (an empty view may have no data pointer for memcpy)
    std::memcpy(header_.data() + header_size_, input_.data(), n);
    header_size_ = static_cast<std::uint8_t>(header_size_ + n);
    input_.remove_prefix(n);
    return header_size_ >= want;
  };
  if (!gather(2)) return false;
  const unsigned length_code = header_[1] & 0x7F;
  const bool masked = (header_[1] & 0x80) != 0;
  const std::size_t need = 2 + (length_code == 126 ? 2 : length_code == 127 ? 8 : 0) + (masked ? 4 : 0);
  if (!gather(need)) return false;

  fin_ = (header_[0] & 0x80) != 0;
  rsv1_ = (header_[0] & 0x40) != 0;
  std::size_t at = 2;
  if (length_code == 126) {
    payload_size_ = (std::uint64_t{header_[2]} << 8) | header_[3];
    at = 4;
  } else if (length_code == 127) {
    payload_size_ = 0;
    for (std::size_t i = 2; i < 10; ++i) payload_size_ = (payload_size_ << 8) | header_[i];
    at = 10;
  } else {
    payload_size_ = length_code;
  }
  mask_.reset();
  if (masked) {
    mask_ = (std::uint32_t{header_[at]} << 24) | (std::uint32_t{header_[at + 1]} << 16) |
            (std::uint32_t{header_[at + 2]} << 8) | std::uint32_t{header_[at + 3]};
  }
  return check_header(event);
}

bool WebSocketReader::check_header(WsEvent& event) {
  const std::uint8_t raw_opcode = header_[0] & 0x0F;
  if ((header_[0] & 0x30) != 0) {
    event = fail(close_code::kProtocolError, "a frame has RSV2 or RSV3 set, but no extension that uses them was negotiated");
    return false;
  }
  if (!is_known(raw_opcode)) {
    event = fail(close_code::kProtocolError, "a frame has the reserved opcode " + hex_byte(raw_opcode));
    return false;
  }
  opcode_ = static_cast<Opcode>(raw_opcode);
  if (role_ == Role::Server && !mask_) {
    event = fail(close_code::kProtocolError, "the client sent an unmasked frame (a client must mask every frame)");
    return false;
  }
  if (role_ == Role::Client && mask_) {
    event = fail(close_code::kProtocolError, "the server sent a masked frame (a server must not mask its frames)");
    return false;
  }
  if ((payload_size_ >> 63) != 0) {
    event = fail(close_code::kProtocolError, "a frame length has its most significant bit set");
    return false;
  }
  if (is_control(opcode_)) {
    if (!fin_) {
      event = fail(close_code::kProtocolError, std::string("a ") + opcode_name(opcode_) + " frame is fragmented");
      return false;
    }
    if (payload_size_ > kMaxControlPayload) {
      event = fail(close_code::kProtocolError, std::string("a ") + opcode_name(opcode_) + " frame carries " +
                                                   std::to_string(payload_size_) + " bytes (at most 125 are allowed)");
      return false;
    }
    if (rsv1_) {
      event = fail(close_code::kProtocolError, std::string("a ") + opcode_name(opcode_) + " frame has RSV1 set");
      return false;
    }
  } else {
    const bool continuation = opcode_ == Opcode::Continuation;
    if (continuation && !in_message_) {
      event = fail(close_code::kProtocolError, "a continuation frame arrived with no fragmented message to continue");
      return false;
    }
    if (!continuation && in_message_) {
      event = fail(close_code::kProtocolError,
                   "a new message started before the fragmented message in progress ended");
      return false;
    }
    if (rsv1_ && !limits_.allow_rsv1) {
      event = fail(close_code::kProtocolError, "a frame has RSV1 set, but permessage-deflate was not negotiated");
      return false;
    }
    if (rsv1_ && continuation) {
      event = fail(close_code::kProtocolError, "a continuation frame has RSV1 set (only a message's first frame may)");
      return false;
    }
    const std::size_t held = continuation ? message_.size() : 0;
    const std::size_t max = limits_.max_message_bytes;
    if (held > max || payload_size_ > max - held) {
      event = fail(close_code::kTooBig, "a message of at least " + std::to_string(held + payload_size_) +
                                            " bytes exceeds the limit of " + std::to_string(max) + " bytes");
      return false;
    }
    if (!continuation) {
      in_message_ = true;
      message_opcode_ = opcode_;
      message_compressed_ = rsv1_;
      utf8_.reset();
    }
  }
  in_payload_ = true;
  payload_read_ = 0;
  control_size_ = 0;
  return true;
}

WsEvent WebSocketReader::finish_control_frame(std::string_view payload) {
  WsEvent event;
  if (opcode_ == Opcode::Ping || opcode_ == Opcode::Pong) {
    event.kind = opcode_ == Opcode::Ping ? WsEvent::Kind::Ping : WsEvent::Kind::Pong;
    event.payload = payload;
    return event;
  }
  // Close.
  if (payload.size() == 1) {
    return fail(close_code::kProtocolError, "a close frame carries a 1-byte payload (a status code takes 2)");
  }
  event.kind = WsEvent::Kind::Close;
  if (payload.size() >= 2) {
    const auto code = static_cast<std::uint16_t>((static_cast<unsigned char>(payload[0]) << 8) |
                                                 static_cast<unsigned char>(payload[1]));
    if (!is_valid_close_code(code)) {
      return fail(close_code::kProtocolError, "a close frame carries the invalid status code " + std::to_string(code));
    }
    event.close_code = code;
    event.reason = payload.substr(2);
    if (!is_valid_utf8(event.reason)) {
      return fail(close_code::kInvalidPayload, "a close frame's reason is not valid UTF-8");
    }
  }
  stopped_ = true;  // nothing follows a close frame
  input_ = {};
  return event;
}

std::string WebSocketReader::take_payload(const WsEvent& message) {
  if (message_delivered_ && message.payload.data() == message_.data()) return std::move(message_);
  return std::string(message.payload);
}

WsEvent WebSocketReader::next() {
  if (message_delivered_) {
    message_.clear();
    message_delivered_ = false;
  }
  if (stopped_) {
    input_ = {};
    return {};
  }
  for (;;) {
    if (!in_payload_) {
      WsEvent event;
      if (!read_header(event)) return event;  // NeedMore (input used up) or Error
    }
    const std::uint64_t remaining = payload_size_ - payload_read_;
    const std::size_t available = static_cast<std::size_t>(std::min<std::uint64_t>(remaining, input_.size()));

    if (is_control(opcode_)) {
      std::string_view payload;
      if (available == remaining && control_size_ == 0 && !mask_) {
        payload = input_.substr(0, available);  // the whole frame is here: no copy
        input_.remove_prefix(available);
      } else {
        if (available > 0) {
          std::memcpy(control_.data() + control_size_, input_.data(), available);
          if (mask_) apply_mask(control_.data() + control_size_, available, *mask_, payload_read_);
        }
        control_size_ += available;
        payload_read_ += available;
        input_.remove_prefix(available);
        if (payload_read_ < payload_size_) return {};
        payload = std::string_view(control_.data(), control_size_);
      }
      in_payload_ = false;
      header_size_ = 0;
      control_size_ = 0;
      return finish_control_frame(payload);
    }

    // A frame that is a whole message and arrived whole is returned where it lies.
    const bool whole_message_here =
        fin_ && opcode_ != Opcode::Continuation && !mask_ && payload_read_ == 0 && available == remaining;
    std::string_view chunk;
    if (whole_message_here) {
      chunk = input_.substr(0, available);
    } else {
      const std::size_t start = message_.size();
      // The frame's size is known from its header: room for all of it at once, so a large
      // message is held once, not in a buffer grown by doubling (up to twice its size, and
      // three times while the last doubling copies).
      if (payload_read_ == 0 && message_.capacity() < start + payload_size_)
        message_.reserve(start + static_cast<std::size_t>(payload_size_));
      if (available > 0) message_.append(input_.data(), available);
      if (mask_) apply_mask(message_.data() + start, available, *mask_, payload_read_);
      chunk = std::string_view(message_).substr(start);
    }
    payload_read_ += available;
    input_.remove_prefix(available);
    const bool check_utf8 = message_opcode_ == Opcode::Text && !message_compressed_;
    if (check_utf8 && !utf8_.feed(chunk)) {
      return fail(close_code::kInvalidPayload, "a text message is not valid UTF-8");
    }
    if (payload_read_ < payload_size_) return {};
    in_payload_ = false;
    header_size_ = 0;
    if (!fin_) continue;  // the next fragment follows

    if (check_utf8 && !utf8_.complete()) {
      return fail(close_code::kInvalidPayload, "a text message ends inside a UTF-8 character");
    }
    in_message_ = false;
    WsEvent event;
    event.kind = WsEvent::Kind::Message;
    event.opcode = message_opcode_;
    event.compressed = message_compressed_;
    if (whole_message_here) {
      event.payload = chunk;
    } else {
      event.payload = message_;
      message_delivered_ = true;
    }
    return event;
  }
}

}  // namespace stampede::proto::ws
