#include "transport/fd_table.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>
#include <fstream>
#include <string>

namespace {

// The kernel's own figure for the current table: "FDSize:" in /proc/self/status.
std::size_t fd_table_size() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("FDSize:", 0) == 0) return std::stoul(line.substr(7));
  }
  return 0;
}

TEST(FdTable, PresizingMakesTheTableHoldEveryDescriptorTheLimitAllows) {
  rlimit limit{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &limit), 0);
  const std::size_t wanted = std::min<std::size_t>(limit.rlim_cur, stampede::transport::kMaxPresizedFds);
  if (wanted <= 1024) GTEST_SKIP() << "the open-file limit is too low to presize anything";
  const std::size_t before = fd_table_size();
  EXPECT_EQ(stampede::transport::presize_fd_table(), wanted);
  EXPECT_GE(fd_table_size(), wanted) << "the table had " << before << " slots before";
}

}  // namespace
