#pragma once
// The heap as one thread of the clients' tests uses it: C++ allocations through a replaced
// operator new (counted_heap.cpp, for the whole unit_clients binary) and OpenSSL's through its
// allocator hooks, installed before anything else in the process allocates through OpenSSL.
// Per thread, so the test servers' threads are not counted; only while `counting`.
namespace stampede::testing::counted_heap {

extern thread_local bool counting;
extern thread_local long long live_bytes;   // allocated minus freed, usable sizes
extern thread_local long long allocations;  // allocations made (C++ and OpenSSL)
// False when OpenSSL allocated before the hooks could be installed: its bytes go uncounted.
bool openssl_hooked();

}  // namespace stampede::testing::counted_heap
