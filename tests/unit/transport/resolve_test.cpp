// The per-loop resolver: no I/O for literals and localhost, one system lookup per name
// however many ask at once, and the answer kept for the rest of the run.
#include "transport/resolve.hpp"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <chrono>

namespace stampede::transport {
namespace {

namespace asio = boost::asio;

TEST(TransportResolver, OnePerLoop) {
  asio::io_context a;
  asio::io_context b;
  EXPECT_EQ(&Resolver::of(a), &Resolver::of(a));
  EXPECT_NE(&Resolver::of(a), &Resolver::of(b));
}

TEST(TransportResolver, LiteralsAndLocalhostNeedNoLookup) {
  asio::io_context io;
  Resolver& resolver = Resolver::of(io);
  auto v4 = resolver.find("127.0.0.1", 80);
  ASSERT_NE(v4, nullptr);
  ASSERT_EQ(v4->size(), 1u);
  EXPECT_EQ(v4->front(), asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 80));

  auto v6 = resolver.find("::1", 443);
  ASSERT_NE(v6, nullptr);
  EXPECT_EQ(v6->front(), asio::ip::tcp::endpoint(asio::ip::make_address("::1"), 443));

  for (const char* name : {"localhost", "LocalHost", "localhost."}) {
    auto local = resolver.find(name, 4000);
    ASSERT_NE(local, nullptr) << name;
    ASSERT_EQ(local->size(), 2u);
    EXPECT_EQ(local->at(0).address(), asio::ip::make_address("127.0.0.1"));  // IPv4 first
    EXPECT_EQ(local->at(1).address(), asio::ip::make_address("::1"));
    EXPECT_EQ(local->at(0).port(), 4000);
  }
  EXPECT_EQ(resolver.find("example.com", 80), nullptr);
  EXPECT_EQ(resolver.lookups_started(), 0u);
}

TEST(TransportResolver, ConcurrentLookupsOfOneNameShareOneSystemLookupAndAreCached) {
  asio::io_context io;
  Resolver& resolver = Resolver::of(io);
  // "127.1" is no address to Asio but getaddrinfo reads it as 127.0.0.1 without asking DNS:
  // the system resolver's path, offline.
  int answered = 0;
  bool inside_call = true;
  for (int i = 0; i < 3; ++i) {
    resolver.async_resolve("127.1", 8080, [&](const boost::system::error_code& ec, Resolver::Endpoints endpoints) {
      EXPECT_FALSE(inside_call);
      EXPECT_FALSE(ec) << ec.message();
      ASSERT_NE(endpoints, nullptr);
      EXPECT_EQ(endpoints->front(), asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 8080));
      ++answered;
    });
  }
  inside_call = false;
  io.run_for(std::chrono::seconds(5));
  EXPECT_EQ(answered, 3);
  EXPECT_EQ(resolver.lookups_started(), 1u);
  EXPECT_NE(resolver.find("127.1", 8080), nullptr);
  EXPECT_EQ(resolver.find("127.1", 8081), nullptr);  // the port is part of the answer
}

TEST(TransportResolver, CachedAnswersAreStillDeliveredFromTheLoop) {
  asio::io_context io;
  bool called = false;
  Resolver::of(io).async_resolve("127.0.0.1", 1, [&](const boost::system::error_code&, Resolver::Endpoints) {
    called = true;
  });
  EXPECT_FALSE(called);
  io.run();
  EXPECT_TRUE(called);
}

TEST(TransportResolver, PendingLookupsDieWithTheLoop) {
  bool called = false;
  {
    asio::io_context io;
    Resolver::of(io).async_resolve("127.1", 1, [&](const boost::system::error_code&, Resolver::Endpoints) {
      called = true;
    });
  }
  EXPECT_FALSE(called);
}

}  // namespace
}  // namespace stampede::transport
