#include "transport/fd_table.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>

namespace stampede::transport {

std::size_t presize_fd_table() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == 0) return 0;
  const std::size_t slots = std::min<std::size_t>(static_cast<std::size_t>(limit.rlim_cur), kMaxPresizedFds);
  if (slots <= 1024) return 0;  // the kernel's first tables; nothing worth doing
  // Placing a descriptor at the highest slot makes the kernel size the table for it; closing
  // it leaves the table as it is (tables never shrink while the process lives).
  const int highest = static_cast<int>(slots) - 1;
  const int fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, highest);
  if (fd < 0) return 0;
  close(fd);
  return slots;
}

}  // namespace stampede::transport
