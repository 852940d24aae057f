#include "proto/http_response_parser.hpp"

#include <algorithm>
#include <boost/beast/http/basic_parser.hpp>
#include <boost/beast/http/error.hpp>
#include <limits>
#include <optional>

#include "proto/body_inflater.hpp"
#include "proto/http_beast_feed.hpp"
#include "proto/http_beast_layer.hpp"
#include "proto/http_text.hpp"

// The tokenising, the framing (Content-Length, chunked, close-delimited, no body for HEAD,
// 1xx, 204 and 304) and the head limit are Boost.Beast's `http::basic_parser` (design 044).
// This file is the layer over it: Beast's callbacks write straight into the parser's own
// strings (design 031: a warm response allocates nothing), the body is decoded by
// `BodyInflater`, interim responses are skipped, and Beast's error codes become the reasons
// a user reads.

namespace stampede::proto {
namespace {

namespace http = boost::beast::http;
using namespace http_text;
using beast_layer::quoted_excerpt;

constexpr std::string_view kClosedEarly = "connection closed before the response was complete";
constexpr std::string_view kStatusPrefix = "HTTP/1.";

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
// Chunk-size lines are a few bytes; extensions are allowed but a megabyte of them is an attack.
constexpr std::size_t kMaxChunkLineBytes = 4 * 1024;

}  // namespace

const std::string* find_header(const std::vector<HttpHeader>& headers, std::string_view name) {
  for (const auto& h : headers) {
    if (iequals(h.name, name)) return &h.value;
  }
  return nullptr;
}

struct HttpResponseParser::Impl {
  // Beast's parser, one per message (it has no reset): its callbacks go to the Impl.
  class Beast final : public http::basic_parser<false> {
   public:
    explicit Beast(Impl& impl) : impl_(impl) {}

   private:
    void on_request_impl(http::verb, boost::beast::string_view, boost::beast::string_view, int,
                         boost::beast::error_code&) override {}
    void on_response_impl(int code, boost::beast::string_view reason, int version,
                          boost::beast::error_code& ec) override {
      impl_.on_status(code, {reason.data(), reason.size()}, version, ec);
    }
    void on_field_impl(http::field, boost::beast::string_view name, boost::beast::string_view value,
                       boost::beast::error_code& ec) override {
      impl_.on_field({name.data(), name.size()}, {value.data(), value.size()}, ec);
    }
    void on_header_impl(boost::beast::error_code& ec) override { impl_.on_header(ec); }
    void on_body_init_impl(const boost::optional<std::uint64_t>&, boost::beast::error_code&) override {}
    std::size_t on_body_impl(boost::beast::string_view body, boost::beast::error_code& ec) override {
      if (!impl_.deliver({body.data(), body.size()})) ec = http::error::body_limit;
      return body.size();
    }
    void on_chunk_header_impl(std::uint64_t size, boost::beast::string_view extensions,
                              boost::beast::error_code& ec) override {
      impl_.on_chunk_header(size, {extensions.data(), extensions.size()}, ec);
    }
    std::size_t on_chunk_body_impl(std::uint64_t remain, boost::beast::string_view body,
                                   boost::beast::error_code& ec) override {
      if (!impl_.deliver({body.data(), body.size()})) ec = http::error::body_limit;
      if (remain == body.size()) impl_.feed_state.after_chunk_data = true;
      return body.size();
    }
    void on_finish_impl(boost::beast::error_code& ec) override { impl_.on_finish(ec); }

    Impl& impl_;
  };

  explicit Impl(HttpParserLimits l) : limits(l), feed_state({l.max_head_bytes, kMaxChunkLineBytes}) {}

  HttpParserLimits limits;
  HttpResponseParser* p = nullptr;  // set by every entry point: the parser may have moved
  std::optional<Beast> beast;
  beast_layer::Feed feed_state;
  bool head_request = false;
  bool status_seen = false;
  bool decoding = false;
  bool dropping = false;      // the body is framed, not kept (drop_body, drop_large_bodies)
  bool stop_at_head = false;  // inside feed_head()
  bool interim = false;       // feed_head() stopped after an interim head, which head_ holds
  bool interim_passed = false;  // feed() read an interim head: the next head follows
  bool in_trailers = false;
  std::size_t trailer_bytes = 0;
  bool upgraded = false;
  bool saw_transfer_encoding = false;
  int content_codings = 0;
  std::string_view content_coding;
  std::string pending_error;  // set by a callback that failed: the reason to report
  BodyInflater inflater;
  // The previous response's header strings, kept for their capacity: with them a steady
  // stream of similar responses parses without allocating.
  std::vector<HttpHeader> spare_headers;
  std::size_t spare_used = 0;

  // A new Beast parser for the next head (the response, or the one after an interim head).
  void start_message() {
    beast.emplace(*this);
    beast->eager(true);
    beast->header_limit(static_cast<std::uint32_t>(std::min<std::size_t>(limits.max_head_bytes, UINT32_MAX)));
    beast->body_limit(boost::none);  // ours: the decoded size, and drop_large_bodies
    if (head_request) beast->skip(true);
    feed_state.start();
    status_seen = false;
    in_trailers = false;
    trailer_bytes = 0;
    saw_transfer_encoding = false;
    content_codings = 0;
    content_coding = {};
  }

  void reset(bool head) {
    head_request = head;
    decoding = false;
    dropping = false;
    interim = false;
    interim_passed = false;
    inflater.release();
    upgraded = false;
    pending_error.clear();
    start_message();
  }

  void fail(std::string message) {
    if (!p->head_complete()) {
      // A head that failed is no head: how much of it Beast had read depends on how the
      // bytes were split, so none of it is shown.
      recycle_headers(p->head_.headers);
      p->head_.status = 0;
      p->head_.version_minor = 1;
      p->head_.reason.clear();
    }
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

  void forget_interim_head() {
    recycle_headers(p->head_.headers);
    p->head_.reason.clear();
    p->head_.status = 0;
  }

  // ---- Beast's callbacks ---------------------------------------------------------------------

  void on_status(int code, std::string_view reason, int version, boost::beast::error_code& ec) {
    if (code < 100) {  // Beast takes any three digits
      ec = http::error::bad_status;
      return;
    }
    status_seen = true;
    p->head_.version_minor = version % 10;
    p->head_.status = code;
    p->head_.reason.assign(trim_ows(reason));
  }

  void on_field(std::string_view name, std::string_view value, boost::beast::error_code& ec) {
    if (in_trailers) {
      // Trailer fields are read past, not kept: nothing downstream uses them. Beast bounds
      // no trailer section; ours is bounded like a head.
      trailer_bytes += name.size() + value.size() + 4;
      if (trailer_bytes > limits.max_head_bytes) {
        pending_error = "trailer section is longer than " + std::to_string(limits.max_head_bytes) + " bytes";
        ec = http::error::header_limit;
      }
      return;
    }
    HttpHeader& h = new_header(p->head_.headers);
    h.name.resize(name.size());
    std::transform(name.begin(), name.end(), h.name.begin(), ascii_lower);
    h.value.assign(value);
    if (h.name == "transfer-encoding") {
      saw_transfer_encoding = true;
      // Beast frames "X, chunked" as chunked and hands over X-coded bytes; we decode no
      // transfer coding but chunked, so anything else is refused (chunked last, once).
      bool chunked = false;
      bool unsupported = false;
      for_each_list_element(value, [&](std::string_view coding) {
        if (chunked) unsupported = true;
        if (iequals(coding, "chunked")) {
          chunked = true;
        } else if (!iequals(coding, "identity")) {
          unsupported = true;
        }
      });
      if (unsupported) {
        pending_error = "unsupported Transfer-Encoding " + quoted_excerpt(value);
        ec = http::error::bad_transfer_encoding;
      }
    } else if (h.name == "content-encoding") {
      const int before = content_codings;
      const auto coding = decodable_content_coding(value, content_codings);
      if (content_codings != before) content_coding = coding;
    }
  }

  void on_header(boost::beast::error_code& ec) {
    const int status = p->head_.status;
    if (status < 200 && status != 101) {
      // Interim response (100 Continue, 103 Early Hints): Beast ends the message here, and
      // the real one follows. feed_head() shows it to its caller first.
      if (stop_at_head) {
        interim = true;
      } else {
        interim_passed = true;
      }
      return;
    }
    p->state_ = State::Body;
    upgraded = status == 101;
    if (beast->is_done()) return;  // HEAD, 101, 204, 304, or a zero Content-Length
    // Only one coding we know is decoded; anything else (br, zstd, stacked codings) is handed
    // over as received, like curl without --compressed: the Content-Encoding header says so.
    decoding = content_codings == 1 && !content_coding.empty();
    if (decoding) inflater.start(content_coding);
    if (const auto length = beast->content_length(); length && !beast->chunked()) {
      if (*length > limits.max_body_bytes) {
        if (!limits.drop_large_bodies) {
          pending_error = too_large_body_message(limits.max_body_bytes);
          ec = http::error::body_limit;
          return;
        }
        start_dropping();
      }
      if (!dropping) p->body_.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(*length, kMaxBodyReserve)));
    }
  }

  void on_chunk_header(std::uint64_t size, std::string_view extensions, boost::beast::error_code& ec) {
    // Beast reports a bad trailer section from the last chunk's start, its CRLF included.
    if (size != 0) feed_state.after_chunk_data = false;
    if (extensions.find_first_of("\r\n") != std::string_view::npos) {  // inside a quoted string
      pending_error = "chunk size line not ended by CRLF";
      ec = http::error::bad_chunk_extension;
      return;
    }
    if (extensions.size() > kMaxChunkLineBytes) {
      pending_error = "chunk size line is longer than " + std::to_string(kMaxChunkLineBytes) + " bytes";
      ec = http::error::bad_chunk_extension;
      return;
    }
    if (size == 0) {
      in_trailers = true;
      return;
    }
    // A plain body's size is known here; a compressed one is checked as it is decoded.
    if (!decoding && !dropping && size > limits.max_body_bytes - p->body_.size()) {
      if (!limits.drop_large_bodies) {
        pending_error = too_large_body_message(limits.max_body_bytes);
        ec = http::error::body_limit;
        return;
      }
      start_dropping();
    }
  }

  void on_finish(boost::beast::error_code& ec) {
    if (p->state_ != State::Body) return;  // an interim head's end
    if (decoding && !dropping && !inflater.finish(pending_error) && !cannot_keep()) {
      ec = http::error::body_limit;
      return;
    }
    inflater.release();
    p->state_ = State::Done;
  }

  // ---- body ----------------------------------------------------------------------------------

  // From here on the body is framed, not kept (nor decoded).
  void start_dropping() {
    dropping = true;
    std::string().swap(p->body_);
    inflater.release();
  }

  // A body that cannot be kept: dropped with drop_large_bodies (its framing goes on), else
  // the response fails with pending_error.
  bool cannot_keep() {
    if (!limits.drop_large_bodies) return false;
    pending_error.clear();
    start_dropping();
    return true;
  }

  bool deliver(std::string_view bytes) {
    if (dropping) return true;
    if (decoding) {
      if (inflater.write(bytes, p->body_, limits.max_body_bytes, pending_error)) return true;
      return cannot_keep();
    }
    if (bytes.size() > limits.max_body_bytes - p->body_.size()) {
      pending_error = too_large_body_message(limits.max_body_bytes);
      return cannot_keep();
    }
    p->body_.append(bytes);
    return true;
  }

  // ---- feeding Beast -------------------------------------------------------------------------

  // Garbage is recognised from its first bytes rather than after 64 KB of waiting for an
  // empty line (Beast waits for 8 bytes, then for the whole status line). Looks at the first
  // bytes of a + b as one string and quotes them up to the first wrong one, so neither the
  // verdict nor the message depends on how bytes were split.
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

  // What a Beast error means to a user, from the bytes it stopped at (the start of the
  // line it could not parse).
  std::string describe(const boost::beast::error_code& ec, std::string_view at) const {
    if (!pending_error.empty()) return pending_error;
    if (ec == http::error::header_limit) return head_too_large_message();
    if (!p->head_complete()) {
      const std::string_view line = beast_layer::first_line(at);
      if (!status_seen) return "malformed status line " + quoted_excerpt(line);
      if (ec == http::error::bad_field) {
        if (!line.empty() && (line.front() == ' ' || line.front() == '\t'))
          return "header continuation line without a header before it: " + quoted_excerpt(line);
        return "malformed header line " + quoted_excerpt(line);
      }
      if (ec == http::error::bad_value || ec == http::error::bad_line_ending)
        return "invalid character in header " + quoted_excerpt(line);
      if (ec == http::error::bad_transfer_encoding || (ec == http::error::bad_content_length && saw_transfer_encoding))
        return "both Transfer-Encoding and Content-Length " + quoted_excerpt(line);
      if (ec == http::error::bad_content_length || ec == http::error::multiple_content_length)
        return "invalid Content-Length " + quoted_excerpt(beast_layer::field_value(line));
      return "malformed response head (" + ec.message() + ") at " + quoted_excerpt(line);
    }
    if (auto reason = beast_layer::broken_chunk_line_end(at, feed_state.after_chunk_data)) return std::string(*reason);
    if (in_trailers) return "malformed trailer section (" + ec.message() + ")";
    return beast_layer::describe_chunk_error(ec, at, feed_state.after_chunk_data);
  }

  // ---- the feed's hooks (beast_layer::Feed) -------------------------------------------------

  bool head_complete() const { return p->head_complete(); }

  void beast_failed(const boost::beast::error_code& ec, std::string_view at) { fail(describe(ec, at)); }

  void layer_failed(beast_layer::Failure why, std::string_view detail) {
    using beast_layer::Failure;
    switch (why) {
      case Failure::HeadTooLarge:
        p->state_ = State::Head;  // a head too large is no head, even if Beast read all of it
        fail(head_too_large_message());
        return;
      case Failure::HeadBareLf:
        fail("response head has a line ended by a bare LF instead of CRLF");
        return;
      case Failure::ChunkLineTooLong:
        fail("chunk size line is longer than " + std::to_string(kMaxChunkLineBytes) + " bytes");
        return;
      case Failure::TrailerTooLong:
        fail("trailer section is longer than " + std::to_string(limits.max_head_bytes) + " bytes");
        return;
      case Failure::ChunkLineEnd:
        fail(std::string(detail));
        return;
    }
  }

  std::size_t feed(std::string_view in) {
    if (interim) {  // feed_head() left an interim head for the caller: the next one comes now
      interim = false;
      forget_interim_head();
      start_message();
    }
    std::size_t used = 0;
    while (used < in.size() && (p->state_ == State::Head || p->state_ == State::Body)) {
      std::string_view rest = in.substr(used);
      if (!p->started_) {
        // Tolerates the stray CRLF some servers send after a body, as RFC 9112 2.2 suggests.
        std::size_t skipped = 0;
        while (skipped < rest.size() && (rest[skipped] == '\r' || rest[skipped] == '\n')) ++skipped;
        used += skipped;
        if (skipped == rest.size()) break;
        rest.remove_prefix(skipped);
        p->started_ = true;
      }
      const State before = p->state_;
      if (!status_seen) {
        if (auto mismatch = status_prefix_mismatch(feed_state.carry(), rest)) {
          fail(std::move(*mismatch));
          break;
        }
      }
      const std::size_t n = feed_state.put(*beast, *this, rest, stop_at_head);
      used += n;
      if (p->state_ == State::Error) break;
      if (interim_passed) {  // Beast ended an interim message: the final head follows
        interim_passed = false;
        forget_interim_head();
        start_message();
        continue;
      }
      if (stop_at_head && (p->state_ != State::Head || interim)) break;
      if (n == 0 && !beast->is_done() && p->state_ == before) break;  // cannot happen; guards a spin
    }
    return used;
  }
};

HttpResponseParser::HttpResponseParser(HttpParserLimits limits) : impl_(std::make_unique<Impl>(limits)) {
  impl_->p = this;
  impl_->reset(false);
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
  return impl_->feed(bytes);
}

std::size_t HttpResponseParser::feed_head(std::string_view bytes) {
  if (!impl_) reset();
  impl_->p = this;
  if (state_ != State::Head) return 0;
  impl_->stop_at_head = true;
  const std::size_t used = impl_->feed(bytes);
  impl_->stop_at_head = false;
  return used;
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
  if (state_ == State::Body && impl_->beast->need_eof()) {
    boost::beast::error_code ec;
    impl_->beast->put_eof(ec);  // a close-delimited body ends here
    if (ec) impl_->fail(impl_->describe(ec, {}));
  } else if (state_ == State::Head || state_ == State::Body) {
    impl_->fail(std::string(kClosedEarly));
  }
}

bool HttpResponseParser::keep_alive() const {
  if (!impl_ || !head_complete() || impl_->upgraded) return false;
  return impl_->beast->keep_alive();
}

}  // namespace stampede::proto
