// The replaced operator new and OpenSSL allocator hooks behind counted_heap.hpp.
#include "clients/counted_heap.hpp"

#include <malloc.h>
#include <openssl/crypto.h>

#include <algorithm>
#include <cstdlib>
#include <new>

namespace stampede::testing::counted_heap {

thread_local bool counting = false;
thread_local long long live_bytes = 0;
thread_local long long allocations = 0;

namespace {

void count_in(void* p) {
  if (!counting || p == nullptr) return;
  live_bytes += static_cast<long long>(malloc_usable_size(p));
  ++allocations;
}
void count_out(void* p) {
  if (counting && p != nullptr) live_bytes -= static_cast<long long>(malloc_usable_size(p));
}

void* counted_malloc(std::size_t n) {
  void* p = std::malloc(n == 0 ? 1 : n);
  if (p == nullptr) throw std::bad_alloc();
  count_in(p);
  return p;
}

void* openssl_malloc(std::size_t n, const char*, int) {
  void* p = std::malloc(n);
  count_in(p);
  return p;
}
void* openssl_realloc(void* old, std::size_t n, const char*, int) {
  count_out(old);
  void* p = std::realloc(old, n);
  count_in(p == nullptr ? old : p);
  return p;
}
void openssl_free(void* p, const char*, int) {
  count_out(p);
  std::free(p);
}

// Runs before the default-priority static constructors (Asio initialises OpenSSL in one).
struct HookOpenSsl {
  HookOpenSsl() { hooked = CRYPTO_set_mem_functions(openssl_malloc, openssl_realloc, openssl_free) == 1; }
  bool hooked = false;
};
__attribute__((init_priority(101))) HookOpenSsl openssl_hook;

}  // namespace

bool openssl_hooked() { return openssl_hook.hooked; }

}  // namespace stampede::testing::counted_heap

using stampede::testing::counted_heap::count_in;
using stampede::testing::counted_heap::count_out;
using stampede::testing::counted_heap::counted_malloc;

void* operator new(std::size_t n) { return counted_malloc(n); }
void* operator new(std::size_t n, std::align_val_t a) {
  const std::size_t align = std::max(static_cast<std::size_t>(a), sizeof(void*));
  void* p = std::aligned_alloc(align, (n + align - 1) / align * align);
  if (p == nullptr) throw std::bad_alloc();
  count_in(p);
  return p;
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  void* p = std::malloc(n == 0 ? 1 : n);
  count_in(p);
  return p;
}
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  try {
    return operator new(n, a);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}
void operator delete(void* p) noexcept {
  count_out(p);
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept { operator delete(p); }
void operator delete(void* p, std::align_val_t) noexcept { operator delete(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { operator delete(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { operator delete(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { operator delete(p); }

