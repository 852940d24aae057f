#include "record/recording.hpp"

#include <algorithm>
#include <cctype>

namespace stampede::record {
namespace {

bool same_name(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

const std::string* find(const std::vector<Header>& headers, std::string_view name) {
  for (const auto& header : headers)
    if (same_name(header.name, name)) return &header.value;
  return nullptr;
}

}  // namespace

const std::string* Exchange::request_header(std::string_view name) const { return find(request_headers, name); }
const std::string* Exchange::response_header(std::string_view name) const { return find(response_headers, name); }

}  // namespace stampede::record
