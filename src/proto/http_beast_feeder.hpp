#pragma once
// How the HTTP/1.1 parsers (http_request_parser, http_response_parser) feed bytes to Beast's
// http::basic_parser (docs/design/044). Beast asks to see the bytes it did not consume again
// with more; the parsers consume everything they are given before the end of a message, so
// they keep those bytes themselves (`pending`), and they show them to Beast so that what it
// makes of a message, errors and bytes consumed included, never depends on how it was cut.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "proto/http_beast.hpp"

namespace stampede::proto::http_beast {

// The feeding shared by the two parsers' Impl, which derives from Feeder<Impl, ...> and has:
//   std::optional<Grammar> grammar;      Beast's parser (a basic_parser<isRequest>) with its callbacks
//   State state() const;                 its parser's state (Head, Body, Done, Error)
//   std::size_t max_head() const;        the limit of a head
//   std::size_t framing_limit() const;   how much of a chunk-size line or trailer section Beast is shown
//   void restart_head();                 forgets what Beast made of a head: a new grammar
//   bool start_head(std::string_view in, std::size_t& skipped);
//                                        a new head's first bytes: skips what comes before it
//                                        (`skipped`); false if there is no head yet or it failed
//   bool refuse_long_framing_line(std::string_view window);
//                                        Beast did not take a framing line of framing_limit()
//                                        bytes: fails the message (true), or grows the limit
//   void fail_bare_lf();  void fail_head_too_large();
//   void fail_head(const boost::beast::error_code&, std::string_view at);  Beast refused a head
//   void fail_body(const boost::beast::error_code&);                       ...or a chunked body
// and may hide these defaults (the response parser does): head_read(), reads_body_with_head(),
// refuse_head_start(), head_ended().
template <class Impl, bool isRequest, class State>
struct Feeder {
  // Bytes Beast must see again with more: a head that arrived in pieces (from its first
  // byte), or a chunk-size line or trailer section cut at the end of a read.
  std::string pending;
  std::size_t scan_from = 0;     // where `pending` (a head) is searched for its end next
  std::size_t lf_checked = 0;    // how much of `pending` (a head) was looked at for a bare LF
  std::uint64_t chunk_left = 0;  // of the chunk whose data is arriving
  bool chunks_seen = false;      // a chunk's data came: the next size line follows its CRLF
  bool stop_at_head = false;     // inside the parser's feed_head()

  // ---- defaults an Impl may hide --------------------------------------------------------------

  // Beast read a head (the Impl may show it, or pass over it).
  void head_read() {}
  // Whether Beast reads on into the body in the call that reads a head that is all in `text`.
  bool reads_body_with_head(std::string_view /*text*/) const { return false; }
  // Whether the start of a head that arrives in pieces, `pending` then `more`, fails it.
  bool refuse_head_start(std::string_view /*more*/) { return false; }
  // Whether feed_head() has read as far as it goes.
  bool head_ended() const { return self().state() != State::Head; }

  // ---- feeding --------------------------------------------------------------------------------

  // Consumes bytes and returns how many it used; `stop`: the parser's feed_head().
  std::size_t feed(std::string_view in, bool stop) {
    stop_at_head = stop;
    std::size_t used = 0;
    while (used < in.size() && (self().state() == State::Head || self().state() == State::Body)) {
      const State before = self().state();
      const std::size_t n = before == State::Head ? feed_head(in.substr(used)) : feed_body(in.substr(used));
      used += n;
      if (stop_at_head && self().head_ended()) break;
      if (n == 0 && self().state() == before) break;  // cannot happen; guards against a spin
    }
    stop_at_head = false;
    return used;
  }

  // For a new message: a buffer a huge head grew is not kept.
  void clear_pending() {
    if (pending.capacity() > kKeptHeadCapacity) {
      std::string().swap(pending);
    } else {
      pending.clear();
    }
    scan_from = 0;
    lf_checked = 0;
  }

  std::size_t put(std::string_view bytes, boost::beast::error_code& ec) {
    return beast().put(boost::asio::const_buffer(bytes.data(), bytes.size()), ec);
  }

 private:
  Impl& self() { return static_cast<Impl&>(*this); }
  const Impl& self() const { return static_cast<const Impl&>(*this); }
  auto& beast() { return *self().grammar; }
  bool failed() const { return self().state() == State::Error; }

  // Reads a head from `in`; returns how many bytes it used. Beast parses a head only when all
  // of it is in one piece (at most max_head() bytes from its start), so what it makes of it,
  // errors and their messages included, never depends on where the bytes were cut.
  std::size_t feed_head(std::string_view in) {
    if (!pending.empty()) return feed_pending_head(in);
    std::size_t skipped = 0;
    if (!self().start_head(in, skipped)) return skipped;
    const std::string_view text = in.substr(skipped);
    // Fast path: the whole head is in this piece, parsed where it lies. Where the Impl reads
    // the body with the head (the usual response: one call into Beast) Beast is eager;
    // without eager, put() returns without an error only at the end of the head.
    const bool head_and_body = self().reads_body_with_head(text);
    if (head_and_body) beast().eager(true);
    const std::string_view window = text.substr(0, self().max_head());
    boost::beast::error_code ec;
    const std::size_t n = put(window, ec);
    if (!ec) {  // the head was read (and, eager, as much of the body as there was)
      self().head_read();
      return skipped + n;
    }
    if (head_and_body && beast().is_header_done()) {  // the body's framing stopped Beast
      if (ec == boost::beast::http::error::need_more) {
        pending.assign(text.substr(n));  // a chunk-size line or trailer section, cut short
        return in.size();
      }
      if (failed()) return skipped + n;  // a callback's own reason
      self().fail_body(ec);
      return skipped + n + framing_error_end<isRequest>(text.substr(n, self().framing_limit()), chunks_seen);
    }
    const std::size_t head_end = window.find(kHeadEnd);
    if (has_bare_lf(window, 0, head_region_end(window, head_end))) {
      self().restart_head();
      self().fail_bare_lf();
      return skipped;
    }
    if (head_end != std::string_view::npos) return skipped + parse_whole_head(window.substr(0, head_end + kHeadEnd.size()));
    // Not all of the head is here: Beast starts again once it is.
    self().restart_head();
    if (text.size() >= self().max_head()) {
      self().fail_head_too_large();
      return skipped;
    }
    pending.assign(text);
    scan_from = text.size() >= 3 ? text.size() - 3 : 0;
    lf_checked = text.size();
    return in.size();
  }

  std::size_t feed_pending_head(std::string_view in) {
    const std::size_t old = pending.size();
    if (self().refuse_head_start(in)) return 0;
    const std::size_t take = std::min(in.size(), self().max_head() - old);
    pending.append(in.data(), take);
    const std::size_t head_end = pending.find(kHeadEnd, scan_from);
    const std::size_t region_end = head_region_end(pending, head_end);
    if (has_bare_lf(pending, lf_checked, region_end)) {
      self().fail_bare_lf();
      return take;
    }
    lf_checked = region_end;
    if (head_end == std::string::npos) {
      if (pending.size() >= self().max_head()) self().fail_head_too_large();
      scan_from = pending.size() >= 3 ? pending.size() - 3 : 0;
      return take;
    }
    const std::size_t n = parse_whole_head(std::string_view(pending).substr(0, region_end));
    if (failed()) return take;
    pending.clear();
    return n - old;  // the head ends in `in`: `pending` held no end of head before
  }

  // Beast parses a head that is all there, shown alone: what it makes of a malformed one
  // (which it may not know before it has seen a few bytes more) must not depend on what
  // follows it. Returns the head's size.
  std::size_t parse_whole_head(std::string_view head) {
    self().restart_head();
    boost::beast::error_code ec;
    const std::size_t n = put(head, ec);
    if (!ec) {
      self().head_read();
      return n;
    }
    if (!failed()) self().fail_head(ec, head.substr(n));  // else a callback's own reason
    return head.size();
  }

  // Runs Beast over body bytes; returns how many it used. `incomplete`: it stopped at a
  // chunk-size line or trailer section that `bytes` holds only the start of. A framing line
  // is shown to Beast at most framing_limit() bytes at a time (chunk data is not limited),
  // so a line longer than that fails the same way whether or not its end has arrived.
  std::size_t run_body(std::string_view bytes, bool& incomplete) {
    incomplete = false;
    beast().eager(true);
    const bool chunked = beast().chunked();
    std::size_t at = 0;
    while (at < bytes.size() && self().state() == State::Body) {
      std::string_view window = bytes.substr(at);
      if (chunked) {
        window = chunk_left > 0 ? window.substr(0, static_cast<std::size_t>(std::min<std::uint64_t>(chunk_left, window.size())))
                                : window.substr(0, self().framing_limit());
      }
      boost::beast::error_code ec;
      const std::size_t n = put(window, ec);
      at += n;
      if (ec == boost::beast::http::error::need_more) {
        if (n == 0 && window.size() >= self().framing_limit()) {
          if (self().refuse_long_framing_line(window)) return at + window.size();
          continue;  // its limit grew
        }
        if (window.data() + window.size() < bytes.data() + bytes.size()) continue;  // more after this window
        incomplete = true;
        return at;
      }
      if (ec) {
        if (failed()) return at;  // a callback's own reason
        self().fail_body(ec);
        return at + framing_error_end<isRequest>(bytes.substr(at, self().framing_limit()), chunks_seen);
      }
      if (n == 0) break;  // cannot happen: a window is never empty; guards against a spin
    }
    return at;
  }

  std::size_t feed_body(std::string_view in) {
    bool incomplete = false;
    if (pending.empty()) {
      const std::size_t n = run_body(in, incomplete);
      if (!incomplete) return n;
      pending.assign(in.substr(n));
      return in.size();
    }
    // `pending` starts a framing line: with these bytes it may end.
    const std::size_t old = pending.size();
    const std::size_t limit = self().framing_limit();
    const std::size_t take = std::min(in.size(), limit - std::min(old, limit));
    pending.append(in.data(), take);
    if (must_wait(old, pending, chunks_seen)) return take;
    const std::size_t n = run_body(pending, incomplete);
    if (failed()) return n > old ? n - old : take;  // to where the failure showed
    // Still the same line: it stays in `pending` (or its limit grew, the request's trailers:
    // more of `in` is taken next round).
    if (n == 0) return take;
    pending.clear();
    // What followed the line came from `in`: bytes not used go back to it (a line started
    // again at the end is read from `in` on the next round).
    return n - old;
  }
};

}  // namespace stampede::proto::http_beast
