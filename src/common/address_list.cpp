#include "common/address_list.hpp"

#include <stdexcept>
#include <string>

namespace stampede {

namespace {
std::string trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return std::string(s);
}

boost::asio::ip::address parse_one(const std::string& text) {
  boost::system::error_code ec;
  auto a = boost::asio::ip::make_address(text, ec);
  if (ec) throw std::invalid_argument("\"" + text + "\" is not an IP address");
  return a;
}

void add_item(std::vector<boost::asio::ip::address>& out, std::string_view item) {
  const auto dash = item.find('-');
  if (dash == std::string_view::npos) {
    out.push_back(parse_one(trim(item)));
    return;
  }
  const auto first = parse_one(trim(item.substr(0, dash)));
  const auto last = parse_one(trim(item.substr(dash + 1)));
  if (!first.is_v4() || !last.is_v4())
    throw std::invalid_argument("\"" + std::string(item) + "\": only IPv4 ranges are supported; list IPv6 addresses one by one");
  const auto lo = first.to_v4().to_uint();
  const auto hi = last.to_v4().to_uint();
  if (hi < lo) throw std::invalid_argument("\"" + std::string(item) + "\": the range ends before it starts");
  if (hi - lo >= 65536) throw std::invalid_argument("\"" + std::string(item) + "\": more than 65536 addresses");
  for (auto v = lo; v <= hi; ++v) out.emplace_back(boost::asio::ip::address_v4(v));
}
}  // namespace

std::vector<boost::asio::ip::address> parse_address_list(std::string_view text) {
  std::vector<boost::asio::ip::address> out;
  while (!text.empty()) {
    const auto comma = text.find(',');
    const auto item = text.substr(0, comma);
    if (!trim(item).empty()) add_item(out, item);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return out;
}

std::vector<boost::asio::ip::address> parse_address_list(const std::vector<std::string>& items) {
  std::vector<boost::asio::ip::address> out;
  for (const auto& item : items) {
    auto part = parse_address_list(item);
    out.insert(out.end(), part.begin(), part.end());
  }
  return out;
}

}  // namespace stampede
