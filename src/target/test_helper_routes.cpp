#include "target/test_helper_routes.hpp"

#include <zlib.h>

#include <boost/json.hpp>
#include <boost/url.hpp>
#include <charconv>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>

#include "target/delay_spec.hpp"

namespace stampede::target {
namespace {

namespace json = boost::json;

// The decoded value of the first `name` parameter of a query, if any.
std::optional<std::string> query_param(std::string_view query, std::string_view name) {
  if (query.empty()) return std::nullopt;
  // Spelled out: Boost 1.81 would turn a std::string_view into a C string here.
  const auto params = boost::urls::parse_query(boost::core::string_view(query.data(), query.size()));
  if (!params) return std::nullopt;
  for (const auto& param : *params) {
    if (param.key.decode() == name) return param.has_value ? param.value.decode() : std::string();
  }
  return std::nullopt;
}

std::optional<double> parse_non_negative(const std::optional<std::string>& text) {
  if (!text) return std::nullopt;
  double value = 0;
  const auto* end = text->data() + text->size();
  const auto [ptr, ec] = std::from_chars(text->data(), end, value);
  if (text->empty() || ec != std::errc() || ptr != end || !std::isfinite(value) || value < 0) return std::nullopt;
  return value;
}

void bad_request(Response& response, std::string why) {
  response.set_owned(400, kJson, json::serialize(json::object{{"error", why}}));
}

void set_cookie(const RouteRequest& req, Response& response) {
  const auto name = query_param(req.query, "name").value_or("stampede_session");
  const auto value = query_param(req.query, "value").value_or("s3cr3t");
  const auto is_cookie_octets = [](const std::string& s) {
    return s.find_first_of(";,= \t\r\n\"\\") == std::string::npos;
  };
  if (name.empty() || !is_cookie_octets(name) || !is_cookie_octets(value)) {
    bad_request(response, "cookie name and value must not contain ; , = spaces quotes or backslashes");
    return;
  }
  response.headers = "Set-Cookie: " + name + "=" + value + "; Path=/; HttpOnly\r\n";
  response.set_owned(200, kJson, json::serialize(json::object{{"set", name + "=" + value}}));
}

void whoami(const RouteRequest& req, Response& response) {
  const auto* cookie = req.request.header("cookie");
  response.set_owned(200, kJson, json::serialize(json::object{{"cookie", cookie ? *cookie : std::string()}}));
}

void redirect(const RouteRequest& req, Response& response) {
  const auto to = query_param(req.query, "to");
  if (!to || to->empty()) {
    bad_request(response, "/redirect needs ?to=PATH (and optionally &n=COUNT)");
    return;
  }
  const auto n_text = query_param(req.query, "n");
  long n = 1;
  if (n_text) {
    const auto* end = n_text->data() + n_text->size();
    const auto [ptr, ec] = std::from_chars(n_text->data(), end, n);
    if (ec != std::errc() || ptr != end || n < 1 || n > 100) {
      bad_request(response, "n must be a whole number from 1 to 100");
      return;
    }
  }
  std::string location = *to;
  if (n > 1) {
    boost::urls::url next("/redirect");
    next.params().append({"to", *to});
    next.params().append({"n", std::to_string(n - 1)});
    location = std::string(next.buffer());
  }
  response.headers = "Location: " + location + "\r\n";
  response.set_owned(302, kText, "redirecting to " + location + "\n");
}

constexpr std::string_view kGzipText =
    "This body travelled gzip-compressed; a client that asked for gzip should show it decoded.\n";

std::string gzip(std::string_view text) {
  z_stream stream{};
  // windowBits 15 + 16: a gzip wrapper rather than zlib's.
  if (deflateInit2(&stream, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    throw std::runtime_error("zlib deflateInit2 failed");
  }
  std::string out(deflateBound(&stream, static_cast<uLong>(text.size())), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  stream.avail_in = static_cast<uInt>(text.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  if (rc != Z_STREAM_END) throw std::runtime_error("zlib deflate failed");
  return out;
}

void gzip_body(const RouteRequest& req, Response& response) {
  response.headers = "Vary: Accept-Encoding\r\n";
  if (!req.request.header_has_token("accept-encoding", "gzip")) {
    response.set_static(200, kText, kGzipText);
    return;
  }
  static const std::string compressed = gzip(kGzipText);
  response.headers += "Content-Encoding: gzip\r\n";
  response.set_static(200, kText, compressed);
}

constexpr std::string_view kChunkedText =
    "This body was sent with Transfer-Encoding: chunked, sixteen bytes per chunk.\n";

void chunked_body(const RouteRequest&, Response& response) {
  response.set_static(200, kText, kChunkedText);
  response.chunk_bytes = 16;
}

void status(const RouteRequest& req, Response& response) {
  const auto code_text = req.path.substr(std::string_view("/status/").size());
  int code = 0;
  const auto* end = code_text.data() + code_text.size();
  const auto [ptr, ec] = std::from_chars(code_text.data(), end, code);
  if (ec != std::errc() || ptr != end || code < 200 || code > 599) {
    bad_request(response, "/status/<code> takes a status from 200 to 599");
    return;
  }
  response.set_owned(code, kJson, json::serialize(json::object{{"status", code}}));
}

void slow(const RouteRequest& req, Response& response) {
  const auto ms = parse_non_negative(query_param(req.query, "ms"));
  if (!ms || *ms > kMaxDelayMs) {
    bad_request(response, "/slow needs ?ms=N with 0 <= N <= 3600000");
    return;
  }
  response.delay = static_cast<Nanos>(std::llround(*ms * static_cast<double>(kMilli)));
  response.set_owned(200, kJson, json::serialize(json::object{{"slept_ms", *ms}}));
}

}  // namespace

void add_test_helper_routes(RouteTable& routes) {
  routes.add({"GET", "/api/cookie", false, set_cookie});
  routes.add({"GET", "/api/whoami", false, whoami});
  routes.add({"GET", "/redirect", false, redirect});
  routes.add({"GET", "/gzip", false, gzip_body});
  routes.add({"GET", "/chunked", false, chunked_body});
  routes.add({"GET", "/status/", true, status});
  routes.add({"GET", "/slow", false, slow});
}

}  // namespace stampede::target
