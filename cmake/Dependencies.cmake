# Every dependency comes from Debian 12's packages (scripts/setup.sh installs them).
find_package(Threads REQUIRED)
find_package(Boost 1.81 REQUIRED COMPONENTS json url)
find_package(OpenSSL REQUIRED)
find_package(ZLIB REQUIRED)
find_package(fmt REQUIRED)
find_package(CLI11 REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(LUAJIT REQUIRED IMPORTED_TARGET luajit)
# io_uring, for the batched socket sends (docs/design/028-batched-sends-through-io-uring.md).
pkg_check_modules(URING REQUIRED IMPORTED_TARGET liburing)
# HTTP/2 framing, HPACK and flow control (docs/design/041-http2.md): the proto layer's HTTP/2
# codecs wrap its session API; nothing else includes it.
pkg_check_modules(NGHTTP2 REQUIRED IMPORTED_TARGET libnghttp2)

add_library(stampede_deps INTERFACE)
target_link_libraries(stampede_deps INTERFACE
  Boost::boost Boost::json Boost::url OpenSSL::SSL OpenSSL::Crypto ZLIB::ZLIB
  fmt::fmt PkgConfig::LUAJIT Threads::Threads)
# Asio: no deprecated names, and one io_context per thread means no internal locking is needed
# beyond what Asio does for cross-thread posts.
target_compile_definitions(stampede_deps INTERFACE BOOST_ASIO_NO_DEPRECATED)
# Asio keeps a thread's freed handler memory for reuse, 2 blocks by default: a turn that starts
# tens of requests (or completes tens of reads) allocated the rest with malloc. It changes
# Asio's thread_info_base, so every file that includes Asio must see it: they all link this.
target_compile_definitions(stampede_deps INTERFACE BOOST_ASIO_RECYCLING_ALLOCATOR_CACHE_SIZE=16)

# Optional: MPI (Debian's OpenMPI) for runs spread over processes and machines. Only its C
# API is used (no C++ bindings).
set(MPI_CXX_SKIP_MPICXX ON)
find_package(MPI COMPONENTS CXX)
