// read_results_json on arbitrary bytes must either refuse them with ResultsFormatError or
// give a model that the writer writes back into a file the reader reads again. Text that
// reaches a results file is made valid UTF-8 first; that must be idempotent.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "report/json_results.hpp"
#include "report/json_results_reader.hpp"
#include "report/utf8_text.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string valid = stampede::report::to_valid_utf8(text);
  if (stampede::report::to_valid_utf8(valid) != valid) std::abort();
  try {
    const stampede::report::RunResult run = stampede::report::read_results_json(text);
    const stampede::report::RunResult again =
        stampede::report::read_results_json(stampede::report::results_json(run));
    if (again.results.size() != run.results.size()) std::abort();
  } catch (const stampede::report::ResultsFormatError&) {
  }
  return 0;
}
