#include "dashboard/event_stream.hpp"

#include <gtest/gtest.h>

namespace stampede::dashboard {
namespace {

TEST(EventStream, PlainMessage) { EXPECT_EQ(format_event("", R"({"second":3})"), "data: {\"second\":3}\n\n"); }

TEST(EventStream, NamedEvent) { EXPECT_EQ(format_event("done", "{}"), "event: done\ndata: {}\n\n"); }

TEST(EventStream, EveryLineBreakStartsAnotherDataField) {
  EXPECT_EQ(format_event("", "a\nb\r\nc\rd"), "data: a\ndata: b\ndata: c\ndata: d\n\n");
  EXPECT_EQ(format_event("", "end\n"), "data: end\ndata: \n\n");
}

}  // namespace
}  // namespace stampede::dashboard
