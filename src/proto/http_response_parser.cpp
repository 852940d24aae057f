#include "proto/http_response_parser.hpp"

// The grammar is Boost.Beast's: `http::basic_parser<false>` does the status line, the fields,
// chunked framing (extensions, trailers) and the message's length. What is ours is a thin
// layer (docs/design/044): its callbacks write the status and headers into strings this
// parser reuses response after response (design 031), feed the body to proto/body_inflater,
// and keep the framing independent of how the bytes were cut (Beast asks to see bytes it did
// not consume again with more; this parser consumes everything it is given before the end).
#include <algorithm>
#include <optional>

#include "proto/body_inflater.hpp"
#include "proto/http_beast_feeder.hpp"
#include "proto/http_text.hpp"

namespace stampede::proto {
namespace {

namespace http = boost::beast::http;
using boost::beast::error_code;
using namespace http_text;
using namespace http_beast;

constexpr std::string_view kClosedEarly = "connection closed before the response was complete";
constexpr std::string_view kStatusPrefix = "HTTP/1.";
constexpr std::string_view kBareLfInResponse = "bare LF in the response head (HTTP/1.1 lines end with CRLF)";

// A lying Content-Length must not make an idle connection commit a huge buffer: up to this
// size the body is reserved in one go, beyond it the string grows geometrically as bytes arrive.
constexpr std::size_t kMaxBodyReserve = 16 * 1024 * 1024;
// A parser that once held a large body gives the memory back before the next response, so
// a connection waiting for its next request keeps no large buffer.
constexpr std::size_t kKeptBodyCapacity = 64 * 1024;
// Headers in a usual response head (servers send 4-10): reserved at once, not grown 1, 2, 4, 8.
constexpr std::size_t kUsualHeaderCount = 8;
// A response's headers given back for reuse are kept up to this many.
constexpr std::size_t kMaxReusedHeaders = 4 * kUsualHeaderCount;

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

// The line `at` starts with, without its CRLF.
std::string_view line_of(std::string_view at) { return at.substr(0, at.find("\r\n")); }

// The value of a header line, without the name and the white space around it.
std::string_view value_of(std::string_view line) {
  const std::size_t colon = line.find(':');
  return colon == std::string_view::npos ? line : trim_ows(line.substr(colon + 1));
}

// Garbage is recognised from its first bytes rather than after 64 KB of waiting for an end
// of head. Looks at the first bytes of a + b as one string and quotes them up to the first
// wrong one, so neither the verdict nor the message depends on how bytes were split.
std::optional<std::string> status_prefix_mismatch(std::string_view a, std::string_view b) {
  const auto at = [&](std::size_t i) { return i < a.size() ? a[i] : b[i - a.size()]; };
  for (std::size_t i = 0; i < kStatusPrefix.size() && i < a.size() + b.size(); ++i) {
    if (at(i) == kStatusPrefix[i]) continue;
    std::string seen;
    for (std::size_t j = 0; j <= i; ++j) seen += at(j);
    return "response does not start with an HTTP/1.x status line: it starts with " + quoted_excerpt(seen);
  }
  return std::nullopt;
}

}  // namespace

const std::string* find_header(const std::vector<HttpHeader>& headers, std::string_view name) {
  for (const auto& h : headers) {
    if (iequals(h.name, name)) return &h.value;
  }
  return nullptr;
}

struct HttpResponseParser::Impl : http_beast::Feeder<HttpResponseParser::Impl, false, HttpResponseParser::State> {
  using Feeder = http_beast::Feeder<Impl, false, State>;

  // Beast's parser with our callbacks. Beast's parsers are good for one message: a new one is
  // made for every head (a few words, nothing allocated).
  class Grammar final : public http::basic_parser<false> {
   public:
    explicit Grammar(Impl& impl) : impl_(impl) {}

   private:
    void on_request_impl(http::verb, boost::beast::string_view, boost::beast::string_view, int, error_code&) override {}
    void on_response_impl(int status, boost::beast::string_view reason, int version, error_code& ec) override {
      impl_.on_status(status, sv(reason), version, ec);
    }
    void on_field_impl(http::field f, boost::beast::string_view name, boost::beast::string_view value,
                       error_code& ec) override {
      impl_.on_field(f, sv(name), sv(value), ec);
    }
    void on_header_impl(error_code& ec) override { impl_.on_header(ec); }
    void on_body_init_impl(const boost::optional<std::uint64_t>&, error_code&) override {}
    std::size_t on_body_impl(boost::beast::string_view body, error_code& ec) override {
      return impl_.on_body(sv(body), ec);
    }
    void on_chunk_header_impl(std::uint64_t size, boost::beast::string_view, error_code& ec) override {
      impl_.on_chunk_header(size, ec);
    }
    std::size_t on_chunk_body_impl(std::uint64_t remain, boost::beast::string_view body, error_code& ec) override {
      return impl_.on_chunk_body(remain, sv(body), ec);
    }
    void on_finish_impl(error_code& ec) override { impl_.on_finish(ec); }

    Impl& impl_;
  };

  explicit Impl(HttpParserLimits l) : limits(l) {}

  HttpParserLimits limits;
  HttpResponseParser* p = nullptr;  // the owner: set on every call, as the parser may have moved
  std::optional<Grammar> grammar;
  bool head_request = false;
  bool interim = false;  // feed_head() stopped after an interim head, which head_ holds
  bool decoding = false;
  bool dropping = false;  // the body is framed, not kept (nor decoded)
  BodyInflater inflater;
  // Of the head being parsed:
  bool status_seen = false;
  bool interim_head = false;  // 1xx other than 101: the real response follows
  bool upgraded = false;
  bool content_length_seen = false;
  bool chunked_seen = false;
  bool transfer_coding_unsupported = false;
  int content_codings = 0;
  std::string_view content_coding;  // "gzip", "deflate" or empty
  // The previous response's header strings, kept for their capacity: with them a steady
  // stream of similar responses parses without allocating.
  std::vector<HttpHeader> spare_headers;
  std::size_t spare_used = 0;

  State state() const { return p->state_; }
  std::size_t max_head() const { return limits.max_head_bytes; }

  // A new Beast parser for the next head, and the layer's per-head state.
  void begin_head() {
    grammar.emplace(*this);
    grammar->header_limit(header_limit(limits.max_head_bytes));
    grammar->body_limit(boost::none);  // ours, on the decoded body (deliver)
    grammar->eager(false);             // stop after the head: its size is checked, feed_head stops there
    if (head_request) grammar->skip(true);
    status_seen = false;
    interim_head = false;
    upgraded = false;
    content_length_seen = false;
    chunked_seen = false;
    transfer_coding_unsupported = false;
    content_codings = 0;
    content_coding = {};
    chunk_left = 0;
    chunks_seen = false;
  }

  void reset(bool head) {
    head_request = head;
    clear_pending();
    decoding = false;
    dropping = false;
    interim = false;
    inflater.release();
    begin_head();
  }

  void fail(std::string message) {
    p->state_ = State::Error;
    p->error_ = std::move(message);
    inflater.release();
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

  // Forgets the head parsed so far (an interim one, or one Beast started on before all of it
  // had arrived) and starts a new one.
  void restart_head() {
    recycle_headers(p->head_.headers);
    p->head_.version_minor = 1;
    p->head_.status = 0;
    p->head_.reason.clear();
    p->state_ = State::Head;
    p->error_.clear();
    begin_head();
  }

  std::string head_too_large_message() const {
    return "response head is larger than the limit of " + std::to_string(limits.max_head_bytes) + " bytes";
  }

  // ---- Beast's callbacks ----------------------------------------------------------------------

  void on_status(int status, std::string_view reason, int version, error_code& ec) {
    status_seen = true;
    if (status < 100) {
      fail("malformed status line: status " + std::to_string(status));
      ec = stopped();
      return;
    }
    p->head_.version_minor = version % 10;  // Beast reads only HTTP/1.0 and HTTP/1.1
    p->head_.status = status;
    p->head_.reason.assign(reason);
  }

  void on_field(http::field f, std::string_view name, std::string_view value, error_code&) {
    if (grammar->is_header_done()) return;  // a trailer field: nothing downstream uses them
    if (f == http::field::transfer_encoding) {
      for_each_list_element(value, [&](std::string_view coding) {
        if (chunked_seen) transfer_coding_unsupported = true;  // chunked must be the last coding
        if (iequals(coding, "chunked")) {
          chunked_seen = true;
        } else if (!iequals(coding, "identity")) {
          transfer_coding_unsupported = true;
        }
      });
    } else if (f == http::field::content_length) {
      content_length_seen = true;
    } else if (f == http::field::content_encoding) {
      const int before = content_codings;
      const std::string_view coding = decodable_content_coding(value, content_codings);
      if (content_codings != before) content_coding = coding;
    }
    HttpHeader& h = new_header(p->head_.headers);
    h.name.resize(name.size());
    std::transform(name.begin(), name.end(), h.name.begin(), ascii_lower);
    h.value.assign(value);
  }

  void on_header(error_code& ec) {
    const int status = p->head_.status;
    if (status < 200 && status != 101) {
      // Interim response (100 Continue, 103 Early Hints): the real one follows. feed_head()
      // shows it to its caller first.
      interim_head = true;
      return;
    }
    upgraded = status == 101;
    // Beast ends these at the head (HEAD by skip(true)); on_finish completes them.
    if (head_request || upgraded || status == 204 || status == 304) return;
    if (transfer_coding_unsupported) {
      fail("unsupported Transfer-Encoding " + quoted_excerpt(*find_header(p->head_.headers, "transfer-encoding")));
      ec = stopped();
      return;
    }
    if (grammar->is_done()) return;  // Content-Length: 0
    // Only one coding we know is decoded; anything else (br, zstd, stacked codings) is handed
    // over as received, like curl without --compressed: the Content-Encoding header says so.
    decoding = content_codings == 1 && !content_coding.empty();
    if (decoding) inflater.start(content_coding);
    p->state_ = State::Body;
    if (const auto length = grammar->content_length()) {
      if (*length > limits.max_body_bytes) {
        if (!limits.drop_large_bodies) {
          fail(too_large_body_message(limits.max_body_bytes));
          ec = stopped();
          return;
        }
        start_dropping();
      }
      if (!dropping) p->body_.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(*length, kMaxBodyReserve)));
    }
  }

  std::size_t on_body(std::string_view bytes, error_code& ec) {
    if (!deliver(bytes)) ec = stopped();
    return bytes.size();
  }

  void on_chunk_header(std::uint64_t size, error_code& ec) {
    if (size == 0) return;  // the last chunk
    // A plain body's size is known here; a compressed one is checked as it is decoded.
    if (!decoding && !dropping && size > limits.max_body_bytes - p->body_.size()) {
      if (!limits.drop_large_bodies) {
        fail(too_large_body_message(limits.max_body_bytes));
        ec = stopped();
        return;
      }
      start_dropping();
    }
    chunk_left = size;
    chunks_seen = true;
  }

  std::size_t on_chunk_body(std::uint64_t remain, std::string_view bytes, error_code& ec) {
    chunk_left = remain - bytes.size();
    if (!deliver(bytes)) ec = stopped();
    return bytes.size();
  }

  void on_finish(error_code& ec) {
    if (interim_head) return;
    if (!complete()) ec = stopped();
  }

  // ---- body -----------------------------------------------------------------------------------

  // From here on the body is framed, not kept (nor decoded).
  void start_dropping() {
    dropping = true;
    std::string().swap(p->body_);
    inflater.release();
  }

  // A body that cannot be kept: dropped with drop_large_bodies (its framing goes on), else
  // the response fails (with the message already in error_).
  bool cannot_keep() {
    if (!limits.drop_large_bodies) {
      p->state_ = State::Error;
      inflater.release();
      return false;
    }
    p->error_.clear();
    start_dropping();
    return true;
  }

  bool complete() {
    if (decoding && !dropping && !inflater.finish(p->error_) && !cannot_keep()) return false;
    inflater.release();
    p->state_ = State::Done;
    return true;
  }

  bool deliver(std::string_view bytes) {
    if (dropping) return true;
    if (decoding) return inflater.write(bytes, p->body_, limits.max_body_bytes, p->error_) || cannot_keep();
    if (bytes.size() > limits.max_body_bytes - p->body_.size()) {
      p->error_ = too_large_body_message(limits.max_body_bytes);
      return cannot_keep();
    }
    p->body_.append(bytes);
    return true;
  }

  // ---- messages -------------------------------------------------------------------------------

  std::string head_error_message(const error_code& ec, std::string_view at) const {
    using http::error;
    if (ec == error::header_limit) return head_too_large_message();
    const std::string_view line = line_of(at);
    if (!status_seen) return "malformed status line " + quoted_excerpt(line);
    // need_more: a line the end of the head cut short
    if (ec == error::bad_field || ec == error::need_more) return "malformed header line " + quoted_excerpt(line);
    if (ec == error::bad_value || ec == error::bad_line_ending) return "invalid character in header " + quoted_excerpt(line);
    if (ec == error::bad_content_length || ec == error::multiple_content_length || ec == error::bad_transfer_encoding) {
      // Beast refuses both framings at once, the shape of response splitting (RFC 9112 6.3).
      if (chunked_seen || (content_length_seen && ec == error::bad_transfer_encoding)) {
        return "both Content-Length and Transfer-Encoding: chunked, at " + quoted_excerpt(line);
      }
      return std::string(ec == error::bad_transfer_encoding ? "invalid Transfer-Encoding " : "invalid Content-Length ") +
             quoted_excerpt(value_of(line));
    }
    return "invalid response head (" + ec.message() + ") at " + quoted_excerpt(line);
  }

  std::string body_error_message(const error_code& ec) const {
    using http::error;
    if (ec == error::bad_chunk) return "invalid chunk: a chunk size that is not hex or too large, or data not followed by CRLF";
    if (ec == error::bad_chunk_extension) return "invalid chunk extension";
    if (ec == error::bad_line_ending) return "invalid line ending in the chunked framing";
    if (ec == error::header_limit) return chunk_line_too_long_message();  // a folded trailer of 4 KiB
    if (ec == error::bad_field || ec == error::bad_value) return "invalid trailer section (" + ec.message() + ")";
    return "invalid chunked body (" + ec.message() + ")";
  }

  std::string chunk_line_too_long_message() const {
    return "chunk size line or trailer section is longer than the limit of " + std::to_string(limits.max_head_bytes) +
           " bytes";
  }

  // The head was read: an interim one is shown (feed_head) or passed over.
  void head_read() {
    if (!interim_head) return;
    if (stop_at_head) {
      interim = true;
    } else {
      restart_head();
    }
  }

  // ---- what the feeding (http_beast::Feeder) asks of the response -----------------------------

  // Tolerates the stray CRLF some servers send after a body, as RFC 9112 2.2 suggests.
  bool start_head(std::string_view in, std::size_t& skipped) {
    while (skipped < in.size() && (in[skipped] == '\r' || in[skipped] == '\n')) ++skipped;
    if (skipped == in.size()) return false;
    p->started_ = true;
    if (auto mismatch = status_prefix_mismatch(in.substr(skipped), {})) {
      fail(std::move(*mismatch));
      return false;
    }
    return true;
  }

  // A head that arrived in pieces is checked against the status line's prefix as they come.
  bool refuse_head_start(std::string_view more) {
    if (pending.size() >= kStatusPrefix.size()) return false;
    auto mismatch = status_prefix_mismatch(pending, more);
    if (mismatch) fail(std::move(*mismatch));
    return mismatch.has_value();
  }

  // A piece no longer than a head may be is read in one go, head and body (the usual
  // response: one call into Beast); from a longer one Beast takes the head first, so that
  // its size is checked, and run_body the rest.
  bool reads_body_with_head(std::string_view text) const { return !stop_at_head && text.size() <= max_head(); }

  void fail_bare_lf() { fail(std::string(kBareLfInResponse)); }
  void fail_head_too_large() { fail(head_too_large_message()); }
  void fail_head(const error_code& ec, std::string_view at) { fail(head_error_message(ec, at)); }
  void fail_body(const error_code& ec) { fail(body_error_message(ec)); }

  std::size_t framing_limit() const { return max_head(); }
  bool refuse_long_framing_line(std::string_view) {
    fail(chunk_line_too_long_message());
    return true;
  }

  // feed_head() stops after an interim head too.
  bool head_ended() const { return p->state_ != State::Head || interim; }

  std::size_t feed(std::string_view in, bool stop) {
    if (interim) {  // feed_head() left an interim head for the caller: the next one comes now
      interim = false;
      restart_head();
    }
    return Feeder::feed(in, stop);
  }
};

HttpResponseParser::HttpResponseParser(HttpParserLimits limits) : impl_(std::make_unique<Impl>(limits)) {
  impl_->p = this;
  impl_->begin_head();
}
HttpResponseParser::~HttpResponseParser() = default;
HttpResponseParser::HttpResponseParser(HttpResponseParser&&) noexcept = default;
HttpResponseParser& HttpResponseParser::operator=(HttpResponseParser&&) noexcept = default;

void HttpResponseParser::reset(bool head_request) {
  if (!impl_) impl_ = std::make_unique<Impl>(HttpParserLimits{});  // a moved-from parser
  impl_->p = this;
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
  impl_->p = this;
  return impl_->feed(bytes, /*stop=*/false);
}

std::size_t HttpResponseParser::feed_head(std::string_view bytes) {
  if (!impl_) reset();
  if (state_ != State::Head) return 0;
  impl_->p = this;
  return impl_->feed(bytes, /*stop=*/true);
}

bool HttpResponseParser::interim() const { return impl_ && impl_->interim; }

void HttpResponseParser::drop_body() {
  if (!impl_) reset();
  impl_->p = this;
  impl_->start_dropping();
}

bool HttpResponseParser::body_dropped() const { return impl_ && impl_->dropping; }

void HttpResponseParser::finish_eof() {
  if (!impl_) reset();
  impl_->p = this;
  if (state_ == State::Body && impl_->grammar->need_eof()) {
    // A body delimited by the close: Beast's put_eof() ends it (on_finish).
    boost::beast::error_code ec;
    impl_->grammar->put_eof(ec);
    if (ec && state_ != State::Error) impl_->fail(std::string(kClosedEarly));
  } else if (state_ == State::Head || state_ == State::Body) {
    impl_->fail(std::string(kClosedEarly));
  }
}

bool HttpResponseParser::keep_alive() const {
  if (!impl_ || !head_complete()) return false;
  return !impl_->upgraded && impl_->grammar->keep_alive();
}

}  // namespace stampede::proto
