// The hot path must not allocate: looking a name up in the sink's id cache (by
// string_view), and recording into a metric that already has its buckets.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <string_view>

#include "metrics/metric_sink.hpp"

namespace {
std::atomic<long> g_allocations{0};
}  // namespace

// Counts every allocation of this test binary; the other tests do not notice.
void* operator new(std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace stampede::metrics {
namespace {

TEST(HotPath, CachedIdsAndRecordingDoNotAllocate) {
  Registry registry;
  MetricSink sink(registry);
  // Longer than any small-string buffer, so building a std::string would allocate.
  constexpr std::string_view kName = "http.request.a_rather_long_request_name_for_the_report";
  const MetricId id = sink.id(kName, Kind::Timing);
  const MetricId errors = sink.id("http.request.errors", Kind::Counter);
  sink.record(id, 12'000'000);
  sink.add_error(errors, "refused");

  const long before = g_allocations.load();
  for (int i = 0; i < 1000; ++i) {
    EXPECT_EQ(sink.id(kName, Kind::Timing), id);
    sink.record(id, 12'000'000 + i);
    sink.add_error(errors, std::string_view("refused"));
    sink.request_sent();
  }
  EXPECT_EQ(g_allocations.load() - before, 0);
}

}  // namespace
}  // namespace stampede::metrics
