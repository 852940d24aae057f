#pragma once
// Writing result files without ever losing the run: a path that cannot be written (no
// such directory, no permission, a full disk) is an error message on stderr, never an
// exception that would skip the summary or the other files.
#include <string>
#include <string_view>

#include "cli/result_outputs.hpp"
#include "report/run_result.hpp"

namespace stampede::cli {

// Writes `text` to `path` (replacing it). On failure returns false and says why in `error`
// ("cannot write results.json: No space left on device").
bool write_text_file(const std::string& path, std::string_view text, std::string& error);

// Writes the end-of-run files the user asked for (--out, --badge, --junit, --html) for `run`.
// Prints one "error: ..." line on stderr per file that failed; returns false if any did.
bool write_result_files(const ResultOutputs& outputs, const report::RunResult& run);

}  // namespace stampede::cli
