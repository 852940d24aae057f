#pragma once
// How the JSON results write a figure (json_results.cpp, find_limit_json.cpp).
#include <boost/json/value.hpp>
#include <cmath>
#include <cstdint>

namespace stampede::report {

// JSON has no NaN or infinity; a figure that could not be computed is null. Whole numbers
// are written as integers ("5", not "5E0"): the file stays readable to a person.
inline boost::json::value json_number(double v) {
  if (!std::isfinite(v)) return nullptr;
  if (v == std::trunc(v) && std::fabs(v) < 9e15) return boost::json::value(static_cast<std::int64_t>(v));
  return boost::json::value(v);
}

}  // namespace stampede::report
