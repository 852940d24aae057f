#include "proto/http_request_parser.hpp"

#include <algorithm>
#include <optional>

#include "proto/http_beast_feeder.hpp"
#include "proto/http_text.hpp"

namespace stampede::proto {
namespace {

namespace http = boost::beast::http;
using boost::beast::error_code;
using namespace http_text;
using namespace http_beast;

constexpr std::string_view kBareLfInRequest = "bare LF in the request head (lines end with CRLF)";

// "HTTP/d.d": a version we could name but do not speak (505), not a malformed one (400).
bool is_other_http_version(std::string_view request_line) {
  const std::size_t sp1 = request_line.find(' ');
  const std::size_t sp2 = sp1 == std::string_view::npos ? sp1 : request_line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos) return false;
  const std::string_view version = request_line.substr(sp2 + 1);
  return version.size() == 8 && version.substr(0, 5) == "HTTP/" && version[6] == '.' && ascii::is_digit(version[5]) &&
         ascii::is_digit(version[7]);
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

struct HttpRequestParser::Impl : http_beast::Feeder<HttpRequestParser::Impl, true, HttpRequestParser::State> {
  // Beast's parser with our callbacks; a new one for every request (a few words, nothing
  // allocated), as Beast's parsers are good for one message.
  class Grammar final : public http::basic_parser<true> {
   public:
    explicit Grammar(Impl& impl) : impl_(impl) {}

   private:
    void on_request_impl(http::verb, boost::beast::string_view method, boost::beast::string_view target, int version,
                         error_code&) override {
      impl_.on_request_line(sv(method), sv(target), version);
    }
    void on_response_impl(int, boost::beast::string_view, int, error_code&) override {}
    void on_field_impl(http::field f, boost::beast::string_view name, boost::beast::string_view value,
                       error_code& ec) override {
      impl_.on_field(f, sv(name), sv(value), ec);
    }
    void on_header_impl(error_code& ec) override { impl_.on_header(ec); }
    void on_body_init_impl(const boost::optional<std::uint64_t>&, error_code&) override {}
    std::size_t on_body_impl(boost::beast::string_view body, error_code&) override { return impl_.on_body(sv(body)); }
    void on_chunk_header_impl(std::uint64_t size, boost::beast::string_view, error_code& ec) override {
      impl_.on_chunk_header(size, ec);
    }
    std::size_t on_chunk_body_impl(std::uint64_t remain, boost::beast::string_view body, error_code&) override {
      return impl_.on_chunk_body(remain, sv(body));
    }
    void on_finish_impl(error_code&) override { impl_.p->state_ = State::Done; }

    Impl& impl_;
  };

  HttpRequestParser* p = nullptr;  // the owner: set on every call, as the parser may have moved
  std::optional<Grammar> grammar;
  bool trailers = false;  // the framing line being read is the last chunk's: its trailers follow
  bool request_line_seen = false;
  bool content_length_seen = false;
  std::size_t transfer_codings = 0;
  bool transfer_coding_other = false;  // one that is not chunked
  // The previous request's header strings, kept for their capacity.
  std::vector<HttpHeader> spare_headers;
  std::size_t spare_used = 0;

  const HttpRequestLimits& limits() const { return p->limits_; }
  State state() const { return p->state_; }
  std::size_t max_head() const { return limits().max_head_bytes; }

  void begin() {
    grammar.emplace(*this);
    grammar->header_limit(header_limit(limits().max_head_bytes));
    grammar->body_limit(boost::none);  // ours, with the 413 and drop_large_bodies
    grammar->eager(false);             // stop after the head: feed_head stops there
    chunk_left = 0;
    trailers = false;
    chunks_seen = false;
    request_line_seen = false;
    content_length_seen = false;
    transfer_codings = 0;
    transfer_coding_other = false;
  }

  void reset() {
    clear_pending();
    recycle_headers();
    begin();
  }

  void recycle_headers() {
    auto& headers = p->request_.headers;
    if (headers.empty()) return;
    spare_headers.swap(headers);
    headers.clear();
    spare_used = 0;
  }

  void fail(int status, std::string reason) {
    p->state_ = State::Error;
    p->error_status_ = status;
    p->error_ = std::move(reason);
  }

  // Forgets what Beast made of a head that had not all arrived; it starts again once it has.
  void restart_head() {
    recycle_headers();
    p->request_.method.clear();
    p->request_.target.clear();
    p->request_.version_minor = 1;
    p->state_ = State::Head;
    p->error_.clear();
    p->error_status_ = 0;
    begin();
  }

  std::string head_too_large() const {
    return "request head larger than " + std::to_string(limits().max_head_bytes) + " bytes";
  }
  std::string body_too_large() const {
    return "request body larger than " + std::to_string(limits().max_body_bytes) + " bytes";
  }

  // ---- Beast's callbacks ----------------------------------------------------------------------

  void on_request_line(std::string_view method, std::string_view target, int version) {
    request_line_seen = true;
    p->request_.method.assign(method);
    p->request_.target.assign(target);
    p->request_.version_minor = version % 10;  // Beast reads only HTTP/1.0 and HTTP/1.1
  }

  void on_field(http::field f, std::string_view name, std::string_view value, error_code& ec) {
    if (grammar->is_header_done()) return;  // a trailer field: nothing uses them
    auto& headers = p->request_.headers;
    if (headers.size() >= limits().max_headers) {
      fail(431, "more than " + std::to_string(limits().max_headers) + " header fields");
      ec = stopped();
      return;
    }
    if (f == http::field::transfer_encoding) {
      for_each_list_element(value, [&](std::string_view coding) {
        ++transfer_codings;
        if (!iequals(coding, "chunked")) transfer_coding_other = true;
      });
    } else if (f == http::field::content_length) {
      content_length_seen = true;
    }
    HttpHeader& h =
        spare_used < spare_headers.size() ? headers.emplace_back(std::move(spare_headers[spare_used++])) : headers.emplace_back();
    h.name.resize(name.size());
    std::transform(name.begin(), name.end(), h.name.begin(), ascii_lower);
    h.value.assign(value);
  }

  void on_header(error_code& ec) {
    // Beast refused Transfer-Encoding with Content-Length already; only chunked, once, is read.
    if (transfer_codings > 0 && (transfer_codings != 1 || transfer_coding_other)) {
      fail(501, "unsupported Transfer-Encoding (only chunked)");
      ec = stopped();
      return;
    }
    if (grammar->is_done()) return;  // no body: on_finish follows
    p->state_ = State::Body;
    if (const auto length = grammar->content_length()) {
      if (*length > limits().max_body_bytes) {
        if (!limits().drop_large_bodies) {
          fail(413, body_too_large());
          ec = stopped();
          return;
        }
        p->drop_body_ = true;
      }
      if (!p->drop_body_) p->request_.body.reserve(static_cast<std::size_t>(*length));
    }
  }

  std::size_t on_body(std::string_view bytes) {
    if (!p->drop_body_) p->request_.body.append(bytes);
    return bytes.size();
  }

  void on_chunk_header(std::uint64_t size, error_code& ec) {
    if (size == 0) return;  // the last chunk
    const auto& body = p->request_.body;
    if (!p->drop_body_ && size > limits().max_body_bytes - std::min(body.size(), limits().max_body_bytes)) {
      if (!limits().drop_large_bodies) {
        fail(413, body_too_large());
        ec = stopped();
        return;
      }
      p->drop_body();
    }
    chunk_left = size;
    chunks_seen = true;
  }

  std::size_t on_chunk_body(std::uint64_t remain, std::string_view bytes) {
    chunk_left = remain - bytes.size();
    return on_body(bytes);
  }

  // ---- what the feeding (http_beast::Feeder) asks of the request ------------------------------

  // A request starts with its method: blank lines before it are skipped.
  bool start_head(std::string_view in, std::size_t& skipped) {
    if (p->started_) return true;
    // RFC 9112 2.2: a server should ignore blank lines received before the request line
    // (some clients send an extra CRLF after a POST body).
    while (skipped < in.size() && (in[skipped] == '\r' || in[skipped] == '\n')) ++skipped;
    if (skipped == in.size()) return false;
    p->started_ = true;
    // A request starts with its method, a token. Anything else is answered at once, not
    // after the head fills up or a timeout: a TLS ClientHello (0x16) sent to a plain port
    // would otherwise leave the client waiting for a handshake that never comes.
    if (!is_token_char(static_cast<unsigned char>(in[skipped]))) {
      fail(400, in[skipped] == '\x16' ? "a TLS handshake on a plain HTTP port (use http://, or serve TLS)"
                                       : "malformed method in the request line");
      return false;
    }
    return true;
  }

  void fail_bare_lf() { fail(400, std::string(kBareLfInRequest)); }
  void fail_head_too_large() { fail(431, head_too_large()); }

  void fail_head(const error_code& ec, std::string_view at) {
    using http::error;
    if (ec == error::header_limit) return fail(431, head_too_large());
    if (ec == error::bad_method) return fail(400, "malformed method in the request line");
    if (ec == error::bad_target) return fail(400, "malformed request target in the request line");
    if (ec == error::bad_version) {
      if (is_other_http_version(at.substr(0, at.find("\r\n")))) {
        return fail(505, "HTTP version not supported (only HTTP/1.0 and HTTP/1.1)");
      }
      return fail(400, "malformed HTTP version in the request line");
    }
    if (ec == error::need_more) {  // a line the end of the head cut short
      return fail(400, request_line_seen ? "malformed header field"
                                         : "malformed request line (expected METHOD TARGET HTTP/1.1)");
    }
    if (ec == error::bad_field) return fail(400, "malformed header field");
    if (ec == error::bad_value) return fail(400, "control character in a header value");
    if (ec == error::bad_line_ending) return fail(400, "bare CR in the request head");
    if (ec == error::multiple_content_length) return fail(400, "conflicting Content-Length headers");
    if (ec == error::bad_content_length || ec == error::bad_transfer_encoding) {
      // Both framings at once is the classic request-smuggling shape: Beast refuses it.
      if (ec == error::bad_content_length ? transfer_codings > 0 : content_length_seen) {
        return fail(400, "both Transfer-Encoding and Content-Length");
      }
      if (ec == error::bad_transfer_encoding) return fail(501, "unsupported Transfer-Encoding (only chunked)");
      return fail(400, "malformed Content-Length");
    }
    fail(400, "malformed request head (" + ec.message() + ")");
  }

  void fail_body(const error_code& ec) { fail(400, "malformed chunked body (" + ec.message() + ")"); }

  std::size_t framing_limit() const {
    return trailers ? std::max(limits().max_head_bytes, limits().max_chunk_line_bytes) : limits().max_chunk_line_bytes;
  }

  bool refuse_long_framing_line(std::string_view window) {
    if (trailers) {
      fail(431, "trailers larger than " + std::to_string(framing_limit()) + " bytes");
      return true;
    }
    // A whole chunk-size line that Beast does not take is the last chunk's: trailers
    // follow, with the head's limit.
    std::string_view line = window;
    if (line.substr(0, 2) == "\r\n") line.remove_prefix(2);
    if (line.find("\r\n") == std::string_view::npos) {
      fail(400, "chunk size line longer than " + std::to_string(framing_limit()) + " bytes");
      return true;
    }
    trailers = true;
    return false;
  }
};

HttpRequestParser::HttpRequestParser(HttpRequestLimits limits) : limits_(limits), impl_(std::make_unique<Impl>()) {
  impl_->p = this;
  impl_->begin();
}
HttpRequestParser::~HttpRequestParser() = default;
HttpRequestParser::HttpRequestParser(HttpRequestParser&&) noexcept = default;
HttpRequestParser& HttpRequestParser::operator=(HttpRequestParser&&) noexcept = default;

void HttpRequestParser::reset() {
  if (!impl_) impl_ = std::make_unique<Impl>();  // a moved-from parser
  impl_->p = this;
  state_ = State::Head;
  started_ = false;
  drop_body_ = false;
  error_.clear();
  error_status_ = 0;
  request_.method.clear();
  request_.target.clear();
  request_.version_minor = 1;
  request_.body.clear();
  impl_->reset();
}

std::size_t HttpRequestParser::feed(std::string_view bytes) {
  if (!impl_) reset();
  impl_->p = this;
  return impl_->feed(bytes, /*stop=*/false);
}

std::size_t HttpRequestParser::feed_head(std::string_view bytes) {
  if (!impl_) reset();
  if (state_ != State::Head) return 0;
  impl_->p = this;
  return impl_->feed(bytes, /*stop=*/true);
}

void HttpRequestParser::drop_body() {
  drop_body_ = true;
  std::string().swap(request_.body);
}

}  // namespace stampede::proto
