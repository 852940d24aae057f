// The Phoenix-shaped tokens of the LiveView demo: Erlang terms signed like Plug does it,
// the masked CSRF tokens, and what makes each of them refuse to verify.
#include "target/liveview_tokens.hpp"

#include <gtest/gtest.h>

#include "proto/base64.hpp"
#include "target/erlang_term.hpp"

namespace stampede::target {
namespace {

constexpr std::int64_t kNow = 1'796'017'536'262;

TEST(ErlangTerm, ReadsBackWhatItWrites) {
  std::string bytes;
  etf::Writer w(bytes);
  w.version();
  w.tuple(3);
  w.map(2);
  w.atom("id");
  w.binary("phx-x");
  w.binary("pid");
  w.pid("nonode@nohost", 895);
  w.integer(kNow);
  w.integer(-70000);
  const auto term = etf::decode(bytes);
  ASSERT_TRUE(term);
  ASSERT_EQ(term->items.size(), 3u);
  EXPECT_EQ(term->items[0].find("id")->text, "phx-x");
  EXPECT_EQ(term->items[0].find("pid")->integer, 895);
  EXPECT_EQ(term->items[1].integer, kNow);
  EXPECT_EQ(term->items[2].integer, -70000);
  EXPECT_FALSE(etf::decode(bytes + "x"));
  EXPECT_FALSE(etf::decode(bytes.substr(0, bytes.size() - 1)));
}

TEST(ErlangTerm, WritesWhatPhoenixWrote) {
  // The recorded app's session cookie payload: %{"_csrf_token" => "DUoIgtCc7HF30m7IwN8gvn2t"}.
  std::string bytes;
  etf::Writer w(bytes);
  w.version();
  w.map(1);
  w.binary("_csrf_token");
  w.binary("DUoIgtCc7HF30m7IwN8gvn2t");
  EXPECT_EQ(proto::base64url(bytes), "g3QAAAABbQAAAAtfY3NyZl90b2tlbm0AAAAYRFVvSWd0Q2M3SEYzMG03SXdOOGd2bjJ0");
}

TEST(SessionCookie, CarriesTheCsrfSecretAndTheUserAndRefusesTampering) {
  const auto cookie = encode_session_cookie({"DUoIgtCc7HF30m7IwN8gvn2t", "alice"});
  EXPECT_EQ(cookie.substr(0, 8), "SFMyNTY.");
  const auto session = decode_session_cookie(cookie);
  ASSERT_TRUE(session);
  EXPECT_EQ(session->csrf_token, "DUoIgtCc7HF30m7IwN8gvn2t");
  EXPECT_EQ(session->user, "alice");
  auto tampered = cookie;
  tampered[12] = tampered[12] == 'A' ? 'B' : 'A';
  EXPECT_FALSE(decode_session_cookie(tampered));
  EXPECT_FALSE(decode_session_cookie("garbage"));
  EXPECT_EQ(find_cookie("a=1; _demo_key=xyz; b=2", "_demo_key"), "xyz");
  EXPECT_FALSE(find_cookie("a=1; b=2", "_demo_key"));
}

TEST(CsrfToken, EveryMaskOfTheSecretMatchesAndNothingElse) {
  TokenRandom random(1);
  const auto secret = new_csrf_secret(random);
  EXPECT_EQ(secret.size(), 24u);
  const auto a = mask_csrf_token(secret, random);
  const auto b = mask_csrf_token(secret, random);
  EXPECT_EQ(a.size(), 56u);
  EXPECT_NE(a, b);
  EXPECT_TRUE(csrf_token_matches(a, secret));
  EXPECT_TRUE(csrf_token_matches(b, secret));
  EXPECT_FALSE(csrf_token_matches(a, new_csrf_secret(random)));
  EXPECT_FALSE(csrf_token_matches(a.substr(1), secret));
  EXPECT_FALSE(csrf_token_matches(secret, secret));
}

TEST(ViewSessionToken, VerifiesInItsOwnDialectForTwoWeeks) {
  const ViewSessionClaims claims{"phx-GOy8bvtSi4loOZKC", "Elixir.DemoWeb.CounterLive", "default"};
  for (const auto dialect : {LiveViewDialect::V0_20, LiveViewDialect::V1}) {
    const auto token = sign_view_session(dialect, claims, kNow);
    const auto verified = verify_view_session(dialect, token, kNow + 1000);
    ASSERT_TRUE(verified);
    EXPECT_EQ(verified->id, claims.id);
    EXPECT_EQ(verified->view, claims.view);
    EXPECT_EQ(verified->live_session, claims.live_session);
    const auto other = dialect == LiveViewDialect::V1 ? LiveViewDialect::V0_20 : LiveViewDialect::V1;
    EXPECT_FALSE(verify_view_session(other, token, kNow));
    EXPECT_FALSE(verify_view_session(dialect, token, kNow + 15LL * 24 * 3600 * 1000));
  }
  // The same shape as the recorded app's (token format 6, 8 keys): the same payload size.
  const auto ours = sign_view_session(LiveViewDialect::V1, claims, kNow);
  const auto payload = proto::decode_base64url(ours.substr(8, ours.rfind('.') - 8));
  const auto recorded = proto::decode_base64url(
      "g2gDaAJhBnQAAAAIZAACaWRtAAAAFHBoeC1HT3k4YnZ0U2k0bG9PWktDZAARbGl2ZV9zZXNzaW9uX25hbWVkAAdkZWZhdWx0ZAAKcGFyZW50X3"
      "BpZGQAA25pbGQACHJvb3RfcGlkZAADbmlsZAAJcm9vdF92aWV3ZAAaRWxpeGlyLkRlbW9XZWIuQ291bnRlckxpdmVkAAZyb3V0ZXJkABVFbGl4"
      "aXIuRGVtb1dlYi5Sb3V0ZXJkAAdzZXNzaW9udAAAAABkAAR2aWV3ZAAaRWxpeGlyLkRlbW9XZWIuQ291bnRlckxpdmVuBgAGvfwqogFiAAFRgA");
  ASSERT_TRUE(payload && recorded);
  EXPECT_EQ(*payload, *recorded);  // the same id, view and time: the same bytes
}

TEST(FlashAndUploadTokens, CarryWhatTheyWereGivenAndExpire) {
  const auto flash = sign_flash("Post created", kNow);
  EXPECT_EQ(verify_flash(flash, kNow + 1000), "Post created");
  EXPECT_FALSE(verify_flash(flash, kNow + 61'000));

  const auto upload = sign_upload_entry(LiveViewDialect::V1, {895, "phx-GOy8cZ8siYu3hZMC", "0"}, kNow);
  const auto claims = verify_upload_entry(LiveViewDialect::V1, upload, kNow);
  ASSERT_TRUE(claims);
  EXPECT_EQ(claims->view_pid, 895u);
  EXPECT_EQ(claims->upload_ref, "phx-GOy8cZ8siYu3hZMC");
  EXPECT_EQ(claims->entry_ref, "0");
  EXPECT_FALSE(verify_upload_entry(LiveViewDialect::V0_20, upload, kNow));
  EXPECT_FALSE(verify_view_session(LiveViewDialect::V1, upload, kNow));
}

}  // namespace
}  // namespace stampede::target
