#include "proto/http_response_parser.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <limits>
#include <optional>

#include "proto/ascii.hpp"
#include "proto/body_inflater.hpp"
#include "proto/http_text.hpp"

namespace stampede::proto {
namespace {

using namespace http_text;

constexpr std::string_view kClosedEarly = "connection closed before the response was complete";
constexpr std::string_view kStatusPrefix = "HTTP/1.";

// A lying Content-Length must not make an idle connection commit a huge buffer: up to this
// size the body is reserved in one go, beyond it the string grows geometrically as bytes arrive.
constexpr std::size_t kMaxBodyReserve = 16 * 1024 * 1024;
// A parser that once held a large body gives the memory back before the next response, so
// a connection waiting for its next request keeps no large buffer.
constexpr std::size_t kKeptBodyCapacity = 64 * 1024;
constexpr std::size_t kKeptHeadCapacity = 4 * 1024;
// Headers in a usual response head (servers send 4-10): reserved at once, not grown 1, 2, 4, 8.
constexpr std::size_t kUsualHeaderCount = 8;
// A response's headers given back for reuse are kept up to this many.
constexpr std::size_t kMaxReusedHeaders = 4 * kUsualHeaderCount;
// Chunk-size lines are a few bytes; extensions are allowed but a megabyte of them is an attack.
constexpr std::size_t kMaxChunkLineBytes = 4 * 1024;






// Quotes a piece of the peer's bytes for an error message: short, printable, one line.
std::string quoted_excerpt(std::string_view s) {
  constexpr std::size_t kMax = 60;
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size() && i < kMax; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '\r') {
      out += "\\r";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c < 0x20 || c == 0x7f || c == '"' || c == '\\') {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    } else {
      out += static_cast<char>(c);
    }
  }
  if (s.size() > kMax) out += "...";
  out += '"';
  return out;
}

bool has_forbidden_byte(std::string_view s) {
  // A CR left inside a line is a bare CR (lines are split at LF); with NUL it is the classic
  // way to make two parsers disagree about where a header ends.
  // (A plain loop: find_first_of with a set calls memchr once per byte.)
  for (const char c : s) {
    if (c == '\r' || c == '\0') return true;
  }
  return false;
}

std::optional<std::uint64_t> parse_decimal(std::string_view s) {
  if (s.empty()) return std::nullopt;
  std::uint64_t v = 0;
  for (const char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (v > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) return std::nullopt;
    v = v * 10 + digit;
  }
  return v;
}

using ascii::hex_value;

}  // namespace

const std::string* find_header(const std::vector<HttpHeader>& headers, std::string_view name) {
  for (const auto& h : headers) {
    if (iequals(h.name, name)) return &h.value;
  }
  return nullptr;
}

struct HttpResponseParser::Impl {
  enum class Framing { None, Length, Chunked, UntilClose };
  enum class Chunk { Size, Extension, SizeLF, Data, DataCR, DataLF, TrailerLineStart, TrailerLine, TrailerEndLF };

  explicit Impl(HttpParserLimits l) : limits(l) {}

  HttpParserLimits limits;
  bool head_request = false;
  std::string head_buf;  // used only when a head arrives in more than one piece
  Framing framing = Framing::None;
  std::uint64_t remaining = 0;  // Length: body bytes still to come; Chunked: of this chunk
  Chunk chunk = Chunk::Size;
  std::uint64_t chunk_size = 0;
  bool chunk_size_has_digit = false;
  std::size_t line_bytes = 0;  // of the current chunk-size line, or of the whole trailer section
  bool decoding = false;
  bool dropping = false;      // the body is framed, not kept (drop_body, drop_large_bodies)
  bool stop_at_head = false;  // inside feed_head()
  bool interim = false;       // feed_head() stopped after an interim head, which head_ holds
  BodyInflater inflater;
  bool upgraded = false;
  bool connection_close = false;
  bool connection_keep_alive = false;
  // The previous response's header strings, kept for their capacity: with them a steady
  // stream of similar responses parses without allocating.
  std::vector<HttpHeader> spare_headers;
  std::size_t spare_used = 0;

  void reset(bool head) {
    head_request = head;
    if (head_buf.capacity() > kKeptHeadCapacity) {
      std::string().swap(head_buf);
    } else {
      head_buf.clear();
    }
    framing = Framing::None;
    remaining = 0;
    chunk = Chunk::Size;
    chunk_size = 0;
    chunk_size_has_digit = false;
    line_bytes = 0;
    decoding = false;
    dropping = false;
    interim = false;
    inflater.release();
    upgraded = false;
    connection_close = false;
    connection_keep_alive = false;
  }

  void fail(HttpResponseParser& p, std::string message) {
    p.state_ = State::Error;
    p.error_ = std::move(message);
    inflater.release();
  }

  std::size_t feed(HttpResponseParser& p, std::string_view in) {
    if (interim) {  // feed_head() left an interim head for the caller: the next one comes now
      interim = false;
      recycle_headers(p.head_.headers);
      p.head_.reason.clear();
      p.head_.status = 0;
    }
    std::size_t used = 0;
    while (used < in.size() && (p.state_ == State::Head || p.state_ == State::Body)) {
      const State before = p.state_;
      const std::size_t n = before == State::Head ? feed_head(p, in.substr(used)) : feed_body(p, in.substr(used));
      used += n;
      if (stop_at_head && (p.state_ != State::Head || interim)) break;
      if (n == 0 && p.state_ == before) break;  // cannot happen; guards against a spin
    }
    return used;
  }

  // ---- head -------------------------------------------------------------------------------

  // Garbage is recognised from its first bytes rather than after 64 KB of waiting for an
  // empty line. Looks at the first bytes of a + b as one string and quotes them up to the
  // first wrong one, so neither the verdict nor the message depends on how bytes were split.
  static std::optional<std::string> status_prefix_mismatch(std::string_view a, std::string_view b) {
    const auto at = [&](std::size_t i) { return i < a.size() ? a[i] : b[i - a.size()]; };
    for (std::size_t i = 0; i < kStatusPrefix.size() && i < a.size() + b.size(); ++i) {
      if (at(i) == kStatusPrefix[i]) continue;
      std::string seen;
      for (std::size_t j = 0; j <= i; ++j) seen += at(j);
      return "response does not start with an HTTP/1.x status line: it starts with " + quoted_excerpt(seen);
    }
    return std::nullopt;
  }

  std::string head_too_large_message() const {
    return "response head is larger than the limit of " + std::to_string(limits.max_head_bytes) + " bytes";
  }

  std::size_t feed_head(HttpResponseParser& p, std::string_view in) {
    if (head_buf.empty()) {
      // Tolerates the stray CRLF some servers send after a body, as RFC 9112 2.2 suggests.
      std::size_t skipped = 0;
      while (skipped < in.size() && (in[skipped] == '\r' || in[skipped] == '\n')) ++skipped;
      const std::string_view text = in.substr(skipped);
      if (text.empty()) return skipped;
      p.started_ = true;
      if (auto mismatch = status_prefix_mismatch(text, {})) {
        fail(p, std::move(*mismatch));
        return skipped;
      }
      // Fast path: the whole head is in this piece, parse it where it lies.
      const std::size_t end = find_head_end(text, 0);
      if (end != std::string_view::npos && end <= limits.max_head_bytes) {
        on_head(p, text.substr(0, end));
        return skipped + end;
      }
      if (end != std::string_view::npos || text.size() >= limits.max_head_bytes) {
        fail(p, head_too_large_message());
        return skipped;
      }
      head_buf.assign(text);
      return in.size();
    }

    const std::size_t old = head_buf.size();
    if (auto mismatch = status_prefix_mismatch(head_buf, in)) {
      fail(p, std::move(*mismatch));
      return 0;
    }
    const std::size_t take = std::min(in.size(), limits.max_head_bytes - old);
    head_buf.append(in.data(), take);
    const std::size_t end = find_head_end(head_buf, old >= 2 ? old - 2 : 0);
    if (end != std::string_view::npos) {
      head_buf.resize(end);
      on_head(p, head_buf);
      head_buf.clear();
      return end - old;
    }
    if (head_buf.size() >= limits.max_head_bytes) fail(p, head_too_large_message());
    return take;
  }

  static bool parse_status_line(std::string_view line, HttpResponseHead& head, std::string& error) {
    const auto bad = [&] {
      error = "malformed status line " + quoted_excerpt(line);
      return false;
    };
    // "HTTP/1.x NNN[ reason]"; the prefix was checked already.
    if (line.size() < 12 || line[7] < '0' || line[7] > '9' || line[8] != ' ') return bad();
    int status = 0;
    for (std::size_t i = 9; i < 12; ++i) {
      if (line[i] < '0' || line[i] > '9') return bad();
      status = status * 10 + (line[i] - '0');
    }
    if (status < 100) return bad();
    if (line.size() > 12 && line[12] != ' ') return bad();
    if (has_forbidden_byte(line)) return bad();
    head.version_minor = line[7] - '0';
    head.status = status;
    head.reason.assign(line.size() > 12 ? trim_ows(line.substr(13)) : std::string_view{});
    return true;
  }

  void recycle_headers(std::vector<HttpHeader>& headers) {
    if (headers.empty()) return;
    spare_headers.swap(headers);
    headers.clear();
    spare_used = 0;
  }

  HttpHeader& new_header(std::vector<HttpHeader>& headers) {
    if (spare_used < spare_headers.size()) return headers.emplace_back(std::move(spare_headers[spare_used++]));
    return headers.emplace_back();
  }

  bool parse_header_line(std::string_view line, std::vector<HttpHeader>& headers, std::string& error) {
    if (line.front() == ' ' || line.front() == '\t') {
      // obs-fold (RFC 9112 5.2): a continuation of the previous value, joined with a space.
      if (headers.empty()) {
        error = "header continuation line without a header before it: " + quoted_excerpt(line);
        return false;
      }
      const std::string_view more = trim_ows(line);
      if (has_forbidden_byte(more)) {
        error = "invalid character in header " + quoted_excerpt(line);
        return false;
      }
      if (!more.empty()) {
        std::string& value = headers.back().value;
        if (!value.empty()) value += ' ';
        value.append(more);
      }
      return true;
    }
    const std::size_t colon = line.find(':');
    const std::string_view name = line.substr(0, colon);
    if (colon == std::string_view::npos || name.empty() ||
        !std::all_of(name.begin(), name.end(), [](char c) { return is_token_char(static_cast<unsigned char>(c)); })) {
      error = "malformed header line " + quoted_excerpt(line);
      return false;
    }
    const std::string_view value = trim_ows(line.substr(colon + 1));
    if (has_forbidden_byte(value)) {
      error = "invalid character in header " + quoted_excerpt(line);
      return false;
    }
    HttpHeader& h = new_header(headers);
    h.name.resize(name.size());
    std::transform(name.begin(), name.end(), h.name.begin(), ascii_lower);
    h.value.assign(value);
    return true;
  }

  bool parse_head(std::string_view text, HttpResponseHead& head, std::string& error) {
    recycle_headers(head.headers);
    std::size_t pos = 0;
    bool status_line = true;
    while (pos < text.size()) {
      const std::size_t nl = text.find('\n', pos);  // the head always ends with '\n'
      std::string_view line = text.substr(pos, nl - pos);
      pos = nl + 1;
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (status_line) {
        if (!parse_status_line(line, head, error)) return false;
        status_line = false;
        continue;
      }
      if (line.empty()) break;
      if (!parse_header_line(line, head.headers, error)) return false;
    }
    return true;
  }

  void on_head(HttpResponseParser& p, std::string_view text) {
    if (!parse_head(text, p.head_, p.error_)) {
      p.state_ = State::Error;
      return;
    }
    const int status = p.head_.status;
    if (status < 200 && status != 101) {
      // Interim response (100 Continue, 103 Early Hints): the real one follows. feed_head()
      // shows it to its caller first.
      if (stop_at_head) {
        interim = true;
        return;
      }
      recycle_headers(p.head_.headers);
      p.head_.reason.clear();
      p.head_.status = 0;
      return;
    }
    choose_framing(p);
  }

  void choose_framing(HttpResponseParser& p) {
    bool chunked = false;
    bool transfer_coding_unsupported = false;
    std::optional<std::uint64_t> content_length;
    bool content_length_bad = false;
    int content_codings = 0;
    std::string_view content_coding;
    for (const auto& h : p.head_.headers) {
      if (h.name == "connection") {
        for_each_list_element(h.value, [&](std::string_view token) {
          if (iequals(token, "close")) connection_close = true;
          if (iequals(token, "keep-alive")) connection_keep_alive = true;
        });
      } else if (h.name == "transfer-encoding") {
        for_each_list_element(h.value, [&](std::string_view coding) {
          if (chunked) transfer_coding_unsupported = true;  // chunked must be the last coding
          if (iequals(coding, "chunked")) {
            chunked = true;
          } else if (!iequals(coding, "identity")) {
            transfer_coding_unsupported = true;
          }
        });
      } else if (h.name == "content-length") {
        bool any = false;
        for_each_list_element(h.value, [&](std::string_view item) {
          any = true;
          const auto v = parse_decimal(item);
          if (!v || (content_length && *content_length != *v)) content_length_bad = true;
          if (v) content_length = v;
        });
        if (!any) content_length_bad = true;
      } else if (h.name == "content-encoding") {
        for_each_list_element(h.value, [&](std::string_view coding) {
          if (iequals(coding, "identity")) return;
          ++content_codings;
          if (iequals(coding, "gzip") || iequals(coding, "x-gzip")) {
            content_coding = "gzip";
          } else if (iequals(coding, "deflate")) {
            content_coding = "deflate";
          } else {
            content_coding = {};
          }
        });
      }
    }

    upgraded = p.head_.status == 101;
    if (head_request || upgraded || p.head_.status == 204 || p.head_.status == 304) {
      complete(p);
      return;
    }
    if (transfer_coding_unsupported) {
      fail(p, "unsupported Transfer-Encoding " + quoted_excerpt(*find_header(p.head_.headers, "transfer-encoding")));
      return;
    }
    // Transfer-Encoding overrides Content-Length (RFC 9112 6.3), so a bad length only matters
    // when it is the one that frames the body.
    if (!chunked && content_length_bad) {
      fail(p, "invalid Content-Length " + quoted_excerpt(*find_header(p.head_.headers, "content-length")));
      return;
    }
    // Only one coding we know is decoded; anything else (br, zstd, stacked codings) is handed
    // over as received, like curl without --compressed: the Content-Encoding header says so.
    decoding = content_codings == 1 && !content_coding.empty();
    if (decoding) inflater.start(content_coding);

    p.state_ = State::Body;
    if (chunked) {
      framing = Framing::Chunked;
      chunk = Chunk::Size;
    } else if (content_length) {
      if (*content_length > limits.max_body_bytes) {
        if (!limits.drop_large_bodies) {
          fail(p, too_large_body_message(limits.max_body_bytes));
          return;
        }
        start_dropping(p);
      }
      framing = Framing::Length;
      remaining = *content_length;
      if (!dropping) p.body_.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(remaining, kMaxBodyReserve)));
      if (remaining == 0) complete(p);
    } else {
      framing = Framing::UntilClose;
    }
  }

  // ---- body -------------------------------------------------------------------------------

  // From here on the body is framed, not kept (nor decoded).
  void start_dropping(HttpResponseParser& p) {
    dropping = true;
    std::string().swap(p.body_);
    inflater.release();
  }

  // A body that cannot be kept: dropped with drop_large_bodies (its framing goes on), else
  // the response fails.
  bool cannot_keep(HttpResponseParser& p) {
    if (!limits.drop_large_bodies) {
      p.state_ = State::Error;
      return false;
    }
    p.error_.clear();
    start_dropping(p);
    return true;
  }

  void complete(HttpResponseParser& p) {
    if (decoding && !dropping && !inflater.finish(p.error_) && !cannot_keep(p)) return;
    inflater.release();
    p.state_ = State::Done;
  }

  bool deliver(HttpResponseParser& p, std::string_view bytes) {
    if (dropping) return true;
    if (decoding) {
      if (inflater.write(bytes, p.body_, limits.max_body_bytes, p.error_)) return true;
      return cannot_keep(p);
    }
    if (bytes.size() > limits.max_body_bytes - p.body_.size()) {
      p.error_ = too_large_body_message(limits.max_body_bytes);
      return cannot_keep(p);
    }
    p.body_.append(bytes);
    return true;
  }

  std::size_t feed_body(HttpResponseParser& p, std::string_view in) {
    switch (framing) {
      case Framing::Length: {
        const auto take = static_cast<std::size_t>(std::min<std::uint64_t>(remaining, in.size()));
        if (!deliver(p, in.substr(0, take))) return take;
        remaining -= take;
        if (remaining == 0) complete(p);
        return take;
      }
      case Framing::UntilClose:
        deliver(p, in);
        return in.size();
      case Framing::Chunked:
        return feed_chunked(p, in);
      case Framing::None:
        break;
    }
    complete(p);
    return 0;
  }

  void end_chunk_size_line(HttpResponseParser& p) {
    line_bytes = 0;
    if (chunk_size == 0) {
      chunk = Chunk::TrailerLineStart;
      return;
    }
    // A plain body's size is known here; a compressed one is checked as it is decoded.
    if (!decoding && !dropping && chunk_size > limits.max_body_bytes - p.body_.size()) {
      if (!limits.drop_large_bodies) {
        fail(p, too_large_body_message(limits.max_body_bytes));
        return;
      }
      start_dropping(p);
    }
    remaining = chunk_size;
    chunk_size = 0;
    chunk_size_has_digit = false;
    chunk = Chunk::Data;
  }

  bool count_line_bytes(HttpResponseParser& p, std::size_t n, std::size_t limit, std::string_view what) {
    line_bytes += n;
    if (line_bytes <= limit) return true;
    fail(p, std::string(what) + " is longer than " + std::to_string(limit) + " bytes");
    return false;
  }

  std::size_t feed_chunked(HttpResponseParser& p, std::string_view in) {
    std::size_t i = 0;
    while (i < in.size() && p.state_ == State::Body) {
      const char c = in[i];
      switch (chunk) {
        case Chunk::Size: {
          const int digit = hex_value(c);
          if (digit >= 0) {
            if (chunk_size > (std::numeric_limits<std::uint64_t>::max() >> 4)) {
              fail(p, "chunk size is too large");
              return i;
            }
            chunk_size = (chunk_size << 4) | static_cast<std::uint64_t>(digit);
            chunk_size_has_digit = true;
            ++i;
            if (!count_line_bytes(p, 1, kMaxChunkLineBytes, "chunk size line")) return i;
            break;
          }
          if (!chunk_size_has_digit) {
            fail(p, "invalid chunk size: expected a hex digit, got " + quoted_excerpt(in.substr(i, 1)));
            return i;
          }
          ++i;
          if (c == ';' || c == ' ' || c == '\t') {
            chunk = Chunk::Extension;  // extensions carry nothing we use
            if (!count_line_bytes(p, 1, kMaxChunkLineBytes, "chunk size line")) return i;
          } else if (c == '\r') {
            chunk = Chunk::SizeLF;
          } else if (c == '\n') {
            end_chunk_size_line(p);
          } else {
            fail(p, "invalid character after chunk size: " + quoted_excerpt(in.substr(i - 1, 1)));
            return i;
          }
          break;
        }
        case Chunk::Extension: {
          const void* hit = std::memchr(in.data() + i, '\n', in.size() - i);
          const std::size_t end = hit ? static_cast<std::size_t>(static_cast<const char*>(hit) - in.data()) : in.size();
          if (!count_line_bytes(p, end - i, kMaxChunkLineBytes, "chunk size line")) return end;
          i = end;
          if (hit) {
            ++i;
            end_chunk_size_line(p);
          }
          break;
        }
        case Chunk::SizeLF:
          if (c != '\n') {
            fail(p, "chunk size line not ended by CRLF");
            return i;
          }
          ++i;
          end_chunk_size_line(p);
          break;
        case Chunk::Data: {
          const auto take = static_cast<std::size_t>(std::min<std::uint64_t>(remaining, in.size() - i));
          if (!deliver(p, in.substr(i, take))) return i + take;
          i += take;
          remaining -= take;
          if (remaining == 0) chunk = Chunk::DataCR;
          break;
        }
        case Chunk::DataCR:
        case Chunk::DataLF:
          if (c == '\n') {
            chunk = Chunk::Size;
          } else if (c == '\r' && chunk == Chunk::DataCR) {
            chunk = Chunk::DataLF;
          } else {
            fail(p, "chunk data not followed by CRLF");
            return i;
          }
          ++i;
          break;
        case Chunk::TrailerLineStart:
          if (c == '\r') {
            chunk = Chunk::TrailerEndLF;
            ++i;
          } else if (c == '\n') {
            ++i;
            complete(p);
          } else {
            chunk = Chunk::TrailerLine;
          }
          break;
        case Chunk::TrailerLine: {
          // Trailer fields are read past, not kept: nothing downstream uses them.
          const void* hit = std::memchr(in.data() + i, '\n', in.size() - i);
          const std::size_t end = hit ? static_cast<std::size_t>(static_cast<const char*>(hit) - in.data()) + 1 : in.size();
          if (!count_line_bytes(p, end - i, limits.max_head_bytes, "trailer section")) return end;
          i = end;
          if (hit) chunk = Chunk::TrailerLineStart;
          break;
        }
        case Chunk::TrailerEndLF:
          if (c != '\n') {
            fail(p, "trailer section not ended by CRLF");
            return i;
          }
          ++i;
          complete(p);
          break;
      }
    }
    return i;
  }
};

HttpResponseParser::HttpResponseParser(HttpParserLimits limits) : impl_(std::make_unique<Impl>(limits)) {}
HttpResponseParser::~HttpResponseParser() = default;
HttpResponseParser::HttpResponseParser(HttpResponseParser&&) noexcept = default;
HttpResponseParser& HttpResponseParser::operator=(HttpResponseParser&&) noexcept = default;

void HttpResponseParser::reset(bool head_request) {
  if (!impl_) impl_ = std::make_unique<Impl>(HttpParserLimits{});  // a moved-from parser
  state_ = State::Head;
  started_ = false;
  error_.clear();
  head_.version_minor = 1;
  head_.status = 0;
  head_.reason.clear();
  impl_->recycle_headers(head_.headers);
  // Taken by the last response (take_headers): room for a usual head in one allocation.
  if (head_.headers.capacity() == 0) head_.headers.reserve(kUsualHeaderCount);
  if (body_.capacity() > kKeptBodyCapacity) {
    std::string().swap(body_);
  } else {
    body_.clear();
  }
  impl_->reset(head_request);
}

void HttpResponseParser::reuse(std::vector<HttpHeader>&& headers, std::string&& body) {
  if (!impl_) reset();
  if (head_.headers.empty() && head_.headers.capacity() == 0 && !headers.empty() &&
      headers.size() <= kMaxReusedHeaders) {
    // Their strings become the spares the next head is parsed into; the spares' vector
    // (their moved-from husks) becomes the next head's.
    impl_->spare_headers.swap(headers);
    impl_->spare_used = 0;
    headers.clear();
    head_.headers = std::move(headers);
  }
  if (body_.empty() && body_.capacity() < body.capacity() && body.capacity() <= kKeptBodyCapacity) {
    body_ = std::move(body);
    body_.clear();
  }
}

std::size_t HttpResponseParser::feed(std::string_view bytes) {
  if (!impl_) reset();
  return impl_->feed(*this, bytes);
}

std::size_t HttpResponseParser::feed_head(std::string_view bytes) {
  if (!impl_) reset();
  if (state_ != State::Head) return 0;
  impl_->stop_at_head = true;
  const std::size_t used = impl_->feed(*this, bytes);
  impl_->stop_at_head = false;
  return used;
}

bool HttpResponseParser::interim() const { return impl_ && impl_->interim; }

void HttpResponseParser::drop_body() {
  if (!impl_) reset();
  impl_->start_dropping(*this);
}

bool HttpResponseParser::body_dropped() const { return impl_ && impl_->dropping; }

void HttpResponseParser::finish_eof() {
  if (!impl_) reset();
  if (state_ == State::Body && impl_->framing == Impl::Framing::UntilClose) {
    impl_->complete(*this);
  } else if (state_ == State::Head || state_ == State::Body) {
    impl_->fail(*this, std::string(kClosedEarly));
  }
}

bool HttpResponseParser::keep_alive() const {
  if (!impl_ || !head_complete()) return false;
  if (impl_->upgraded || impl_->framing == Impl::Framing::UntilClose || impl_->connection_close) return false;
  return head_.version_minor >= 1 || impl_->connection_keep_alive;
}

}  // namespace stampede::proto
