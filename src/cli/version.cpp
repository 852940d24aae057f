#include "cli/version.hpp"

#include <boost/version.hpp>
#include <fmt/format.h>
#include <luajit.h>
#include <openssl/opensslv.h>

// STAMPEDE_COMMIT, regenerated on every build (cmake/VersionInfo.cmake).
#include "version_commit.hpp"

#ifndef STAMPEDE_VERSION
#define STAMPEDE_VERSION "0.0.0"
#endif
#ifndef STAMPEDE_COMMIT
#define STAMPEDE_COMMIT "unknown"
#endif
#ifndef STAMPEDE_BUILD_TYPE
#define STAMPEDE_BUILD_TYPE "unknown"
#endif
#ifndef STAMPEDE_BUILD_OPTIONS
#define STAMPEDE_BUILD_OPTIONS ""
#endif

namespace stampede::cli {

std::string version_line() { return fmt::format("stampede {} ({})", STAMPEDE_VERSION, STAMPEDE_COMMIT); }

std::string version_number() { return STAMPEDE_VERSION; }
std::string version_commit() { return STAMPEDE_COMMIT; }

std::string version_details() {
  return fmt::format(
      "stampede {}\ncommit {}\nbuild {} ({}), {} {}.{}.{}\nboost {}.{}.{}, {}, {}",
      STAMPEDE_VERSION, STAMPEDE_COMMIT, STAMPEDE_BUILD_TYPE, STAMPEDE_BUILD_OPTIONS,
#if defined(__clang__)
      "clang", __clang_major__, __clang_minor__, __clang_patchlevel__,
#else
      "gcc", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__,
#endif
      BOOST_VERSION / 100000, BOOST_VERSION / 100 % 1000, BOOST_VERSION % 100, LUAJIT_VERSION, OPENSSL_VERSION_TEXT);
}

}  // namespace stampede::cli
