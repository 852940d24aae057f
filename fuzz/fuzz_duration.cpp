// parse_duration on arbitrary text must either fail with a sentence or give a duration that
// format_duration prints in a form parse_duration reads back to the same text.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "proto/duration.hpp"

using stampede::Nanos;
using stampede::proto::format_duration;
using stampede::proto::parse_duration;

namespace {

constexpr Nanos kMaxDuration = Nanos{100} * 24 * 3600 * 1'000'000'000;

void check_round_trip(Nanos d) {
  const std::string text = format_duration(d);
  std::string error;
  const auto back = parse_duration(text, &error);
  if (!back || format_duration(*back) != text) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string error;
  const auto d = parse_duration(text, &error);
  if (d) {
    if (*d < 0 || *d > kMaxDuration) std::abort();
    check_round_trip(*d);
  } else if (error.rfind("bad duration \"", 0) != 0) {
    std::abort();
  }

  // The same bytes read as a number of nanoseconds: any value formats without overflow.
  Nanos n = 0;
  std::memcpy(&n, data, std::min(size, sizeof n));
  if (format_duration(n).empty()) std::abort();
  if (n >= 0) check_round_trip(n % (kMaxDuration + 1));
  return 0;
}
