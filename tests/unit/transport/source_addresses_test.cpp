#include "transport/source_addresses.hpp"

#include <gtest/gtest.h>

namespace stampede::transport {
namespace {

using boost::asio::ip::make_address;
using boost::asio::ip::tcp;

TEST(TransportSourceAddresses, EmptyMeansTheKernelChooses) {
  SourceAddresses none;
  EXPECT_TRUE(none.empty());
  EXPECT_FALSE(none.take_for(tcp::endpoint(make_address("127.0.0.1"), 80)).has_value());
}

TEST(TransportSourceAddresses, RoundRobinWithinTheEndpointsFamily) {
  const std::vector<boost::asio::ip::address> all = {make_address("10.0.0.1"), make_address("fd00::1"),
                                                     make_address("10.0.0.2")};
  std::size_t next = 0;
  SourceAddresses sources(all, next);
  const tcp::endpoint v4(make_address("192.0.2.10"), 80);
  const tcp::endpoint v6(make_address("2001:db8::10"), 80);
  EXPECT_EQ(sources.take_for(v4), make_address("10.0.0.1"));
  EXPECT_EQ(sources.take_for(v4), make_address("10.0.0.2"));
  EXPECT_EQ(sources.take_for(v4), make_address("10.0.0.1"));
  EXPECT_EQ(sources.take_for(v6), make_address("fd00::1"));
  EXPECT_EQ(sources.take_for(v4), make_address("10.0.0.2"));
  EXPECT_EQ(next, 0u);  // the position is the caller's, shared by every connection of the worker
}

TEST(TransportSourceAddresses, NoAddressOfThatFamily) {
  const std::vector<boost::asio::ip::address> v4_only = {make_address("127.0.0.2")};
  std::size_t next = 0;
  SourceAddresses sources(v4_only, next);
  EXPECT_FALSE(sources.take_for(tcp::endpoint(make_address("::1"), 80)).has_value());
}

}  // namespace
}  // namespace stampede::transport
