#pragma once
// Serialises an HTTP/1.1 request head. Pure: appends bytes to a string the caller owns
// (a per-connection or per-worker buffer), so writing a request allocates nothing once
// that buffer has grown.
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stampede::proto {

// Appends "METHOD target HTTP/1.1", the headers and the empty line to `out`.
// - Host: host_header, first, unless `headers` has a Host header (any case).
// - Content-Length: content_length when has_body or the method is POST, PUT or PATCH (which
//   carry a body by definition, so an empty one is announced as 0). It replaces a
//   Content-Length in `headers`, since any other value would desynchronise the connection.
// - `extra`: more headers, written after `headers` under the same rules: the ones a client
//   adds itself (defaults, cookies) without copying them into the caller's vector.
// Throws std::invalid_argument, leaving `out` unchanged, when the method is not a token, the
// target is empty or holds a space or control character, or a header name is not a token or
// a header value (or host_header) holds CR, LF or NUL: header injection.
using HeaderView = std::pair<std::string_view, std::string_view>;
void write_request_head(std::string& out, std::string_view method, std::string_view target,
                        std::string_view host_header, const std::vector<std::pair<std::string, std::string>>& headers,
                        std::size_t content_length, bool has_body, std::span<const HeaderView> extra = {});

}  // namespace stampede::proto
