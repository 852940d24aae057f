#include "target/erlang_term.hpp"

namespace stampede::target::etf {
namespace {

constexpr unsigned char kVersion = 131;
constexpr unsigned char kSmallInteger = 'a';
constexpr unsigned char kInteger = 'b';
constexpr unsigned char kAtom = 'd';
constexpr unsigned char kSmallAtomUtf8 = 'w';
constexpr unsigned char kAtomUtf8 = 'v';
constexpr unsigned char kSmallTuple = 'h';
constexpr unsigned char kMap = 't';
constexpr unsigned char kNil = 'j';
constexpr unsigned char kList = 'l';
constexpr unsigned char kBinary = 'm';
constexpr unsigned char kSmallBig = 'n';
constexpr unsigned char kNewPid = 'X';

constexpr int kMaxDepth = 16;
constexpr std::size_t kMaxItems = 4096;

void put_u16(std::string& out, std::uint32_t v) {
  out.push_back(static_cast<char>((v >> 8) & 0xFF));
  out.push_back(static_cast<char>(v & 0xFF));
}

void put_u32(std::string& out, std::uint32_t v) {
  put_u16(out, v >> 16);
  put_u16(out, v & 0xFFFF);
}

class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}

  bool at_end() const { return at_ == bytes_.size(); }

  bool byte(unsigned char& out) {
    if (at_ >= bytes_.size()) return false;
    out = static_cast<unsigned char>(bytes_[at_++]);
    return true;
  }

  bool u16(std::uint32_t& out) {
    if (bytes_.size() - at_ < 2) return false;
    out = (static_cast<std::uint32_t>(static_cast<unsigned char>(bytes_[at_])) << 8) |
          static_cast<unsigned char>(bytes_[at_ + 1]);
    at_ += 2;
    return true;
  }

  bool u32(std::uint32_t& out) {
    std::uint32_t high = 0;
    std::uint32_t low = 0;
    if (!u16(high) || !u16(low)) return false;
    out = (high << 16) | low;
    return true;
  }

  bool take(std::size_t n, std::string& out) {
    if (bytes_.size() - at_ < n) return false;
    out.assign(bytes_.substr(at_, n));
    at_ += n;
    return true;
  }

  bool term(Term& out, int depth) {
    if (depth > kMaxDepth) return false;
    unsigned char tag = 0;
    if (!byte(tag)) return false;
    std::uint32_t n = 0;
    switch (tag) {
      case kSmallInteger: {
        unsigned char v = 0;
        if (!byte(v)) return false;
        out.kind = Term::Kind::Integer;
        out.integer = v;
        return true;
      }
      case kInteger: {
        if (!u32(n)) return false;
        out.kind = Term::Kind::Integer;
        out.integer = static_cast<std::int32_t>(n);
        return true;
      }
      case kSmallBig: {
        unsigned char length = 0;
        unsigned char sign = 0;
        if (!byte(length) || !byte(sign) || length > 8 || sign > 1) return false;
        std::uint64_t magnitude = 0;
        for (int i = 0; i < length; ++i) {
          unsigned char b = 0;
          if (!byte(b)) return false;
          magnitude |= static_cast<std::uint64_t>(b) << (8 * i);
        }
        if (magnitude > static_cast<std::uint64_t>(INT64_MAX)) return false;
        out.kind = Term::Kind::Integer;
        out.integer = sign ? -static_cast<std::int64_t>(magnitude) : static_cast<std::int64_t>(magnitude);
        return true;
      }
      case kAtom:
      case kAtomUtf8:
        if (!u16(n)) return false;
        out.kind = Term::Kind::Atom;
        return take(n, out.text);
      case kSmallAtomUtf8: {
        unsigned char length = 0;
        if (!byte(length)) return false;
        out.kind = Term::Kind::Atom;
        return take(length, out.text);
      }
      case kBinary:
        if (!u32(n)) return false;
        out.kind = Term::Kind::Binary;
        return take(n, out.text);
      case kSmallTuple: {
        unsigned char arity = 0;
        if (!byte(arity)) return false;
        out.kind = Term::Kind::Tuple;
        return items(out, arity, depth);
      }
      case kMap:
        if (!u32(n) || n > kMaxItems / 2) return false;
        out.kind = Term::Kind::Map;
        return items(out, 2 * n, depth);
      case kNil: out.kind = Term::Kind::List; return true;
      case kList: {
        if (!u32(n) || n > kMaxItems) return false;
        out.kind = Term::Kind::List;
        if (!items(out, n, depth)) return false;
        Term tail;  // only proper lists: the tail is []
        return term(tail, depth + 1) && tail.kind == Term::Kind::List && tail.items.empty();
      }
      case kNewPid: {
        Term node;
        std::uint32_t serial = 0;
        std::uint32_t creation = 0;
        if (!term(node, depth + 1) || node.kind != Term::Kind::Atom || !u32(n) || !u32(serial) || !u32(creation)) {
          return false;
        }
        out.kind = Term::Kind::Pid;
        out.text = std::move(node.text);
        out.integer = n;
        return true;
      }
      default: return false;
    }
  }

 private:
  bool items(Term& out, std::size_t count, int depth) {
    if (count > kMaxItems) return false;
    out.items.resize(count);
    for (auto& item : out.items) {
      if (!term(item, depth + 1)) return false;
    }
    return true;
  }

  std::string_view bytes_;
  std::size_t at_ = 0;
};

}  // namespace

void Writer::version() { out_.push_back(static_cast<char>(kVersion)); }

void Writer::tuple(std::uint8_t arity) {
  out_.push_back(static_cast<char>(kSmallTuple));
  out_.push_back(static_cast<char>(arity));
}

void Writer::map(std::uint32_t pairs) {
  out_.push_back(static_cast<char>(kMap));
  put_u32(out_, pairs);
}

void Writer::atom(std::string_view name) {
  out_.push_back(static_cast<char>(kAtom));
  put_u16(out_, static_cast<std::uint32_t>(name.size()));
  out_.append(name);
}

void Writer::binary(std::string_view bytes) {
  out_.push_back(static_cast<char>(kBinary));
  put_u32(out_, static_cast<std::uint32_t>(bytes.size()));
  out_.append(bytes);
}

void Writer::integer(std::int64_t value) {
  if (value >= 0 && value <= 255) {
    out_.push_back(static_cast<char>(kSmallInteger));
    out_.push_back(static_cast<char>(value));
    return;
  }
  if (value >= INT32_MIN && value <= INT32_MAX) {
    out_.push_back(static_cast<char>(kInteger));
    put_u32(out_, static_cast<std::uint32_t>(static_cast<std::int32_t>(value)));
    return;
  }
  auto magnitude = value < 0 ? static_cast<std::uint64_t>(-(value + 1)) + 1 : static_cast<std::uint64_t>(value);
  std::string digits;
  while (magnitude > 0) {
    digits.push_back(static_cast<char>(magnitude & 0xFF));
    magnitude >>= 8;
  }
  out_.push_back(static_cast<char>(kSmallBig));
  out_.push_back(static_cast<char>(digits.size()));
  out_.push_back(value < 0 ? 1 : 0);
  out_.append(digits);
}

void Writer::pid(std::string_view node, std::uint32_t id) {
  out_.push_back(static_cast<char>(kNewPid));
  atom(node);
  put_u32(out_, id);
  put_u32(out_, 0);
  put_u32(out_, 0);
}

void Writer::empty_list() { out_.push_back(static_cast<char>(kNil)); }

const Term* Term::find(std::string_view key) const {
  if (kind != Kind::Map) return nullptr;
  for (std::size_t i = 0; i + 1 < items.size(); i += 2) {
    const auto& k = items[i];
    if ((k.kind == Kind::Atom || k.kind == Kind::Binary) && k.text == key) return &items[i + 1];
  }
  return nullptr;
}

std::optional<Term> decode(std::string_view bytes) {
  Reader reader(bytes);
  unsigned char version = 0;
  if (!reader.byte(version) || version != kVersion) return std::nullopt;
  Term term;
  if (!reader.term(term, 0) || !reader.at_end()) return std::nullopt;
  return term;
}

}  // namespace stampede::target::etf
