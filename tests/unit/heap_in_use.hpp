#pragma once
// The whole process's heap in use, for the tests that measure memory per connection.
// glibc's mallinfo2 sums every arena; AddressSanitizer replaces malloc, glibc's statistics then
// stay empty, and the sanitizer's allocator is asked instead. GCC says ASan is on with
// __SANITIZE_ADDRESS__, clang with __has_feature(address_sanitizer): CI's sanitizer tree is
// clang, a developer's may be GCC, and a test that misses the macro measures 0 bytes.
#include <malloc.h>

#include <cstddef>

#if defined(__SANITIZE_ADDRESS__)
#define STAMPEDE_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define STAMPEDE_UNDER_ASAN 1
#endif
#endif

#if defined(STAMPEDE_UNDER_ASAN)
// From the sanitizer runtime (declared here: Debian's GCC ships no sanitizer headers).
extern "C" std::size_t __sanitizer_get_current_allocated_bytes();
#endif

namespace stampede::testing {

inline std::size_t heap_in_use() {
#if defined(STAMPEDE_UNDER_ASAN)
  return __sanitizer_get_current_allocated_bytes();
#else
  return mallinfo2().uordblks;
#endif
}

}  // namespace stampede::testing
