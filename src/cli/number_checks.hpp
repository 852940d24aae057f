#pragma once
// Checks for numeric options, in words. CLI11's PositiveNumber and NonNegativeNumber report a
// bad value as "Value abc not in range 0.000000 to 17976931348623157...(309 digits)", which
// says neither what was wrong nor what would do.

#include <string>

namespace stampede::cli {

// Each returns "" when `text` will do, else what was expected (CLI11 puts the option's name
// in front). A number is finite and the whole of `text`: "10x", "nan" and "inf" are not.
std::string check_positive_number(const std::string& text);
std::string check_non_negative_number(const std::string& text);

}  // namespace stampede::cli
