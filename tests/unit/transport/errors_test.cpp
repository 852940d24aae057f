// The words a user reads when a connection fails.
#include "transport/errors.hpp"

#include <gtest/gtest.h>

#include <boost/asio/error.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/system/errc.hpp>

namespace stampede::transport {
namespace {

namespace asio_error = boost::asio::error;
using boost::system::errc::make_error_code;
using boost::system::errc::errc_t;

std::string reason(Step step, boost::system::error_code code) {
  return std::string(failure_reason(Failure{step, code, {}}));
}

TEST(TransportErrors, ReasonsByStep) {
  EXPECT_EQ(reason(Step::resolve, asio_error::host_not_found), "dns");
  EXPECT_EQ(reason(Step::open, make_error_code(errc_t::too_many_files_open)), "fd");
  EXPECT_EQ(reason(Step::open, make_error_code(errc_t::too_many_files_open_in_system)), "fd");
  EXPECT_EQ(reason(Step::bind, make_error_code(errc_t::address_in_use)), "ports");
  EXPECT_EQ(reason(Step::connect, make_error_code(errc_t::address_not_available)), "ports");
  EXPECT_EQ(reason(Step::connect, asio_error::connection_refused), "refused");
  EXPECT_EQ(reason(Step::connect, asio_error::timed_out), "timeout");
  EXPECT_EQ(reason(Step::connect, asio_error::network_unreachable), "unreachable");
  EXPECT_EQ(reason(Step::connect, asio_error::host_unreachable), "unreachable");
  EXPECT_EQ(reason(Step::handshake, asio_error::connection_reset), "tls");
  EXPECT_EQ(reason(Step::read, asio_error::eof), "closed");
  EXPECT_EQ(reason(Step::read, boost::asio::ssl::error::stream_truncated), "closed");
  EXPECT_EQ(reason(Step::read, asio_error::connection_reset), "reset");
  EXPECT_EQ(reason(Step::write, asio_error::broken_pipe), "reset");
  EXPECT_EQ(reason(Step::write, asio_error::operation_aborted), "closed");
}

bool exhausted(Step step, boost::system::error_code code) { return is_local_exhaustion(Failure{step, code, {}}); }

TEST(TransportErrors, LocalExhaustionIsTheGeneratorRunningOut) {
  EXPECT_TRUE(exhausted(Step::open, make_error_code(errc_t::too_many_files_open)));
  EXPECT_TRUE(exhausted(Step::open, make_error_code(errc_t::too_many_files_open_in_system)));
  EXPECT_TRUE(exhausted(Step::open, make_error_code(errc_t::no_buffer_space)));
  EXPECT_TRUE(exhausted(Step::open, make_error_code(errc_t::not_enough_memory)));
  EXPECT_TRUE(exhausted(Step::bind, make_error_code(errc_t::address_in_use)));
  EXPECT_TRUE(exhausted(Step::connect, make_error_code(errc_t::address_not_available)));
  EXPECT_TRUE(exhausted(Step::connect, make_error_code(errc_t::address_in_use)));
  EXPECT_TRUE(exhausted(Step::write, make_error_code(errc_t::no_buffer_space)));
  // The errno as the socket calls report it (system category), not only the portable one.
  EXPECT_TRUE(exhausted(Step::open, boost::system::error_code(EMFILE, boost::system::system_category())));
  // The target's doing, or a mistake in the scenario: trying again later changes nothing.
  EXPECT_FALSE(exhausted(Step::connect, asio_error::connection_refused));
  EXPECT_FALSE(exhausted(Step::connect, asio_error::timed_out));
  EXPECT_FALSE(exhausted(Step::bind, make_error_code(errc_t::address_not_available)));
  EXPECT_FALSE(exhausted(Step::read, asio_error::connection_reset));
  EXPECT_FALSE(exhausted(Step::resolve, asio_error::host_not_found));
}

TEST(TransportErrors, OutOfSocketMemoryHasAReasonOfItsOwn) {
  for (const auto step : {Step::open, Step::connect, Step::write}) {
    const Failure failure{step, make_error_code(errc_t::no_buffer_space), {}};
    EXPECT_EQ(failure_reason(failure), "memory");
    const std::string text = describe_failure(failure);
    EXPECT_NE(text.find("no memory left for sockets"), std::string::npos) << text;
    EXPECT_NE(text.find("tcp_mem"), std::string::npos) << text;
  }
  EXPECT_EQ(failure_reason(Failure{Step::open, make_error_code(errc_t::not_enough_memory), {}}), "memory");
}

TEST(TransportErrors, OutOfDescriptorsGivesTheRemedies) {
  const std::string text = describe_failure(Failure{Step::open, make_error_code(errc_t::too_many_files_open), {}});
  EXPECT_NE(text.find("file descriptors"), std::string::npos) << text;
  EXPECT_NE(text.find("fewer VUs per process"), std::string::npos) << text;
  EXPECT_NE(text.find("more processes"), std::string::npos) << text;
  EXPECT_NE(text.find("ulimit -n"), std::string::npos) << text;
}

TEST(TransportErrors, OutOfPortsPointsToSourceAddresses) {
  const std::string text =
      describe_failure(Failure{Step::connect, make_error_code(errc_t::address_not_available), "127.0.0.1:80"});
  EXPECT_NE(text.find("ephemeral ports"), std::string::npos) << text;
  EXPECT_NE(text.find("local_addresses"), std::string::npos) << text;
  EXPECT_NE(text.find("127.0.0.1:80"), std::string::npos) << text;
}

TEST(TransportErrors, PeerGoneIsWhatAKeepAliveRetryMayFollow) {
  EXPECT_TRUE(is_peer_gone(asio_error::eof));
  EXPECT_TRUE(is_peer_gone(asio_error::connection_reset));
  EXPECT_TRUE(is_peer_gone(asio_error::broken_pipe));
  EXPECT_TRUE(is_peer_gone(boost::asio::ssl::error::stream_truncated));
  EXPECT_FALSE(is_peer_gone(asio_error::timed_out));
  EXPECT_FALSE(is_peer_gone(asio_error::operation_aborted));
}

TEST(TransportErrors, NoCertificateProblemWithoutAConnection) { EXPECT_EQ(certificate_problem(nullptr), ""); }

}  // namespace
}  // namespace stampede::transport
