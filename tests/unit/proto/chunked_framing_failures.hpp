#pragma once
// The check both HTTP/1.1 parsers' tests make of a refused chunked body: a recording proxy
// forwards the body bytes the parser took, so when the framing is refused, whether it failed
// and how many bytes it took must be the same however the bytes arrived.
#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stampede::proto::test_support {

// What a parser took before it failed, fed the pieces ending at `cuts` (then the rest) the
// way a connection feeds it.
template <class Parser>
std::pair<bool, std::size_t> taken_until_failure(Parser parser, std::string_view wire,
                                                 const std::vector<std::size_t>& cuts) {
  std::size_t taken = 0;
  std::size_t from = 0;
  std::vector<std::size_t> ends = cuts;
  ends.push_back(wire.size());
  for (const std::size_t end : ends) {
    const std::size_t used = parser.feed(wire.substr(from, end - from));
    taken += used;
    if (used < end - from || parser.failed() || parser.done()) break;
    from = end;
  }
  return {parser.failed(), taken};
}

// After `head` (which announces a chunked body), each of a set of refused chunked bodies, with
// more bytes after it and with the bytes ending where they do (a peer that sends nothing
// more: the verdict may not wait for bytes that would not change it), whole, a byte at a time
// and split at every point. `make_parser()` gives a fresh parser.
template <class MakeParser>
void expect_framing_failures_take_the_same_bytes_however_cut(const std::string& head, MakeParser make_parser) {
  for (const std::string& body : std::vector<std::string>{"41 200 OK\r\nxyz", "zz\r\n0\r\n\r\n", "3\r\nabcd\r\n0\r\n\r\n", "3\r\nabc\rx\r\n",
                                 "3\r\nabc\r\n0\r\nBad Trailer: x\r\n\r\n", "3\rabc", "2\r\nab\r\n1;a b\r\nc\r\n",
                                 "5\r\na=b\r\n0\r\n\r\t", "5\r\na=b\r\n0\r\n\r", "0\r\nBad\r\n\r\n",
                                 "0\r\n\r", "1;" + std::string(300, 'e') + "\r\nx\r\n", "0\r\nT: " + std::string(300, 't')}) {
    for (const std::string& wire : {head + body + "\r\n\r\nmore after it", head + body}) {
      const auto whole = taken_until_failure(make_parser(), wire, {});
      if (wire.size() > head.size() + body.size()) {
        EXPECT_TRUE(whole.first) << body;
      }
      std::vector<std::size_t> every_byte;
      for (std::size_t i = 1; i < wire.size(); ++i) every_byte.push_back(i);
      EXPECT_EQ(taken_until_failure(make_parser(), wire, every_byte), whole) << body;
      for (std::size_t cut = 1; cut < wire.size(); ++cut) {
        EXPECT_EQ(taken_until_failure(make_parser(), wire, {cut}), whole) << body << " split at " << cut;
      }
    }
  }
}

}  // namespace stampede::proto::test_support
