#include "proto/permessage_deflate.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include <random>
#include <string>
#include <vector>

#include "bytes.hpp"

namespace stampede::proto::ws {
namespace {

using stampede::testing::bytes;

Extension extension(std::string_view header) {
  std::vector<Extension> out;
  EXPECT_TRUE(parse_extensions(header, out)) << header;
  return out.empty() ? Extension{} : out.front();
}

std::string phoenix_like(int i) {
  return R"([null,")" + std::to_string(i) + R"(","room:lobby","new_msg",{"body":"message number )" +
         std::to_string(i) + R"(","user":"someone@example.com"}])";
}

std::string compress(Deflater& deflater, std::string_view message) {
  std::string out;
  deflater.compress(message, out);
  return out;
}

std::string inflate(Inflater& inflater, std::string_view compressed) {
  std::string out;
  std::string why;
  EXPECT_EQ(inflater.decompress(compressed, out, why), Inflater::Result::Ok) << why;
  return out;
}

// ---- negotiation ------------------------------------------------------------------------------

TEST(PermessageDeflate, TheClientOffersToLetTheServerLimitItsWindow) {
  EXPECT_EQ(deflate_offer(), "permessage-deflate; client_max_window_bits");
}

TEST(PermessageDeflate, ServerResponsesAreReadOrRefused) {
  std::string why;
  EXPECT_EQ(deflate_params_from_response(extension("permessage-deflate"), why), DeflateParams{});
  const auto all = deflate_params_from_response(
      extension("permessage-deflate; server_no_context_takeover; client_no_context_takeover; "
                "server_max_window_bits=10; client_max_window_bits=\"9\""),
      why);
  ASSERT_TRUE(all.has_value()) << why;
  EXPECT_TRUE(all->server_no_context_takeover);
  EXPECT_TRUE(all->client_no_context_takeover);
  EXPECT_EQ(all->server_max_window_bits, 10);
  EXPECT_EQ(all->client_max_window_bits, 9);

  const std::vector<std::pair<std::string, std::string>> refused = {
      {"permessage-deflate; server_max_window_bits", "needs a value"},
      {"permessage-deflate; client_max_window_bits", "needs a value"},
      {"permessage-deflate; server_max_window_bits=7", "from 8 to 15"},
      {"permessage-deflate; server_max_window_bits=16", "from 8 to 15"},
      {"permessage-deflate; server_max_window_bits=010", "from 8 to 15"},
      {"permessage-deflate; server_no_context_takeover=1", "takes no value"},
      {"permessage-deflate; server_no_context_takeover; server_no_context_takeover", "twice"},
      {"permessage-deflate; mystery", "unknown parameter mystery"},
  };
  for (const auto& [header, words] : refused) {
    why.clear();
    EXPECT_FALSE(deflate_params_from_response(extension(header), why).has_value()) << header;
    EXPECT_NE(why.find(words), std::string::npos) << header << ": " << why;
  }
}

TEST(PermessageDeflate, ServerAcceptsTheFirstAcceptableOffer) {
  std::vector<Extension> offers;
  ASSERT_TRUE(parse_extensions(
      "permessage-deflate; mystery, permessage-deflate; server_max_window_bits=12; client_max_window_bits=11; "
      "client_no_context_takeover, permessage-deflate",
      offers));
  const auto params = deflate_accept_offer(offers);
  ASSERT_TRUE(params.has_value());
  EXPECT_EQ(params->server_max_window_bits, 12);
  EXPECT_EQ(params->client_max_window_bits, 11);
  EXPECT_TRUE(params->client_no_context_takeover);
  EXPECT_FALSE(params->server_no_context_takeover);
  EXPECT_EQ(deflate_response(*params),
            "permessage-deflate; client_no_context_takeover; server_max_window_bits=12; client_max_window_bits=11");

  std::vector<Extension> none;
  ASSERT_TRUE(parse_extensions("x-webkit-deflate-frame, permessage-deflate; server_max_window_bits=99", none));
  EXPECT_FALSE(deflate_accept_offer(none).has_value());
  EXPECT_FALSE(deflate_accept_offer({}).has_value());
}

TEST(PermessageDeflate, ServerLimitsApplyWhereTheOfferAllowsThem) {
  DeflateParams limits;
  limits.server_no_context_takeover = true;
  limits.server_max_window_bits = 10;
  limits.client_max_window_bits = 9;
  std::vector<Extension> browser;
  ASSERT_TRUE(parse_extensions("permessage-deflate; client_max_window_bits", browser));
  const auto params = deflate_accept_offer(browser, limits);
  ASSERT_TRUE(params.has_value());
  EXPECT_EQ(deflate_response(*params),
            "permessage-deflate; server_no_context_takeover; server_max_window_bits=10; client_max_window_bits=9");
  // Without client_max_window_bits in the offer the client's window cannot be limited.
  std::vector<Extension> plain;
  ASSERT_TRUE(parse_extensions("permessage-deflate", plain));
  EXPECT_EQ(deflate_accept_offer(plain, limits)->client_max_window_bits, 15);
}

// ---- compressing and inflating ----------------------------------------------------------------

TEST(PermessageDeflate, RfcExamplesInflate) {
  // RFC 7692 7.2.3.1 and 7.2.3.2: "Hello", then "Hello" again with the shared window.
  Inflater inflater(DeflateParams{}, Role::Client, 1024);
  EXPECT_EQ(inflate(inflater, bytes({0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00})), "Hello");
  EXPECT_EQ(inflate(inflater, bytes({0xf2, 0x00, 0x11, 0x00, 0x00})), "Hello");
  // 7.2.3.3: a stored block.
  EXPECT_EQ(inflate(inflater, bytes({0x00, 0x05, 0x00, 0xfa, 0xff, 0x48, 0x65, 0x6c, 0x6c, 0x6f, 0x00})), "Hello");
  // 7.2.3.4: BFINAL set; the next message starts a new stream.
  Inflater fresh(DeflateParams{}, Role::Client, 1024);
  EXPECT_EQ(inflate(fresh, bytes({0xf3, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00, 0x00})), "Hello");
  EXPECT_EQ(inflate(fresh, bytes({0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00})), "Hello");
}

TEST(PermessageDeflate, TheFirstHelloCompressesAsInTheRfc) {
  Deflater deflater(DeflateParams{}, Role::Server);
  EXPECT_EQ(compress(deflater, "Hello"), bytes({0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00}));
}

TEST(PermessageDeflate, RoundTripsWithContextTakeover) {
  const DeflateParams params;
  Deflater client_side(params, Role::Client);
  Inflater server_side(params, Role::Server, 1 << 20);
  std::size_t first_size = 0;
  for (int i = 0; i < 20; ++i) {
    const std::string message = phoenix_like(i);
    const std::string wire = compress(client_side, message);
    if (i == 0) first_size = wire.size();
    if (i > 0) {
      EXPECT_LT(wire.size(), first_size / 2) << "the shared window should make repeats cheap";
    }
    EXPECT_EQ(inflate(server_side, wire), message);
  }
  EXPECT_TRUE(client_side.holds_state());
  EXPECT_TRUE(server_side.holds_state());
}

TEST(PermessageDeflate, NoContextTakeoverFreesTheStateBetweenMessages) {
  DeflateParams params;
  params.server_no_context_takeover = true;
  params.client_no_context_takeover = true;
  Deflater server_side(params, Role::Server);
  Inflater client_side(params, Role::Client, 1 << 20);
  std::string previous;
  for (int i = 0; i < 5; ++i) {
    const std::string wire = compress(server_side, phoenix_like(7));
    EXPECT_FALSE(server_side.holds_state());
    if (i > 0) {
      EXPECT_EQ(wire, previous) << "each message compresses on its own";
    }
    previous = wire;
    EXPECT_EQ(inflate(client_side, wire), phoenix_like(7));
    EXPECT_FALSE(client_side.holds_state());
  }
}

TEST(PermessageDeflate, EachSideUsesItsOwnParameters) {
  DeflateParams params;
  params.client_no_context_takeover = true;  // only the client's messages are independent
  Deflater client_side(params, Role::Client);
  Deflater server_side(params, Role::Server);
  compress(client_side, "abc");
  compress(server_side, "abc");
  EXPECT_FALSE(client_side.holds_state());
  EXPECT_TRUE(server_side.holds_state());
}

TEST(PermessageDeflate, SmallWindowsIncludingEightBits) {
  for (int bits = 8; bits <= 15; ++bits) {
    DeflateParams params;
    params.client_max_window_bits = bits;
    params.server_max_window_bits = bits;
    Deflater deflater(params, Role::Client);
    Inflater inflater(params, Role::Server, 1 << 20);
    std::mt19937 rng(static_cast<unsigned>(bits));
    std::string text;
    for (int i = 0; i < 3000; ++i) text += "word" + std::to_string(rng() % 50) + " ";
    for (int round = 0; round < 3; ++round) EXPECT_EQ(inflate(inflater, compress(deflater, text)), text) << bits;
  }
}

TEST(PermessageDeflate, EmptyAndIncompressibleMessages) {
  Deflater deflater(DeflateParams{}, Role::Client);
  Inflater inflater(DeflateParams{}, Role::Server, 4 << 20);
  EXPECT_EQ(compress(deflater, ""), std::string(1, '\0'));  // RFC 7692 7.2.3.6
  EXPECT_EQ(inflate(inflater, std::string(1, '\0')), "");
  std::mt19937 rng(3);
  std::string noise(3 << 20, '\0');
  for (auto& c : noise) c = static_cast<char>(rng());
  const std::string wire = compress(deflater, noise);
  EXPECT_GT(wire.size(), noise.size());
  EXPECT_EQ(inflate(inflater, wire), noise);
  EXPECT_EQ(inflate(inflater, compress(deflater, "after the noise")), "after the noise");
}

TEST(PermessageDeflate, CompressedBytesAreAppended) {
  Deflater deflater(DeflateParams{}, Role::Client);
  std::string out = "header";
  deflater.compress("Hello", out);
  EXPECT_EQ(out.substr(0, 6), "header");
  Inflater inflater(DeflateParams{}, Role::Server, 100);
  std::string message = "prefix:";
  std::string why;
  ASSERT_EQ(inflater.decompress(std::string_view(out).substr(6), message, why), Inflater::Result::Ok) << why;
  EXPECT_EQ(message, "prefix:Hello");
}

TEST(PermessageDeflate, PlainZlibInflatesWhatWeDeflate) {
  Deflater deflater(DeflateParams{}, Role::Client);
  const std::string message = phoenix_like(42);
  std::string wire = compress(deflater, message);
  wire += bytes({0x00, 0x00, 0xff, 0xff});
  z_stream z{};
  ASSERT_EQ(inflateInit2(&z, -15), Z_OK);
  std::string out(1024, '\0');
  z.next_in = reinterpret_cast<Bytef*>(wire.data());
  z.avail_in = static_cast<uInt>(wire.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(inflate(&z, Z_SYNC_FLUSH), Z_OK);
  out.resize(z.total_out);
  inflateEnd(&z);
  EXPECT_EQ(out, message);
}

// ---- limits and garbage ------------------------------------------------------------------------

TEST(PermessageDeflate, AZipBombStopsAtTheLimitWithoutAllocatingMore) {
  Deflater deflater(DeflateParams{}, Role::Server);
  const std::string bomb = compress(deflater, std::string(64 << 20, '\0'));  // 64 MiB of zeros
  EXPECT_LT(bomb.size(), 128u * 1024);
  constexpr std::size_t kLimit = 1 << 20;
  Inflater inflater(DeflateParams{}, Role::Client, kLimit);
  std::string out = "kept";
  std::string why;
  EXPECT_EQ(inflater.decompress(bomb, out, why), Inflater::Result::TooBig);
  EXPECT_EQ(out, "kept");
  EXPECT_LE(out.capacity(), 2 * kLimit) << "the output never grew far past the limit";
  EXPECT_NE(why.find("more than 1048576 bytes"), std::string::npos) << why;
  EXPECT_FALSE(inflater.holds_state()) << "the context is gone with the failed message";
}

TEST(PermessageDeflate, ExactlyTheLimitIsAllowed) {
  Deflater deflater(DeflateParams{}, Role::Server);
  Inflater inflater(DeflateParams{}, Role::Client, 1000);
  EXPECT_EQ(inflate(inflater, compress(deflater, std::string(1000, 'a'))), std::string(1000, 'a'));
  std::string out;
  std::string why;
  EXPECT_EQ(inflater.decompress(compress(deflater, std::string(1001, 'a')), out, why), Inflater::Result::TooBig);
}

TEST(PermessageDeflate, CorruptDataIsReported) {
  Inflater inflater(DeflateParams{}, Role::Client, 1 << 20);
  std::string out;
  std::string why;
  EXPECT_EQ(inflater.decompress(bytes({0xff, 0xff, 0xff, 0xff}), out, why), Inflater::Result::Corrupt);
  EXPECT_NE(why.find("corrupt"), std::string::npos) << why;
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace stampede::proto::ws
