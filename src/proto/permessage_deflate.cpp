#include "proto/permessage_deflate.hpp"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <new>
#include <stdexcept>

namespace stampede::proto::ws {

namespace {

// What one zlib call may be handed (its counters are 32-bit).
constexpr std::size_t kMaxPiece = std::size_t{1} << 30;

// RFC 7692 7.1.2: a window size is "8" to "15", without leading zeros.
std::optional<int> parse_window_bits(const std::optional<std::string>& value) {
  if (!value) return std::nullopt;
  const std::string& v = *value;
  if (v.size() == 1 && (v[0] == '8' || v[0] == '9')) return v[0] - '0';
  if (v.size() == 2 && v[0] == '1' && v[1] >= '0' && v[1] <= '5') return 10 + (v[1] - '0');
  return std::nullopt;
}

Bytef* bytes(char* p) { return reinterpret_cast<Bytef*>(p); }
Bytef* bytes(const char* p) { return reinterpret_cast<Bytef*>(const_cast<char*>(p)); }

}  // namespace

std::string deflate_offer() { return std::string(kDeflateExtension) + "; client_max_window_bits"; }

std::optional<DeflateParams> deflate_params_from_response(const Extension& response, std::string& error) {
  DeflateParams params;
  std::vector<std::string_view> seen;
  for (const auto& param : response.params) {
    if (std::find(seen.begin(), seen.end(), param.name) != seen.end()) {
      error = "permessage-deflate parameter " + param.name + " appears twice";
      return std::nullopt;
    }
    seen.push_back(param.name);
    if (param.name == "server_no_context_takeover" || param.name == "client_no_context_takeover") {
      if (param.value) {
        error = "permessage-deflate parameter " + param.name + " takes no value";
        return std::nullopt;
      }
      (param.name == "server_no_context_takeover" ? params.server_no_context_takeover
                                                   : params.client_no_context_takeover) = true;
    } else if (param.name == "server_max_window_bits" || param.name == "client_max_window_bits") {
      // The offer said client_max_window_bits, so the server may limit the client's window;
      // in an answer both need a value.
      const std::optional<int> bits = parse_window_bits(param.value);
      if (!bits) {
        error = "permessage-deflate parameter " + param.name + " needs a value from 8 to 15";
        return std::nullopt;
      }
      (param.name == "server_max_window_bits" ? params.server_max_window_bits : params.client_max_window_bits) =
          *bits;
    } else {
      error = "the server answered permessage-deflate with the unknown parameter " + param.name;
      return std::nullopt;
    }
  }
  return params;
}

std::optional<DeflateParams> deflate_accept_offer(const std::vector<Extension>& offers,
                                                  const DeflateParams& server_limits) {
  for (const auto& offer : offers) {
    if (offer.name != kDeflateExtension) continue;
    DeflateParams params;
    bool client_bits_offered = false;
    bool acceptable = true;
    std::vector<std::string_view> seen;
    for (const auto& param : offer.params) {
      if (std::find(seen.begin(), seen.end(), param.name) != seen.end()) {
        acceptable = false;
        break;
      }
      seen.push_back(param.name);
      if (param.name == "server_no_context_takeover" && !param.value) {
        params.server_no_context_takeover = true;
      } else if (param.name == "client_no_context_takeover" && !param.value) {
        params.client_no_context_takeover = true;
      } else if (param.name == "server_max_window_bits") {
        const std::optional<int> bits = parse_window_bits(param.value);
        if (!bits) {
          acceptable = false;
          break;
        }
        params.server_max_window_bits = *bits;
      } else if (param.name == "client_max_window_bits") {
        client_bits_offered = true;
        if (param.value) {
          const std::optional<int> bits = parse_window_bits(param.value);
          if (!bits) {
            acceptable = false;
            break;
          }
          params.client_max_window_bits = *bits;
        }
      } else {
        acceptable = false;
        break;
      }
    }
    if (!acceptable) continue;
    params.server_no_context_takeover |= server_limits.server_no_context_takeover;
    params.client_no_context_takeover |= server_limits.client_no_context_takeover;
    params.server_max_window_bits = std::min(params.server_max_window_bits, server_limits.server_max_window_bits);
    // The client's window can only be limited by a client that said it understands the
    // parameter; otherwise it compresses with up to 15 bits, which inflating always handles.
    if (client_bits_offered) {
      params.client_max_window_bits = std::min(params.client_max_window_bits, server_limits.client_max_window_bits);
    }
    return params;
  }
  return std::nullopt;
}

std::string deflate_response(const DeflateParams& params) {
  std::string out(kDeflateExtension);
  if (params.server_no_context_takeover) out += "; server_no_context_takeover";
  if (params.client_no_context_takeover) out += "; client_no_context_takeover";
  if (params.server_max_window_bits < 15) out += "; server_max_window_bits=" + std::to_string(params.server_max_window_bits);
  if (params.client_max_window_bits < 15) out += "; client_max_window_bits=" + std::to_string(params.client_max_window_bits);
  return out;
}

// ---------------------------------------------------------------------------------------

struct Deflater::Stream {
  z_stream z{};
  bool initialised = false;
  ~Stream() {
    if (initialised) deflateEnd(&z);
  }
};

Deflater::Deflater(const DeflateParams& params, Role role, int level, int mem_level)
    : window_bits_(role == Role::Client ? params.client_max_window_bits : params.server_max_window_bits),
      keep_context_(!(role == Role::Client ? params.client_no_context_takeover : params.server_no_context_takeover)),
      level_(level),
      mem_level_(mem_level) {}

Deflater::~Deflater() = default;

void Deflater::compress(std::string_view message, std::string& out) {
  if (!stream_) {
    auto stream = std::make_unique<Stream>();
    int bits = window_bits_;
    int level = level_;
    if (bits < 9) {
      // zlib cannot deflate with a 256-byte window. Stored blocks (level 0) hold no
      // back-references at all, so any window can inflate them.
      bits = 9;
      level = 0;
    }
    const int status = deflateInit2(&stream->z, level, Z_DEFLATED, -bits, mem_level_, Z_DEFAULT_STRATEGY);
    if (status == Z_MEM_ERROR) throw std::bad_alloc();
    if (status != Z_OK) throw std::invalid_argument("zlib refused the deflate parameters");
    stream->initialised = true;
    stream_ = std::move(stream);
  }
  z_stream& z = stream_->z;
  const std::size_t start = out.size();
  std::size_t produced = 0;
  std::size_t grow_by = std::max<std::size_t>(message.size() / 2 + 64, 256);
  std::string_view rest = message;
  for (;;) {
    const std::size_t piece = std::min(rest.size(), kMaxPiece);
    const bool last = piece == rest.size();
    z.next_in = bytes(rest.data());
    z.avail_in = static_cast<uInt>(piece);
    // With Z_SYNC_FLUSH, deflate is done once it returns with output room to spare.
    do {
      if (out.size() - start - produced == 0) {
        out.resize(out.size() + grow_by);
        grow_by *= 2;
      }
      const std::size_t room = std::min(out.size() - start - produced, kMaxPiece);
      z.next_out = bytes(out.data() + start + produced);
      z.avail_out = static_cast<uInt>(room);
      if (deflate(&z, last ? Z_SYNC_FLUSH : Z_NO_FLUSH) == Z_STREAM_ERROR) {
        throw std::logic_error("zlib deflate state is inconsistent");
      }
      produced += room - z.avail_out;
    } while (z.avail_out == 0);
    rest.remove_prefix(piece);
    if (last) break;
  }
  static constexpr std::array<char, 4> kTail = {0, 0, static_cast<char>(0xff), static_cast<char>(0xff)};
  if (produced >= 4 && std::equal(kTail.begin(), kTail.end(), out.begin() + static_cast<std::ptrdiff_t>(start + produced - 4))) {
    produced -= 4;
  }
  out.resize(start + produced);
  if (!keep_context_) stream_.reset();
}

// ---------------------------------------------------------------------------------------

struct Inflater::Stream {
  z_stream z{};
  bool initialised = false;
  ~Stream() {
    if (initialised) inflateEnd(&z);
  }
};

Inflater::Inflater(const DeflateParams& params, Role role, std::size_t max_message_bytes)
    : window_bits_(role == Role::Client ? params.server_max_window_bits : params.client_max_window_bits),
      keep_context_(!(role == Role::Client ? params.server_no_context_takeover : params.client_no_context_takeover)),
      max_message_bytes_(max_message_bytes) {}

Inflater::~Inflater() = default;

Inflater::Result Inflater::decompress(std::string_view compressed, std::string& out, std::string& error) {
  if (!stream_) {
    auto stream = std::make_unique<Stream>();
    // A wider window than negotiated is always safe for inflating; 9 bits at least, because
    // some deflaters asked for 8 use 9 (zlib has no 256-byte window).
    const int status = inflateInit2(&stream->z, -std::max(window_bits_, 9));
    if (status == Z_MEM_ERROR) throw std::bad_alloc();
    if (status != Z_OK) throw std::invalid_argument("zlib refused the inflate parameters");
    stream->initialised = true;
    stream_ = std::move(stream);
  }
  z_stream& z = stream_->z;
  const std::size_t start = out.size();
  std::size_t produced = 0;
  // Output grows as it is produced, never past the limit (+1 byte, to notice crossing it).
  std::size_t grow_by = std::clamp<std::size_t>(compressed.size() * 4, 1024, 64 * 1024);
  const auto fail = [&](Result result, std::string why) {
    out.resize(start);
    error = std::move(why);
    stream_.reset();  // the shared window is lost with the message
    return result;
  };

  // RFC 7692 7.2.2: the sender removed the sync flush's 00 00 ff ff; put it back.
  static constexpr std::array<char, 4> kTail = {0, 0, static_cast<char>(0xff), static_cast<char>(0xff)};
  std::array<std::string_view, 2> inputs = {compressed, std::string_view(kTail.data(), kTail.size())};
  bool ended = false;
  for (std::string_view input : inputs) {
    while (!input.empty() && !ended) {
      const std::size_t piece = std::min(input.size(), kMaxPiece);
      z.next_in = bytes(input.data());
      z.avail_in = static_cast<uInt>(piece);
      for (;;) {
        if (out.size() - start - produced == 0) {
          const std::size_t left = max_message_bytes_ - produced;
          const std::size_t allowed = left == SIZE_MAX ? left : left + 1;
          out.resize(out.size() + std::min(grow_by, allowed));
          grow_by *= 2;
        }
        const std::size_t room = std::min(out.size() - start - produced, kMaxPiece);
        z.next_out = bytes(out.data() + start + produced);
        z.avail_out = static_cast<uInt>(room);
        const int status = inflate(&z, Z_SYNC_FLUSH);
        produced += room - z.avail_out;
        if (produced > max_message_bytes_) {
          return fail(Result::TooBig, "a compressed message inflates to more than " +
                                          std::to_string(max_message_bytes_) + " bytes");
        }
        if (status == Z_STREAM_END) {
          ended = true;  // the sender ended its stream (BFINAL); whatever follows is padding
          break;
        }
        if (status == Z_BUF_ERROR && z.avail_out != 0) break;  // it wants more input
        if (status == Z_MEM_ERROR) throw std::bad_alloc();
        if (status != Z_OK && status != Z_BUF_ERROR) {
          return fail(Result::Corrupt, std::string("a compressed message is corrupt (") +
                                           (z.msg != nullptr ? z.msg : "invalid deflate data") + ")");
        }
        if (z.avail_in == 0 && z.avail_out != 0) break;
      }
      input.remove_prefix(piece - z.avail_in);
      if (z.avail_in != 0 && !ended) break;  // stuck with input left: nothing more will come of it
    }
    if (ended) break;
  }
  out.resize(start + produced);
  if (!keep_context_) {
    stream_.reset();
  } else if (ended) {
    inflateReset(&z);  // a new stream starts with the next message
  }
  return Result::Ok;
}

}  // namespace stampede::proto::ws
