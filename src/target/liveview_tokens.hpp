#pragma once
// The tokens a LiveView page and socket carry, shaped like Phoenix's so that what travels has
// Phoenix's form and size (§1.4, §5.1, §6.1 of ../shared/phoenix-protocol.md):
//   session cookie   _demo_key=SFMyNTY.<map of strings>.<mac>   (Plug's signed cookie store)
//   CSRF token       56 characters: 32 of masked token, then the 24-character mask (Plug)
//   data-phx-session SFMyNTY.<{{vsn, %{id, view, root_view, router, live_session...}}, signed_at, max_age}>.<mac>
//   data-phx-static  the same around %{id, flash, assign_new}
//   flash            the same around %{"info" => text}
//   upload entry     the same around {vsn, %{pid, ref: {upload ref, entry ref}, cid: nil}}
// Payloads are Erlang terms and the MAC is HMAC-SHA256, as Plug.Crypto.MessageVerifier writes
// them, but with a secret of the target's own and no key derivation: nothing outside the
// target has to verify them. Pure functions: randomness and the wall-clock time come in.
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>

#include "target/liveview_dialect.hpp"

namespace stampede::target {

using TokenRandom = std::mt19937_64;

inline constexpr std::string_view kSessionCookieName = "_demo_key";

// "phx-" and 16 URL-safe base64 characters (12 random bytes): LiveView container ids and
// upload refs (Phoenix.LiveView.Utils.random_id).
std::string new_phx_id(TokenRandom& random);
// `n` random bytes as URL-safe base64 (x-request-id, CSRF tokens).
std::string random_base64url(TokenRandom& random, std::size_t n);

// The Plug session of the demo app, as its cookie carries it.
struct PlugSession {
  std::string csrf_token;  // "_csrf_token" (24 characters), "" until a page has needed one
  std::string user;        // "user", "" until /login
};
std::string encode_session_cookie(const PlugSession& session);
// nullopt when the value is not a cookie this target signed.
std::optional<PlugSession> decode_session_cookie(std::string_view value);
// The value of cookie `name` in a Cookie request header ("a=1; b=2").
std::optional<std::string_view> find_cookie(std::string_view cookie_header, std::string_view name);

// Plug.CSRFProtection: the secret kept in the session, and the masked form a page shows
// (a fresh mask every time, all valid for the same session).
std::string new_csrf_secret(TokenRandom& random);
std::string mask_csrf_token(std::string_view secret, TokenRandom& random);
bool csrf_token_matches(std::string_view masked, std::string_view secret);

// What data-phx-session says: which container, which view, which live_session.
struct ViewSessionClaims {
  std::string id;            // the container id: the topic must be "lv:" + id
  std::string view;          // "Elixir.DemoWeb.CounterLive"
  std::string live_session;  // "default"
};
std::string sign_view_session(LiveViewDialect dialect, const ViewSessionClaims& claims, std::int64_t now_ms);
// nullopt for a forged, expired (two weeks, as LiveView) or other-format token: "stale".
std::optional<ViewSessionClaims> verify_view_session(LiveViewDialect dialect, std::string_view token,
                                                     std::int64_t now_ms);
std::string sign_view_static(LiveViewDialect dialect, std::string_view id, std::int64_t now_ms);

// The flash a live_redirect carries to the next view (Phoenix keeps it for 60 s).
std::string sign_flash(std::string_view info, std::int64_t now_ms);
std::optional<std::string> verify_flash(std::string_view token, std::int64_t now_ms);

// An upload entry's token: which LiveView (its "pid"), which upload and entry.
struct UploadEntryClaims {
  std::uint32_t view_pid = 0;
  std::string upload_ref;
  std::string entry_ref;
};
std::string sign_upload_entry(LiveViewDialect dialect, const UploadEntryClaims& claims, std::int64_t now_ms);
std::optional<UploadEntryClaims> verify_upload_entry(LiveViewDialect dialect, std::string_view token,
                                                     std::int64_t now_ms);

// Milliseconds since the Unix epoch, what tokens are stamped with.
std::int64_t wall_clock_ms();

}  // namespace stampede::target
