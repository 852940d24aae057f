#include "proto/http_request_parser.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>

#include "proto/http_text.hpp"

namespace stampede::proto {
namespace {

using namespace http_text;

// Field values may hold visible ASCII, spaces, tabs and obs-text; no other control bytes.
bool is_field_value(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char ch) {
    const auto c = static_cast<unsigned char>(ch);
    return c == '\t' || (c >= 0x20 && c != 0x7f);
  });
}

// origin-form, absolute-form, authority-form and "*" are all visible ASCII without spaces.
bool is_request_target(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char ch) {
    const auto c = static_cast<unsigned char>(ch);
    return c > 0x20 && c < 0x7f;
  });
}

// A line without its LF and optional CR; a CR anywhere else is an error for the caller.
std::string_view strip_cr(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

}  // namespace

const std::string* HttpRequest::header(std::string_view lowercase_name) const {
  for (const auto& h : headers) {
    if (h.name == lowercase_name) return &h.value;
  }
  return nullptr;
}

bool HttpRequest::header_has_token(std::string_view lowercase_name, std::string_view token) const {
  bool found = false;
  for (const auto& h : headers) {
    if (h.name != lowercase_name) continue;
    for_each_list_element(h.value, [&](std::string_view element) {
      if (iequals(trim_ows(element.substr(0, element.find(';'))), token)) found = true;
    });
    if (found) return true;
  }
  return false;
}

bool HttpRequest::keep_alive() const {
  if (header_has_token("connection", "close")) return false;
  if (version_minor == 0) return header_has_token("connection", "keep-alive");
  return true;
}

bool HttpRequest::expects_continue() const {
  const auto* expect = header("expect");
  return version_minor >= 1 && expect != nullptr && iequals(*expect, "100-continue");
}

HttpRequestParser::HttpRequestParser(HttpRequestLimits limits) : limits_(limits) {}

void HttpRequestParser::reset() {
  state_ = State::Head;
  started_ = false;
  head_.clear();
  head_scanned_ = 0;
  framing_ = BodyFraming::None;
  drop_body_ = false;
  body_remaining_ = 0;
  chunk_phase_ = ChunkPhase::Size;
  line_.clear();
  trailer_bytes_ = 0;
  error_.clear();
  error_status_ = 0;
  request_.method.clear();
  request_.target.clear();
  request_.version_minor = 1;
  request_.headers.clear();
  request_.body.clear();
}

void HttpRequestParser::fail(int status, std::string reason) {
  state_ = State::Error;
  error_status_ = status;
  error_ = std::move(reason);
}

std::size_t HttpRequestParser::feed(std::string_view bytes) {
  std::size_t used = 0;
  while (used < bytes.size() && (state_ == State::Head || state_ == State::Body)) {
    const auto rest = bytes.substr(used);
    if (state_ == State::Head) {
      used += consume_head(rest);
    } else if (framing_ == BodyFraming::Length) {
      used += feed_length_body(rest);
    } else {
      used += feed_chunked_body(rest);
    }
  }
  return used;
}

std::size_t HttpRequestParser::feed_head(std::string_view bytes) {
  std::size_t used = 0;
  while (used < bytes.size() && state_ == State::Head) used += consume_head(bytes.substr(used));
  return used;
}

void HttpRequestParser::drop_body() {
  drop_body_ = true;
  std::string().swap(request_.body);
}

std::size_t HttpRequestParser::consume_head(std::string_view bytes) {
  std::size_t skipped = 0;
  if (!started_) {
    // RFC 9112 2.2: a server should ignore blank lines received before the request line
    // (some clients send an extra CRLF after a POST body).
    while (skipped < bytes.size() && (bytes[skipped] == '\r' || bytes[skipped] == '\n')) ++skipped;
    if (skipped == bytes.size()) return skipped;
    started_ = true;
    bytes.remove_prefix(skipped);
    // A request starts with its method, a token. Anything else is answered at once, not
    // after the head fills up or a timeout: a TLS ClientHello (0x16) sent to a plain port
    // would otherwise leave the client waiting for a handshake that never comes.
    if (!is_token(bytes.substr(0, 1))) {
      fail(400, bytes[0] == '\x16' ? "a TLS handshake on a plain HTTP port (use http://, or serve TLS)"
                                    : "malformed method in the request line");
      return skipped;
    }
  }

  if (head_.empty()) {
    // Fast path: the whole head is in this piece, parse it in place without copying.
    const auto end = find_head_end(bytes, 0);
    if (end != std::string_view::npos) {
      if (end > limits_.max_head_bytes) {
        fail(431, "request head larger than " + std::to_string(limits_.max_head_bytes) + " bytes");
        return skipped + end;
      }
      parse_head(bytes.substr(0, end));
      return skipped + end;
    }
  }

  const auto before = head_.size();
  const auto room = limits_.max_head_bytes - std::min(before, limits_.max_head_bytes);
  const auto take = std::min(bytes.size(), room);
  head_.append(bytes.data(), take);
  const auto end = find_head_end(head_, head_scanned_);
  if (end == std::string_view::npos) {
    if (head_.size() >= limits_.max_head_bytes) {
      fail(431, "request head larger than " + std::to_string(limits_.max_head_bytes) + " bytes");
      return skipped + take;
    }
    // The LF (and CR) ending the last line may be followed by the blank line next time.
    head_scanned_ = head_.size() >= 2 ? head_.size() - 2 : 0;
    return skipped + take;
  }
  head_.resize(end);
  parse_head(head_);
  return skipped + (end - before);
}

bool HttpRequestParser::parse_head(std::string_view head) {
  bool first = true;
  while (!head.empty()) {
    const auto lf = head.find('\n');  // the head always ends with one
    const auto line = strip_cr(head.substr(0, lf));
    head.remove_prefix(lf + 1);
    if (line.find('\r') != std::string_view::npos) {
      fail(400, "bare CR in the request head");
      return false;
    }
    if (first) {
      first = false;
      if (!parse_request_line(line)) return false;
      continue;
    }
    if (line.empty()) break;  // the blank line
    if (!parse_header_line(line)) return false;
  }
  return choose_body_framing();
}

bool HttpRequestParser::parse_request_line(std::string_view line) {
  const auto sp1 = line.find(' ');
  const auto sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos) {
    fail(400, "malformed request line (expected METHOD TARGET HTTP/1.1)");
    return false;
  }
  const auto method = line.substr(0, sp1);
  const auto target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  const auto version = line.substr(sp2 + 1);
  if (!is_token(method)) {
    fail(400, "malformed method in the request line");
    return false;
  }
  if (!is_request_target(target)) {
    fail(400, "malformed request target in the request line");
    return false;
  }
  if (version == "HTTP/1.1") {
    request_.version_minor = 1;
  } else if (version == "HTTP/1.0") {
    request_.version_minor = 0;
  } else if (version.size() == 8 && version.substr(0, 5) == "HTTP/" && version[6] == '.' &&
             std::isdigit(static_cast<unsigned char>(version[5])) &&
             std::isdigit(static_cast<unsigned char>(version[7]))) {
    fail(505, "HTTP version not supported (only HTTP/1.0 and HTTP/1.1)");
    return false;
  } else {
    fail(400, "malformed HTTP version in the request line");
    return false;
  }
  request_.method.assign(method);
  request_.target.assign(target);
  return true;
}

bool HttpRequestParser::parse_header_line(std::string_view line) {
  if (line.front() == ' ' || line.front() == '\t') {
    fail(400, "obsolete header line folding is not accepted");
    return false;
  }
  const auto colon = line.find(':');
  if (colon == std::string_view::npos || !is_token(line.substr(0, colon))) {
    fail(400, "malformed header field");
    return false;
  }
  const auto value = trim_ows(line.substr(colon + 1));
  if (!is_field_value(value)) {
    fail(400, "control character in a header value");
    return false;
  }
  if (request_.headers.size() >= limits_.max_headers) {
    fail(431, "more than " + std::to_string(limits_.max_headers) + " header fields");
    return false;
  }
  auto& header = request_.headers.emplace_back();
  header.name.resize(colon);
  std::transform(line.begin(), line.begin() + static_cast<std::ptrdiff_t>(colon), header.name.begin(), ascii_lower);
  header.value.assign(value);
  return true;
}

bool HttpRequestParser::choose_body_framing() {
  bool has_transfer_encoding = false;
  std::size_t codings = 0;
  bool chunked_only = true;
  bool has_length = false;
  std::uint64_t length = 0;
  for (const auto& h : request_.headers) {
    if (h.name == "transfer-encoding") {
      has_transfer_encoding = true;
      for_each_list_element(h.value, [&](std::string_view coding) {
        ++codings;
        if (!iequals(coding, "chunked")) chunked_only = false;
      });
    } else if (h.name == "content-length") {
      const auto& v = h.value;
      if (v.empty() || v.size() > 15 ||
          !std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        fail(400, "malformed Content-Length");
        return false;
      }
      const auto value = std::stoull(v);
      if (has_length && value != length) {
        fail(400, "conflicting Content-Length headers");
        return false;
      }
      has_length = true;
      length = value;
    }
  }

  if (has_transfer_encoding) {
    // Both framings at once is the classic request-smuggling shape: refuse it.
    if (has_length) {
      fail(400, "both Transfer-Encoding and Content-Length");
      return false;
    }
    if (codings != 1 || !chunked_only) {
      fail(501, "unsupported Transfer-Encoding (only chunked)");
      return false;
    }
    framing_ = BodyFraming::Chunked;
    chunk_phase_ = ChunkPhase::Size;
    state_ = State::Body;
    return true;
  }
  if (has_length && length > 0) {
    if (length > limits_.max_body_bytes) {
      if (!limits_.drop_large_bodies) {
        fail(413, "request body larger than " + std::to_string(limits_.max_body_bytes) + " bytes");
        return false;
      }
      drop_body_ = true;
    }
    framing_ = BodyFraming::Length;
    body_remaining_ = length;
    if (!drop_body_) request_.body.reserve(static_cast<std::size_t>(length));
    state_ = State::Body;
    return true;
  }
  framing_ = BodyFraming::None;
  state_ = State::Done;
  return true;
}

std::size_t HttpRequestParser::feed_length_body(std::string_view bytes) {
  const auto take = static_cast<std::size_t>(std::min<std::uint64_t>(bytes.size(), body_remaining_));
  if (!drop_body_) request_.body.append(bytes.data(), take);
  body_remaining_ -= take;
  if (body_remaining_ == 0) state_ = State::Done;
  return take;
}

std::size_t HttpRequestParser::take_line(std::string_view bytes, bool& complete) {
  const auto limit = chunk_phase_ == ChunkPhase::Trailers ? limits_.max_head_bytes : limits_.max_chunk_line_bytes;
  const auto lf = bytes.find('\n');
  complete = lf != std::string_view::npos;
  const auto take = complete ? lf : bytes.size();
  if (line_.size() + take > limit) {
    fail(chunk_phase_ == ChunkPhase::Trailers ? 431 : 400, "chunk line or trailer too long");
    return take;
  }
  line_.append(bytes.data(), take);
  if (complete && !line_.empty() && line_.back() == '\r') line_.pop_back();
  return complete ? take + 1 : take;
}

bool HttpRequestParser::parse_chunk_size_line() {
  std::string_view line = line_;
  std::uint64_t size = 0;
  std::size_t digits = 0;
  while (digits < line.size() && std::isxdigit(static_cast<unsigned char>(line[digits]))) {
    const char c = ascii_lower(line[digits]);
    size = size * 16 + static_cast<std::uint64_t>(c <= '9' ? c - '0' : c - 'a' + 10);
    if (++digits > 15) {
      fail(413, "chunk size too large");
      return false;
    }
  }
  const auto rest = trim_ows(line.substr(digits));
  // Chunk extensions (";name=value") carry nothing we use; they are skipped.
  if (digits == 0 || (!rest.empty() && rest.front() != ';') || line.find('\r') != std::string_view::npos) {
    fail(400, "malformed chunk size line");
    return false;
  }
  if (!drop_body_ &&
      size > limits_.max_body_bytes - std::min<std::uint64_t>(request_.body.size(), limits_.max_body_bytes)) {
    if (!limits_.drop_large_bodies) {
      fail(413, "request body larger than " + std::to_string(limits_.max_body_bytes) + " bytes");
      return false;
    }
    drop_body();
  }
  body_remaining_ = size;
  chunk_phase_ = size == 0 ? ChunkPhase::Trailers : ChunkPhase::Data;
  return true;
}

std::size_t HttpRequestParser::feed_chunked_body(std::string_view bytes) {
  std::size_t used = 0;
  while (used < bytes.size() && state_ == State::Body) {
    const auto rest = bytes.substr(used);
    bool complete = false;
    switch (chunk_phase_) {
      case ChunkPhase::Size:
        used += take_line(rest, complete);
        if (complete && state_ == State::Body) {
          if (!parse_chunk_size_line()) return used;
          line_.clear();
        }
        break;
      case ChunkPhase::Data: {
        const auto take = static_cast<std::size_t>(std::min<std::uint64_t>(rest.size(), body_remaining_));
        if (!drop_body_) request_.body.append(rest.data(), take);
        body_remaining_ -= take;
        used += take;
        if (body_remaining_ == 0) chunk_phase_ = ChunkPhase::DataEnd;
        break;
      }
      case ChunkPhase::DataEnd:
        used += take_line(rest, complete);
        if (complete && state_ == State::Body) {
          if (!line_.empty()) {
            fail(400, "chunk data longer than its size");
            return used;
          }
          chunk_phase_ = ChunkPhase::Size;
        }
        break;
      case ChunkPhase::Trailers:
        used += take_line(rest, complete);
        if (complete && state_ == State::Body) {
          if (line_.empty()) {
            state_ = State::Done;
            return used;
          }
          trailer_bytes_ += line_.size();
          if (trailer_bytes_ > limits_.max_head_bytes) {
            fail(431, "trailers larger than " + std::to_string(limits_.max_head_bytes) + " bytes");
            return used;
          }
          line_.clear();
        }
        break;
    }
  }
  return used;
}

}  // namespace stampede::proto
