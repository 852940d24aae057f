#include "proto/url_resolve.hpp"

#include <boost/url/encode.hpp>
#include <boost/url/parse.hpp>
#include <boost/url/rfc/gen_delim_chars.hpp>
#include <boost/url/rfc/sub_delim_chars.hpp>
#include <boost/url/rfc/unreserved_chars.hpp>

namespace stampede::proto {
namespace {

namespace urls = boost::urls;

// The characters a URL reference may hold as they are.
constexpr auto kUrlChars = urls::unreserved_chars + urls::gen_delim_chars + urls::sub_delim_chars;

// `text` with what a URL cannot hold percent-encoded; with keep_escapes, each "%" stays as it
// is (Boost.URL's encode() asserts that "%" is never in the allowed set, so the text is
// encoded piece by piece between them).
std::string encode_for_url(std::string_view text, bool keep_escapes) {
  if (!keep_escapes) return urls::encode(text, kUrlChars);
  std::string out;
  for (std::size_t start = 0;;) {
    const std::size_t percent = text.find('%', start);
    out += urls::encode(text.substr(start, percent - start), kUrlChars);
    if (percent == std::string_view::npos) return out;
    out += '%';
    start = percent + 1;
  }
}

// The reference as a browser reads it: as written when it is one, else with what it cannot
// hold percent-encoded (first keeping its escapes, then, when one is malformed, encoding
// every "%" too).
std::optional<urls::url> read_reference(std::string_view text) {
  if (auto parsed = urls::parse_uri_reference(text)) return urls::url(*parsed);
  for (const bool keep_escapes : {true, false}) {
    const std::string encoded = encode_for_url(text, keep_escapes);
    if (auto parsed = urls::parse_uri_reference(encoded)) return urls::url(*parsed);
  }
  return std::nullopt;
}

// Boost.URL 1.81 (Debian 12's) departs from RFC 3986 §5.2 twice; both are fixed upstream
// later and both are undone here, after its resolve():
//  - the base's fragment stays when the reference has none ("?page=2" against ".../x#top"
//    keeps "#top"; boostorg/url#920), where the result takes the reference's fragment;
//  - ".." segments above the root stay in the path ("../../c" against "/a/" gives "/../c";
//    boostorg/url#808), where remove_dot_segments drops them.
void correct_boost_1_81(urls::url& out, const urls::url& ref) {
  if (!ref.has_fragment()) out.remove_fragment();
  if (!out.has_authority()) return;
  std::string_view path = out.encoded_path();
  std::size_t above_root = 0;
  while (path.substr(above_root).starts_with("/..") &&
         (path.size() == above_root + 3 || path[above_root + 3] == '/')) {
    above_root += 3;
  }
  if (above_root == 0) return;
  const std::string rest(path.substr(above_root));
  if (rest.empty() || rest == "/") {
    // Not set_encoded_path("/"): Boost.URL 1.81 writes that as "/./".
    out.set_encoded_path("");
    out.set_path_absolute(true);
  } else {
    out.set_encoded_path(rest);
  }
}

}  // namespace

std::optional<urls::url> resolve_reference(std::string_view base, std::string_view reference) {
  const auto absolute = urls::parse_uri(base);
  const auto ref = read_reference(reference);
  if (!absolute || !ref) return std::nullopt;
  urls::url out;
  if (!urls::resolve(*absolute, *ref, out)) return std::nullopt;
  correct_boost_1_81(out, *ref);
  return out;
}

std::string resolve_url(std::string_view base, std::string_view reference) {
  const auto resolved = resolve_reference(base, reference);
  return resolved ? std::string(resolved->buffer()) : std::string(reference);
}

}  // namespace stampede::proto
