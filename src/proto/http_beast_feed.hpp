#pragma once
// Feeding Boost.Beast's `http::basic_parser` the way Stampede's HTTP/1.1 parsers are fed: a
// connection hands over whatever bytes arrived, and the parser takes all of them until the
// message ends (design 044). Beast parses only contiguous text and leaves what it cannot use
// yet with the caller; this keeps those bytes (`carry`: a head, chunk-size line or trailer
// section split across reads) and makes every verdict independent of how the bytes were
// split, which Beast alone does not (it checks lines eagerly until a head first comes in
// pieces, then waits for the head's end).
#include <boost/asio/buffer.hpp>
#include <boost/beast/http/error.hpp>
#include <cstdint>
#include <string>
#include <string_view>

#include "proto/http_beast_layer.hpp"

namespace stampede::proto::beast_layer {

// Why the layer, rather than Beast, refused the bytes.
enum class Failure {
  HeadTooLarge,      // the head outgrew its limit
  HeadBareLf,        // a head line ended by LF alone: Beast would wait for a CRLF CRLF
  ChunkLineTooLong,  // a chunk-size line (with its extensions) outgrew its limit
  TrailerTooLong,    // the trailer section outgrew the head limit
  ChunkLineEnd,      // a chunk's CRLF, size line or trailer section that can never end right
};

class Feed {
 public:
  struct Limits {
    std::size_t max_head_bytes;
    std::size_t max_chunk_line_bytes;
  };

  explicit Feed(Limits limits) : limits_(limits) {}

  // A new message (or the next head after an interim one).
  void start() {
    if (carry_.capacity() > 4 * 1024) std::string().swap(carry_);
    carry_.clear();
    head_bytes_ = 0;
    deferred_ = {};
    after_cr_ = false;
    after_chunk_data = false;
  }

  const std::string& carry() const { return carry_; }

  // Set by the owner's on_chunk_body_impl when a chunk's data ended (its CRLF comes next),
  // cleared by its on_chunk_header_impl.
  bool after_chunk_data = false;

  // One call of Beast's put() over what is carried and `in`; returns how much of `in` was
  // used. The owner provides head_complete(), beast_failed(ec, at) (Beast refused the
  // bytes at `at`) and layer_failed(Failure, detail). Not eager through the head, so that
  // put() stops where the head ends: that is how the head's size is known (Beast applies
  // header_limit to the start line and to the fields apart).
  template <class Parser, class Owner>
  std::size_t put(Parser& beast, Owner& owner, std::string_view in, bool stop_at_head) {
    namespace http = boost::beast::http;
    if (deferred_) {
      carry_.append(in);
      check_deferred(owner);
      return in.size();
    }
    const std::size_t old = carry_.size();
    if (old != 0 && old + in.size() < 5 && owner.head_complete() && last_chunk_line_kept()) {
      // Beast asserts that it is given at least 5 bytes once it has seen the last chunk's
      // size line without the end of the trailer section (basic_parser.ipp, Boost 1.81,
      // reached when the body is just "0\r\n" so far); nothing can end in fewer.
      carry_.append(in);
      return in.size();
    }
    if (old != 0) carry_.append(in);
    const std::string_view data = old != 0 ? std::string_view(carry_) : in;
    const bool header_was_done = beast.is_header_done();
    if (!header_was_done) {
      if (head_bytes_ >= limits_.max_head_bytes) {
        owner.layer_failed(Failure::HeadTooLarge, {});
        return in.size();
      }
      beast.header_limit(static_cast<std::uint32_t>(std::min<std::size_t>(limits_.max_head_bytes - head_bytes_, UINT32_MAX)));
    }
    beast.eager(header_was_done && !stop_at_head);
    boost::beast::error_code ec;
    const std::size_t n = beast.put(boost::asio::const_buffer(data.data(), data.size()), ec);
    if (!header_was_done) {
      head_bytes_ += n;
      if (beast.is_header_done() && head_bytes_ > limits_.max_head_bytes) {
        owner.layer_failed(Failure::HeadTooLarge, {});
        return in.size();
      }
    }
    if (ec == http::error::need_more) {
      // Everything given is consumed: what Beast did not use waits in the carry.
      keep_from(old, n, in);
      check_carry(owner);
      return in.size();
    }
    if (ec) {
      const std::string_view at = data.substr(std::min(n, data.size()));
      if (!owner.head_complete() && ec != http::error::header_limit) {
        // A verdict on a head waits for the head's end (or its limit, or the peer's close),
        // when a head that came in pieces would have been checked by Beast.
        keep_from(old, n, in);
        deferred_ = ec;
        check_deferred(owner);
        return in.size();
      }
      owner.beast_failed(ec, at);
      return in.size();
    }
    carry_.clear();
    return n >= old ? n - old : 0;
  }

 private:
  // The carry holds a whole last-chunk line ("0", extensions, CRLF): Beast waits for the
  // trailer section's end.
  bool last_chunk_line_kept() const {
    std::string_view c = carry_;
    if (after_chunk_data && c.substr(0, 2) == "\r\n") c.remove_prefix(2);
    std::size_t zeros = 0;
    while (zeros < c.size() && c[zeros] == '0') ++zeros;
    return zeros != 0 && c.find("\r\n", zeros) != std::string_view::npos;
  }

  void keep_from(std::size_t old, std::size_t n, std::string_view in) {
    // Beast may stop just past a CR it refused ("\r\r\n": the CR that was not followed by
    // LF is consumed), so whether the carry's first byte follows a CR is remembered.
    if (n != 0) after_cr_ = (old != 0 ? carry_[n - 1] : in[n - 1]) == '\r';
    if (old != 0) {
      carry_.erase(0, n);
    } else {
      carry_.assign(in.substr(n));
    }
  }

  // Bytes Beast is waiting for more of may not grow without bound, nor wait for an end that
  // cannot come.
  template <class Owner>
  void check_carry(Owner& owner) {
    if (!owner.head_complete()) {
      if (carry_.size() > limits_.max_head_bytes) {
        owner.layer_failed(Failure::HeadTooLarge, {});
      } else if (has_bare_lf(carry_, after_cr_)) {
        owner.layer_failed(Failure::HeadBareLf, {});
      }
      return;
    }
    if (carry_.empty()) return;
    const std::size_t from = std::min<std::size_t>(carry_.size(), 2);  // a chunk's CRLF first
    const bool line_ended = carry_.find('\n', from) != std::string::npos;
    if (!line_ended && carry_.size() > limits_.max_chunk_line_bytes + from) {
      owner.layer_failed(Failure::ChunkLineTooLong, {});
    } else if (line_ended && carry_.size() > limits_.max_head_bytes + limits_.max_chunk_line_bytes) {
      owner.layer_failed(Failure::TrailerTooLong, {});
    } else if (auto reason = broken_chunk_line_end(carry_, after_chunk_data)) {
      owner.layer_failed(Failure::ChunkLineEnd, *reason);
    }
  }

  // A refused head waits in the carry for its end: then the refusal, or the head limit.
  template <class Owner>
  void check_deferred(Owner& owner) {
    const auto end = carry_.find("\r\n\r\n");
    const std::size_t size = end == std::string::npos ? carry_.size() : end + 4;
    if (has_bare_lf(std::string_view(carry_).substr(0, size), after_cr_)) {
      deferred_ = {};
      owner.layer_failed(Failure::HeadBareLf, {});
    } else if (head_bytes_ + size > limits_.max_head_bytes) {
      deferred_ = {};
      owner.layer_failed(Failure::HeadTooLarge, {});
    } else if (end != std::string::npos) {
      const auto ec = deferred_;
      deferred_ = {};
      owner.beast_failed(ec, carry_);
    }
  }

  Limits limits_;
  std::string carry_;
  std::size_t head_bytes_ = 0;  // of this head consumed by Beast so far
  boost::beast::error_code deferred_;
  bool after_cr_ = false;  // the byte before the carry's first one was a CR
};

}  // namespace stampede::proto::beast_layer
