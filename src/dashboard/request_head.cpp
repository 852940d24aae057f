#include "dashboard/request_head.hpp"

#include <algorithm>
#include <cctype>
#include <string>

namespace stampede::dashboard {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::string lowercase(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace

std::optional<RequestHead> parse_request_head(std::string_view head) {
  const auto line_end = head.find("\r\n");
  if (line_end == std::string_view::npos) return std::nullopt;
  const std::string_view request_line = head.substr(0, line_end);
  const auto first_space = request_line.find(' ');
  const auto last_space = request_line.rfind(' ');
  if (first_space == std::string_view::npos || last_space == first_space) return std::nullopt;
  if (request_line.substr(last_space + 1).rfind("HTTP/1.", 0) != 0) return std::nullopt;

  RequestHead result;
  result.method = std::string(request_line.substr(0, first_space));
  std::string_view target = request_line.substr(first_space + 1, last_space - first_space - 1);
  if (target.empty() || target.front() != '/') return std::nullopt;
  result.path = std::string(target.substr(0, target.find('?')));

  std::string_view rest = head.substr(line_end + 2);
  while (!rest.empty()) {
    const auto end = rest.find("\r\n");
    const std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 2);
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    if (lowercase(trim(line.substr(0, colon))) == "host") result.host = lowercase(trim(line.substr(colon + 1)));
  }
  return result;
}

bool is_loopback_host(std::string_view host, unsigned port) {
  const auto is_loopback_name = [](std::string_view name) {
    return name == "127.0.0.1" || name == "localhost" || name == "[::1]";
  };
  // Browsers leave the default port out of the Host header.
  if (port == 80 && is_loopback_name(host)) return true;
  const std::string suffix = ":" + std::to_string(port);
  if (host.size() <= suffix.size() || host.substr(host.size() - suffix.size()) != suffix) return false;
  return is_loopback_name(host.substr(0, host.size() - suffix.size()));
}

}  // namespace stampede::dashboard
