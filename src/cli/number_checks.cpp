#include "cli/number_checks.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <optional>

namespace stampede::cli {

namespace {

std::optional<double> whole_number(const std::string& text) {
  if (text.empty()) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(value)) return std::nullopt;
  return value;
}

std::string expected(const char* what, const std::string& text) {
  return std::string("expected ") + what + ", not \"" + text + "\"";
}

}  // namespace

std::string check_positive_number(const std::string& text) {
  const auto value = whole_number(text);
  return value && *value > 0 ? std::string() : expected("a number greater than 0", text);
}

std::string check_non_negative_number(const std::string& text) {
  const auto value = whole_number(text);
  return value && *value >= 0 ? std::string() : expected("a number, 0 or more", text);
}

}  // namespace stampede::cli
