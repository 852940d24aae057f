#include "cli/result_files.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "report/badge.hpp"
#include "report/find_limit_table.hpp"
#include "report/html_report.hpp"
#include "report/json_results.hpp"
#include "report/junit_xml.hpp"

namespace stampede::cli {

bool write_text_file(const std::string& path, std::string_view text, std::string& error) {
  // A regular file (or none yet) is replaced whole: written beside it, then renamed over
  // it, so that a reader or a process killed mid-write never leaves half a file (the
  // checkpoints of cli/results_checkpoint.hpp rewrite it every second). /dev/stdout, a
  // pipe or a device is written as it is.
  struct stat st{};
  const bool special = stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
  const std::string written = special ? path : fmt::format("{}.{}.partial", path, getpid());
  std::FILE* f = std::fopen(written.c_str(), "wb");
  if (f == nullptr) {
    error = fmt::format("cannot write {}: {}", path, std::strerror(errno));
    return false;
  }
  // A full disk may only show at the flush or the close: check every step.
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  int saved = ok ? 0 : errno;
  if (std::fflush(f) != 0 && ok) {
    ok = false;
    saved = errno;
  }
  if (std::fclose(f) != 0 && ok) {
    ok = false;
    saved = errno;
  }
  if (ok && !special && std::rename(written.c_str(), path.c_str()) != 0) {
    ok = false;
    saved = errno;
  }
  if (!ok) {
    error = fmt::format("cannot write {}: {}", path, std::strerror(saved));
    if (!special) std::remove(written.c_str());
  }
  return ok;
}

bool write_result_files(const ResultOutputs& outputs, const report::RunResult& run) {
  bool all_written = true;
  const auto write = [&](const std::string& path, const auto& render) {
    if (path.empty()) return;
    std::string error;
    if (!write_text_file(path, render(), error)) {
      std::fprintf(stderr, "error: %s\n", error.c_str());
      all_written = false;
    }
  };
  write(outputs.json, [&] { return report::results_json(run) + '\n'; });
  write(outputs.badge, [&] { return report::render_badge_svg(report::verdict_badge(run, report::limit_badge_text(run))); });
  write(outputs.junit, [&] { return report::junit_xml(run); });
  write(outputs.html, [&] { return report::html_report(run); });
  return all_written;
}

}  // namespace stampede::cli
