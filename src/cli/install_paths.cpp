#include "cli/install_paths.hpp"

#include <filesystem>
#include <system_error>

#ifndef STAMPEDE_SOURCE_DIR
#define STAMPEDE_SOURCE_DIR ""
#endif
#ifndef STAMPEDE_DATA_SUBDIR
#define STAMPEDE_DATA_SUBDIR "share/stampede"
#endif
#ifndef STAMPEDE_DOC_SUBDIR
#define STAMPEDE_DOC_SUBDIR "share/doc/stampede"
#endif

namespace stampede::cli {

namespace fs = std::filesystem;

namespace {

// The install prefix of this binary: /usr for /usr/bin/stampede.
fs::path prefix_of_binary() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  return exe.parent_path().parent_path();
}

// `installed` under the binary's prefix, else `in_source` under the source tree.
std::string first_existing(const char* installed, const char* in_source, const char* marker) {
  std::error_code ec;
  const fs::path near_binary = prefix_of_binary() / installed;
  if (fs::exists(near_binary / marker, ec)) return near_binary.string();
  const fs::path source = fs::path(STAMPEDE_SOURCE_DIR) / in_source;
  if (!std::string_view(STAMPEDE_SOURCE_DIR).empty() && fs::exists(source / marker, ec)) return source.string();
  return {};
}

}  // namespace

std::string types_dir() {
  return first_existing(STAMPEDE_DATA_SUBDIR "/types", "types", "stampede.lua");
}

std::string docs_dir() { return first_existing(STAMPEDE_DOC_SUBDIR, "docs", "reference/lua.md"); }

}  // namespace stampede::cli
