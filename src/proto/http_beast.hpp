#pragma once
// What the HTTP/1.1 parsers (http_response_parser, http_request_parser) share around
// Boost.Beast's http::basic_parser, whose grammar both use (docs/design/044): a layer of our
// own callbacks over it writes into strings the parsers reuse message after message.
#include <boost/beast/http/basic_parser.hpp>
#include <boost/beast/http/error.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>

namespace stampede::proto::http_beast {

inline std::string_view sv(boost::beast::string_view s) { return {s.data(), s.size()}; }

// What a callback sets to stop Beast after it failed the message with a reason of its own.
inline boost::beast::error_code stopped() {
  return boost::system::errc::make_error_code(boost::system::errc::operation_canceled);
}

// The end of a head. Beast wants CRLF line ends.
inline constexpr std::string_view kHeadEnd = "\r\n\r\n";

// A head that arrived in pieces is buffered until it is whole; a buffer a huge one grew is
// not kept for the next message.
inline constexpr std::size_t kKeptHeadCapacity = 4 * 1024;

// Whether s[from, to) holds a LF without a CR before it (s[from - 1] is looked at). Beast
// refuses a head with one, but only once it sees the whole head, and a head whose lines end
// with LF alone never ends in CRLF CRLF: the parsers look for one as bytes arrive, so that
// such a head fails at once, and the same way however the bytes were cut.
inline bool has_bare_lf(std::string_view s, std::size_t from, std::size_t to) {
  while (from < to) {
    const void* hit = std::memchr(s.data() + from, '\n', to - from);
    if (hit == nullptr) return false;
    const auto lf = static_cast<std::size_t>(static_cast<const char*>(hit) - s.data());
    if (lf == 0 || s[lf - 1] != '\r') return true;
    from = lf + 1;
  }
  return false;
}

// Where the bytes of a head that has not been parsed yet may hold a bare LF: up to the end
// of the head if it is there (what follows is the body's), else all of them.
inline std::size_t head_region_end(std::string_view s, std::size_t head_end) {
  return head_end == std::string_view::npos ? s.size() : head_end + kHeadEnd.size();
}

// Boost 1.81's parser asserts that a last-chunk line it saw alone ("0\r\n" as the first chunk,
// the end of the trailer section still to come) is shown to it again with at least 5 bytes;
// with 4 the section could not end yet anyway. `shown` is how many bytes it was last shown;
// `after_data`: a chunk's data came before, so the line starts with that data's CRLF (and
// Beast reads it only with 4 bytes or more).
inline bool must_wait(std::size_t shown, std::string_view unconsumed, bool after_data) {
  return !after_data && shown == 3 && unconsumed.size() == 4 && unconsumed.substr(0, 3) == "0\r\n";
}

// A basic_parser that keeps nothing: framing_error_end's.
template <bool isRequest>
class NullGrammar final : public boost::beast::http::basic_parser<isRequest> {
  using sv_t = boost::beast::string_view;
  using ec_t = boost::beast::error_code;
  void on_request_impl(boost::beast::http::verb, sv_t, sv_t, int, ec_t&) override {}
  void on_response_impl(int, sv_t, int, ec_t&) override {}
  void on_field_impl(boost::beast::http::field, sv_t, sv_t, ec_t&) override {}
  void on_header_impl(ec_t&) override {}
  void on_body_init_impl(const boost::optional<std::uint64_t>&, ec_t&) override {}
  std::size_t on_body_impl(sv_t body, ec_t&) override { return body.size(); }
  void on_chunk_header_impl(std::uint64_t, sv_t, ec_t&) override {}
  std::size_t on_chunk_body_impl(std::uint64_t, sv_t body, ec_t&) override { return body.size(); }
  void on_finish_impl(ec_t&) override {}
};

// Beast refused a chunked body's framing at `rest` (the chunk-size line, the CRLF after a
// chunk's data, or the last chunk with its trailers, and what follows): how many bytes of it
// a parser fed one byte at a time would have taken when the refusal showed. A connection
// forwards what the parser took (the recording proxy does), so the parsers report that,
// whichever way the bytes came. Beast is brought to where it was (after a chunk's data or
// not) with a made-up head, then shown `rest` a byte more at a time. Only on a failure.
template <bool isRequest>
std::size_t framing_error_end(std::string_view rest, bool after_data) {
  NullGrammar<isRequest> g;
  g.eager(true);
  g.body_limit(boost::none);
  std::string start = isRequest ? "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
                                : "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
  if (after_data) start += "1\r\nx";
  boost::beast::error_code ec;
  g.put(boost::asio::const_buffer(start.data(), start.size()), ec);
  std::size_t used = 0;
  std::size_t shown = 0;
  for (std::size_t end = 1; end <= rest.size(); ++end) {
    const std::string_view unconsumed = rest.substr(used, end - used);
    if (must_wait(shown, unconsumed, after_data)) continue;
    const std::size_t n = g.put(boost::asio::const_buffer(unconsumed.data(), unconsumed.size()), ec);
    if (ec && ec != boost::beast::http::error::need_more) return end;
    used += n;
    shown = end - used;
    if (g.is_done()) return end;
  }
  return rest.size();
}

inline std::uint32_t header_limit(std::size_t max_head_bytes) {
  return static_cast<std::uint32_t>(std::min<std::size_t>(max_head_bytes, std::numeric_limits<std::uint32_t>::max()));
}

}  // namespace stampede::proto::http_beast
