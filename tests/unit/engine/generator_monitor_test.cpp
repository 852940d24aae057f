#include "engine/generator_monitor.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <vector>

#include <gtest/gtest.h>

namespace stampede::engine {
namespace {

// The descriptor count the progress line and generator.fds show: exact, whichever way the
// kernel lets us count (stat's size on Linux 6.2+, else a listing of /proc/self/fd).
TEST(GeneratorMonitor, CountsOpenDescriptorsExactly) {
  const long before = GeneratorMonitor::open_fds();
  ASSERT_GT(before, 2);  // at least stdin, stdout and stderr
  std::vector<int> opened;
  for (int i = 0; i < 25; ++i) opened.push_back(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  EXPECT_EQ(GeneratorMonitor::open_fds(), before + 25);
  for (int fd : opened) ::close(fd);
  EXPECT_EQ(GeneratorMonitor::open_fds(), before);
}

}  // namespace
}  // namespace stampede::engine
