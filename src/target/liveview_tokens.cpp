#include "target/liveview_tokens.hpp"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <chrono>

#include "proto/base64.hpp"
#include "target/erlang_term.hpp"

namespace stampede::target {
namespace {

using proto::append_base64url;
using proto::base64url;
using proto::decode_base64url;

// base64("HS256"): the first part of every Plug.Crypto.MessageVerifier token.
constexpr std::string_view kProtected = "SFMyNTY";
// The target's own signing secret. Fixed rather than drawn per start, as a Phoenix app's
// secret_key_base is: pages fetched before a restart of the target still join after it.
constexpr std::string_view kSecret =
    "stampede-target/liveview: not Phoenix's secret_key_base, nothing else verifies it";

constexpr std::string_view kRouter = "Elixir.DemoWeb.Router";
constexpr std::string_view kNode = "nonode@nohost";
// What Phoenix.Token.sign stores as max_age by default; verification uses its own limits.
constexpr std::int64_t kSignedMaxAgeSeconds = 86'400;
constexpr std::int64_t kViewTokenMaxAgeMs = 1'209'600'000;  // LiveView: two weeks
constexpr std::int64_t kFlashMaxAgeMs = 60'000;
// 0.20 tokens name the live_session with a {name, vsn} pair; the vsn is fixed per router build.
constexpr std::int64_t kLiveSessionVsn = 1'796'013'656'420'454'820;

std::string mac_of(std::string_view signed_part) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), kSecret.data(), static_cast<int>(kSecret.size()),
       reinterpret_cast<const unsigned char*>(signed_part.data()), signed_part.size(), digest, &length);
  return base64url(std::string_view(reinterpret_cast<const char*>(digest), length));
}

std::string sign(std::string_view payload) {
  std::string token(kProtected);
  token.push_back('.');
  append_base64url(token, payload);
  const auto mac = mac_of(token);
  token.push_back('.');
  token += mac;
  return token;
}

// The signed payload, when the MAC is right.
std::optional<std::string> verify(std::string_view token) {
  const auto last_dot = token.rfind('.');
  if (last_dot == std::string_view::npos) return std::nullopt;
  const auto signed_part = token.substr(0, last_dot);
  if (signed_part.size() <= kProtected.size() || signed_part.substr(0, kProtected.size()) != kProtected ||
      signed_part[kProtected.size()] != '.') {
    return std::nullopt;
  }
  const auto expected = mac_of(signed_part);
  const auto given = token.substr(last_dot + 1);
  // Compared in full whatever differs first: the time must not tell how much was right.
  if (given.size() != expected.size()) return std::nullopt;
  unsigned char difference = 0;
  for (std::size_t i = 0; i < given.size(); ++i) difference |= static_cast<unsigned char>(given[i] ^ expected[i]);
  if (difference != 0) return std::nullopt;
  return decode_base64url(signed_part.substr(kProtected.size() + 1));
}

// Phoenix.Token: {data, signed_at, max_age}; `write_data` writes the data term.
template <typename WriteData>
std::string sign_phoenix_token(std::int64_t now_ms, WriteData write_data) {
  std::string payload;
  etf::Writer w(payload);
  w.version();
  w.tuple(3);
  write_data(w);
  w.integer(now_ms);
  w.integer(kSignedMaxAgeSeconds);
  return sign(payload);
}

// The data of a Phoenix.Token signed at most `max_age_ms` ago.
std::optional<etf::Term> verify_phoenix_token(std::string_view token, std::int64_t max_age_ms, std::int64_t now_ms) {
  const auto payload = verify(token);
  if (!payload) return std::nullopt;
  auto term = etf::decode(*payload);
  if (!term || term->kind != etf::Term::Kind::Tuple || term->items.size() != 3) return std::nullopt;
  const auto& signed_at = term->items[1];
  if (signed_at.kind != etf::Term::Kind::Integer || signed_at.integer + max_age_ms < now_ms) return std::nullopt;
  return std::move(term->items[0]);
}

// {vsn, map} with this dialect's vsn: the map.
const etf::Term* versioned_map(const etf::Term& data, LiveViewDialect dialect) {
  if (data.kind != etf::Term::Kind::Tuple || data.items.size() != 2) return nullptr;
  const auto& vsn = data.items[0];
  if (vsn.kind != etf::Term::Kind::Integer || vsn.integer != session_token_vsn(dialect)) return nullptr;
  return data.items[1].kind == etf::Term::Kind::Map ? &data.items[1] : nullptr;
}

const std::string* binary_at(const etf::Term& map, std::string_view key) {
  const auto* value = map.find(key);
  return value != nullptr && value->kind == etf::Term::Kind::Binary ? &value->text : nullptr;
}

const std::string* atom_at(const etf::Term& map, std::string_view key) {
  const auto* value = map.find(key);
  return value != nullptr && value->kind == etf::Term::Kind::Atom ? &value->text : nullptr;
}

std::string random_bytes(TokenRandom& random, std::size_t n) {
  std::string bytes;
  bytes.reserve(n + 8);
  while (bytes.size() < n) {
    auto word = random();
    for (int i = 0; i < 8 && bytes.size() < n; ++i, word >>= 8) bytes.push_back(static_cast<char>(word & 0xFF));
  }
  return bytes;
}

}  // namespace

std::string new_phx_id(TokenRandom& random) { return "phx-" + random_base64url(random, 12); }

std::string random_base64url(TokenRandom& random, std::size_t n) { return base64url(random_bytes(random, n)); }

std::string encode_session_cookie(const PlugSession& session) {
  std::string payload;
  etf::Writer w(payload);
  w.version();
  w.map(static_cast<std::uint32_t>(!session.csrf_token.empty()) + static_cast<std::uint32_t>(!session.user.empty()));
  // Erlang writes small maps in key order: "_csrf_token" < "user".
  if (!session.csrf_token.empty()) {
    w.binary("_csrf_token");
    w.binary(session.csrf_token);
  }
  if (!session.user.empty()) {
    w.binary("user");
    w.binary(session.user);
  }
  return sign(payload);
}

std::optional<PlugSession> decode_session_cookie(std::string_view value) {
  const auto payload = verify(value);
  if (!payload) return std::nullopt;
  const auto term = etf::decode(*payload);
  if (!term || term->kind != etf::Term::Kind::Map) return std::nullopt;
  PlugSession session;
  if (const auto* csrf = binary_at(*term, "_csrf_token")) session.csrf_token = *csrf;
  if (const auto* user = binary_at(*term, "user")) session.user = *user;
  return session;
}

std::optional<std::string_view> find_cookie(std::string_view header, std::string_view name) {
  while (!header.empty()) {
    const auto end = header.find(';');
    auto pair = header.substr(0, end);
    header = end == std::string_view::npos ? std::string_view() : header.substr(end + 1);
    while (!pair.empty() && (pair.front() == ' ' || pair.front() == '\t')) pair.remove_prefix(1);
    while (!pair.empty() && (pair.back() == ' ' || pair.back() == '\t')) pair.remove_suffix(1);
    const auto equals = pair.find('=');
    if (equals != std::string_view::npos && pair.substr(0, equals) == name) return pair.substr(equals + 1);
  }
  return std::nullopt;
}

std::string new_csrf_secret(TokenRandom& random) { return random_base64url(random, 18); }

std::string mask_csrf_token(std::string_view secret, TokenRandom& random) {
  const auto mask = random_base64url(random, 18);
  std::string masked(secret);
  for (std::size_t i = 0; i < masked.size() && i < mask.size(); ++i) masked[i] = static_cast<char>(masked[i] ^ mask[i]);
  return base64url(masked) + mask;
}

bool csrf_token_matches(std::string_view masked, std::string_view secret) {
  // 32 characters of base64 (24 bytes) and a 24-character mask, for a 24-character secret.
  if (secret.size() != 24 || masked.size() != 56) return false;
  const auto mask = masked.substr(32);
  const auto unmasked = decode_base64url(masked.substr(0, 32));
  if (!unmasked || unmasked->size() != secret.size()) return false;
  unsigned char difference = 0;
  for (std::size_t i = 0; i < secret.size(); ++i) {
    difference |= static_cast<unsigned char>(((*unmasked)[i] ^ mask[i]) ^ secret[i]);
  }
  return difference == 0;
}

std::string sign_view_session(LiveViewDialect dialect, const ViewSessionClaims& claims, std::int64_t now_ms) {
  return sign_phoenix_token(now_ms, [&](etf::Writer& w) {
    w.tuple(2);
    w.integer(session_token_vsn(dialect));
    w.map(8);
    w.atom("id");
    w.binary(claims.id);
    if (dialect == LiveViewDialect::V0_20) {
      w.atom("live_session");
      w.tuple(2);
      w.atom(claims.live_session);
      w.integer(kLiveSessionVsn);
    } else {
      w.atom("live_session_name");
      w.atom(claims.live_session);
    }
    w.atom("parent_pid");
    w.atom("nil");
    w.atom("root_pid");
    w.atom("nil");
    w.atom("root_view");
    w.atom(claims.view);
    w.atom("router");
    w.atom(kRouter);
    w.atom("session");
    w.map(0);
    w.atom("view");
    w.atom(claims.view);
  });
}

std::optional<ViewSessionClaims> verify_view_session(LiveViewDialect dialect, std::string_view token,
                                                     std::int64_t now_ms) {
  const auto data = verify_phoenix_token(token, kViewTokenMaxAgeMs, now_ms);
  if (!data) return std::nullopt;
  const auto* map = versioned_map(*data, dialect);
  if (map == nullptr) return std::nullopt;
  const auto* id = binary_at(*map, "id");
  const auto* view = atom_at(*map, "view");
  const std::string* live_session = nullptr;
  if (dialect == LiveViewDialect::V0_20) {
    const auto* pair = map->find("live_session");
    if (pair != nullptr && pair->kind == etf::Term::Kind::Tuple && pair->items.size() == 2 &&
        pair->items[0].kind == etf::Term::Kind::Atom) {
      live_session = &pair->items[0].text;
    }
  } else {
    live_session = atom_at(*map, "live_session_name");
  }
  if (id == nullptr || view == nullptr || live_session == nullptr) return std::nullopt;
  return ViewSessionClaims{*id, *view, *live_session};
}

std::string sign_view_static(LiveViewDialect dialect, std::string_view id, std::int64_t now_ms) {
  return sign_phoenix_token(now_ms, [&](etf::Writer& w) {
    w.tuple(2);
    w.integer(session_token_vsn(dialect));
    w.map(3);
    w.atom("assign_new");
    w.empty_list();
    w.atom("flash");
    w.map(0);
    w.atom("id");
    w.binary(id);
  });
}

std::string sign_flash(std::string_view info, std::int64_t now_ms) {
  return sign_phoenix_token(now_ms, [&](etf::Writer& w) {
    w.map(1);
    w.binary("info");
    w.binary(info);
  });
}

std::optional<std::string> verify_flash(std::string_view token, std::int64_t now_ms) {
  const auto data = verify_phoenix_token(token, kFlashMaxAgeMs, now_ms);
  if (!data || data->kind != etf::Term::Kind::Map) return std::nullopt;
  const auto* info = binary_at(*data, "info");
  if (info == nullptr) return std::nullopt;
  return *info;
}

std::string sign_upload_entry(LiveViewDialect dialect, const UploadEntryClaims& claims, std::int64_t now_ms) {
  return sign_phoenix_token(now_ms, [&](etf::Writer& w) {
    w.tuple(2);
    w.integer(session_token_vsn(dialect));
    w.map(3);
    w.atom("cid");
    w.atom("nil");
    w.atom("pid");
    w.pid(kNode, claims.view_pid);
    w.atom("ref");
    w.tuple(2);
    w.binary(claims.upload_ref);
    w.binary(claims.entry_ref);
  });
}

std::optional<UploadEntryClaims> verify_upload_entry(LiveViewDialect dialect, std::string_view token,
                                                     std::int64_t now_ms) {
  const auto data = verify_phoenix_token(token, kViewTokenMaxAgeMs, now_ms);
  if (!data) return std::nullopt;
  const auto* map = versioned_map(*data, dialect);
  if (map == nullptr) return std::nullopt;
  const auto* pid = map->find("pid");
  const auto* ref = map->find("ref");
  if (pid == nullptr || pid->kind != etf::Term::Kind::Pid || ref == nullptr || ref->kind != etf::Term::Kind::Tuple ||
      ref->items.size() != 2 || ref->items[0].kind != etf::Term::Kind::Binary ||
      ref->items[1].kind != etf::Term::Kind::Binary) {
    return std::nullopt;
  }
  return UploadEntryClaims{static_cast<std::uint32_t>(pid->integer), ref->items[0].text, ref->items[1].text};
}

std::int64_t wall_clock_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace stampede::target
