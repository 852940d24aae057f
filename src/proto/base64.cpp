#include "proto/base64.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <cstdint>

namespace stampede::proto {
namespace {

// OpenSSL counts in int: longer input goes through in pieces that keep whole groups (3 bytes
// in, 4 characters out), so the pieces' encodings join into the whole's.
constexpr std::size_t kEncodePiece = 3 * (1 << 20);
constexpr std::size_t kDecodePiece = 4 * (1 << 20);

enum class Alphabet { Standard, Url };

constexpr std::array<bool, 256> make_alphabet(Alphabet alphabet) {
  std::array<bool, 256> in{};
  for (char c = 'A'; c <= 'Z'; ++c) in[static_cast<unsigned char>(c)] = true;
  for (char c = 'a'; c <= 'z'; ++c) in[static_cast<unsigned char>(c)] = true;
  for (char c = '0'; c <= '9'; ++c) in[static_cast<unsigned char>(c)] = true;
  in[static_cast<unsigned char>(alphabet == Alphabet::Standard ? '+' : '-')] = true;
  in[static_cast<unsigned char>(alphabet == Alphabet::Standard ? '/' : '_')] = true;
  return in;
}
constexpr std::array<bool, 256> kStandard = make_alphabet(Alphabet::Standard);
constexpr std::array<bool, 256> kUrl = make_alphabet(Alphabet::Url);

bool all_in(std::string_view text, const std::array<bool, 256>& alphabet) {
  return std::all_of(text.begin(), text.end(), [&](char c) { return alphabet[static_cast<unsigned char>(c)]; });
}

// Appends the padded standard encoding; returns where it starts in `out`.
std::size_t encode(std::string& out, std::string_view bytes) {
  const std::size_t start = out.size();
  out.resize(start + 4 * ((bytes.size() + 2) / 3) + 1);  // EVP_EncodeBlock writes a terminating NUL
  auto* to = reinterpret_cast<unsigned char*>(out.data() + start);
  for (std::size_t at = 0; at < bytes.size(); at += kEncodePiece) {
    const std::size_t n = std::min(kEncodePiece, bytes.size() - at);
    to += EVP_EncodeBlock(to, reinterpret_cast<const unsigned char*>(bytes.data() + at), static_cast<int>(n));
  }
  out.pop_back();
  return start;
}

// `text`: whole groups of four standard characters, "=" only in the last one's last two places
// (checked by the callers). `padding`: how many of those "=" there are.
std::optional<std::string> decode_groups(std::string_view text, std::size_t padding) {
  std::string out(text.size() / 4 * 3, '\0');
  auto* to = reinterpret_cast<unsigned char*>(out.data());
  for (std::size_t at = 0; at < text.size(); at += kDecodePiece) {
    const std::size_t n = std::min(kDecodePiece, text.size() - at);
    const int written = EVP_DecodeBlock(to, reinterpret_cast<const unsigned char*>(text.data() + at), static_cast<int>(n));
    if (written < 0) return std::nullopt;
    to += written;
  }
  out.resize(out.size() - padding);  // EVP_DecodeBlock decodes "=" as zero bits
  return out;
}

}  // namespace

void append_base64(std::string& out, std::string_view bytes) { encode(out, bytes); }

std::string base64(std::string_view bytes) {
  std::string out;
  append_base64(out, bytes);
  return out;
}

void append_base64url(std::string& out, std::string_view bytes) {
  const std::size_t start = encode(out, bytes);
  while (out.size() > start && out.back() == '=') out.pop_back();
  for (std::size_t i = start; i < out.size(); ++i) {
    if (out[i] == '+') out[i] = '-';
    if (out[i] == '/') out[i] = '_';
  }
}

std::string base64url(std::string_view bytes) {
  std::string out;
  append_base64url(out, bytes);
  return out;
}

std::optional<std::string> decode_base64(std::string_view text) {
  // Padding, when present, completes the last group of four.
  std::size_t padding = 0;
  if (text.size() % 4 == 0) {
    while (padding < 2 && padding < text.size() && text[text.size() - 1 - padding] == '=') ++padding;
  }
  const std::string_view body = text.substr(0, text.size() - padding);
  if (body.size() % 4 == 1 || !all_in(body, kStandard)) return std::nullopt;
  if (padding > 0 || body.size() % 4 == 0) return decode_groups(text, padding);
  std::string padded(body);
  padding = 4 - body.size() % 4;
  padded.append(padding, '=');
  return decode_groups(padded, padding);
}

std::optional<std::string> decode_base64url(std::string_view text) {
  if (text.size() % 4 == 1 || !all_in(text, kUrl)) return std::nullopt;
  std::string standard(text);
  std::replace(standard.begin(), standard.end(), '-', '+');
  std::replace(standard.begin(), standard.end(), '_', '/');
  const std::size_t padding = (4 - standard.size() % 4) % 4;
  standard.append(padding, '=');
  return decode_groups(standard, padding);
}

}  // namespace stampede::proto
