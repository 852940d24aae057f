// bench/http-parser's program: the CPU one HTTP/1.1 message costs to parse, Stampede's parsers
// (proto::HttpResponseParser, proto::HttpRequestParser: since issue 38 a layer of our own over
// Boost.Beast's basic_parser) against the hand-written parsers they replaced ("old", compiled
// from git into this program when STAMPEDE_OLD_PARSERS is defined) and Beast's stock
// http::response_parser / http::request_parser with a string body, on the same bytes, in one
// process and one run, rounds interleaved. The messages are files (bench/http-parser captures
// them from `stampede target` and from `stampede run`), each one whole HTTP/1.1 message.
//
// Each side is used the way its load path would use it:
// - ours and old: one parser per connection, reset() per message; the response side hands its
//   headers and body back with reuse() as clients/http_connection does (design 031), so a warm
//   parse allocates nothing.
// - Beast: a parser is good for one message, so one is constructed per message (Beast's
//   documented use), eager, with the same limits. "beast+layer" adds what a thin layer over
//   Beast's own fields would still do to give the rest of the tree what it reads today: the
//   status or method and target, and the headers as lowercased HttpHeader pairs.
//
// Usage: http_parser ROUNDS ITERATIONS response|request FILE...
// Prints, per round and file, nanoseconds per message for each side and the allocations one
// warm parse makes.
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <new>
#include <sstream>
#include <string>
#include <vector>

#include "proto/http_request_parser.hpp"
#include "proto/http_response_parser.hpp"
#ifdef STAMPEDE_OLD_PARSERS
#include "proto_old/http_request_parser.hpp"
#include "proto_old/http_response_parser.hpp"
#endif

// Counts allocations, to say how many one warm parse makes (design 031 removed most of a
// request's; a parser that allocates per header would add them back).
static long long allocations = 0;

void* operator new(std::size_t n) {
  ++allocations;
  void* p = std::malloc(n == 0 ? 1 : n);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace http = boost::beast::http;
using stampede::proto::HttpHeader;

namespace {

volatile std::size_t sink = 0;  // keeps the parsers' results observable

std::string read_file(const char* path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Allocations made by one call of `one` (after the call before it warmed things up).
template <class F>
long long allocations_of(F&& one) {
  one();
  const long long before = allocations;
  one();
  return allocations - before;
}

template <class F>
double ns_per(int iterations, F&& one) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < iterations; ++i) one();
  const auto end = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::nano>(end - start).count() / iterations;
}

std::string lowercase(std::string_view s) {
  std::string out(s);
  for (auto& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

template <bool isRequest>
void layer_headers(const http::basic_parser<isRequest>&, const http::fields& fields, std::vector<HttpHeader>& out) {
  out.clear();
  for (const auto& f : fields) out.push_back(HttpHeader{lowercase(f.name_string()), std::string(f.value())});
}

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "%s\n", what);
  std::exit(1);
}

// --- responses ---

template <class Parser>
struct OurResponse {
  Parser parser;
  std::size_t parse(std::string_view bytes) {
    parser.reset();
    if (parser.feed(bytes) != bytes.size() || !parser.done()) fail(("ours: " + parser.error()).c_str());
    auto headers = parser.take_headers();
    const std::size_t n = headers.size() + parser.body().size() + static_cast<std::size_t>(parser.head().status);
    parser.reuse(std::move(headers), std::move(parser.body()));
    return n;
  }
};

std::size_t beast_response(std::string_view bytes, bool layer, std::vector<HttpHeader>& headers) {
  http::response_parser<http::string_body> parser;
  parser.eager(true);
  parser.header_limit(64 * 1024);
  parser.body_limit(256 * 1024 * 1024);
  boost::beast::error_code ec;
  const auto used = parser.put(boost::asio::buffer(bytes.data(), bytes.size()), ec);
  if (ec || used != bytes.size() || !parser.is_done()) fail(("beast: " + ec.message()).c_str());
  const auto& m = parser.get();
  std::size_t n = m.body().size() + m.result_int();
  if (layer) {
    layer_headers(parser, m.base(), headers);
    n += headers.size();
  } else {
    n += static_cast<std::size_t>(std::distance(m.begin(), m.end()));
  }
  return n;
}

// --- requests ---

template <class Parser>
struct OurRequest {
  Parser parser;
  std::size_t parse(std::string_view bytes) {
    parser.reset();
    if (parser.feed(bytes) != bytes.size() || !parser.done()) fail(("ours: " + parser.error()).c_str());
    const auto& r = parser.request();
    return r.headers.size() + r.body.size() + r.target.size();
  }
};

std::size_t beast_request(std::string_view bytes, bool layer, std::vector<HttpHeader>& headers, std::string& method,
                          std::string& target) {
  http::request_parser<http::string_body> parser;
  parser.eager(true);
  parser.header_limit(64 * 1024);
  parser.body_limit(8 * 1024 * 1024);
  boost::beast::error_code ec;
  const auto used = parser.put(boost::asio::buffer(bytes.data(), bytes.size()), ec);
  if (ec || used != bytes.size() || !parser.is_done()) fail(("beast: " + ec.message()).c_str());
  const auto& m = parser.get();
  std::size_t n = m.body().size() + m.target().size();
  if (layer) {
    method.assign(m.method_string());
    target.assign(m.target());
    layer_headers(parser, m.base(), headers);
    n += headers.size() + method.size();
  } else {
    n += static_cast<std::size_t>(std::distance(m.begin(), m.end()));
  }
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) fail("usage: http_parser ROUNDS ITERATIONS response|request FILE...");
  const int rounds = std::atoi(argv[1]);
  const int iterations = std::atoi(argv[2]);
  const std::string kind = argv[3];
  std::vector<std::string> messages;
  for (int i = 4; i < argc; ++i) messages.push_back(read_file(argv[i]));

  OurResponse<stampede::proto::HttpResponseParser> our_response;
  OurRequest<stampede::proto::HttpRequestParser> our_request;
#ifdef STAMPEDE_OLD_PARSERS
  OurResponse<stampede::proto_old::HttpResponseParser> old_response;
  OurRequest<stampede::proto_old::HttpRequestParser> old_request;
#endif
  std::vector<HttpHeader> headers;
  std::string method;
  std::string target;
  for (int round = 1; round <= rounds; ++round) {
    for (std::size_t m = 0; m < messages.size(); ++m) {
      const std::string_view bytes = messages[m];
      double ours = 0;
      double old = 0;
      double beast = 0;
      double layered = 0;
      long long ours_allocs = 0;
      long long old_allocs = -1;
      long long beast_allocs = 0;
      long long layered_allocs = 0;
      auto measure = [&](auto&& our_parse, auto&& old_parse, auto&& beast_parse, auto&& layered_parse) {
        (void)old_parse;
        auto run_ours = [&] {
#ifdef STAMPEDE_OLD_PARSERS
          if (round % 2 == 0) {
            ours = ns_per(iterations, our_parse);
            old = ns_per(iterations, old_parse);
          } else {
            old = ns_per(iterations, old_parse);
            ours = ns_per(iterations, our_parse);
          }
#else
          ours = ns_per(iterations, our_parse);
#endif
        };
        auto run_beast = [&] {
          beast = ns_per(iterations, beast_parse);
          layered = ns_per(iterations, layered_parse);
        };
        // Alternate which side goes first, so neither always inherits a warmer cache.
        if (round % 2 == 0) {
          run_ours();
          run_beast();
        } else {
          run_beast();
          run_ours();
        }
        ours_allocs = allocations_of(our_parse);
#ifdef STAMPEDE_OLD_PARSERS
        old_allocs = allocations_of(old_parse);
#endif
        beast_allocs = allocations_of(beast_parse);
        layered_allocs = allocations_of(layered_parse);
      };
      if (kind == "response") {
        measure([&] { sink = sink + our_response.parse(bytes); },
#ifdef STAMPEDE_OLD_PARSERS
                [&] { sink = sink + old_response.parse(bytes); },
#else
                [] {},
#endif
                [&] { sink = sink + beast_response(bytes, false, headers); },
                [&] { sink = sink + beast_response(bytes, true, headers); });
      } else {
        measure([&] { sink = sink + our_request.parse(bytes); },
#ifdef STAMPEDE_OLD_PARSERS
                [&] { sink = sink + old_request.parse(bytes); },
#else
                [] {},
#endif
                [&] { sink = sink + beast_request(bytes, false, headers, method, target); },
                [&] { sink = sink + beast_request(bytes, true, headers, method, target); });
      }
      std::printf("round %d %s %s bytes %zu ours %.1f old %.1f beast %.1f beast+layer %.1f allocations %lld %lld %lld %lld\n",
                  round, kind.c_str(), argv[4 + m], bytes.size(), ours, old, beast, layered, ours_allocs, old_allocs,
                  beast_allocs, layered_allocs);
    }
  }
  return 0;
}
