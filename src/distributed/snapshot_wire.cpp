#include "distributed/snapshot_wire.hpp"

#include <bit>
#include <cstdint>
#include <set>
#include <stdexcept>

#include "metrics/generator_health.hpp"
#include "metrics/varint.hpp"

namespace stampede::distributed {

// Layout, integers as unsigned LEB128 varints (metrics/varint.hpp), strings as a length
// then the bytes, doubles as the varint of their IEEE-754 bits:
//   'S' 'N' version(=2) second(zigzag) sent completed failed metric_count
//   metric_count times:
//     name kind(0..4) present count failed gauge_last gauge_max
//     reason_count, reason_count times: reason n example (empty: none)
//     histogram (a string: Histogram::serialize)
namespace {

constexpr char kMagic0 = 'S';
constexpr char kMagic1 = 'N';
constexpr char kVersion = 2;

void put_string(std::string& out, std::string_view s) {
  metrics::varint::put(out, std::uint64_t{s.size()});
  out += s;
}

void put_double(std::string& out, double d) { metrics::varint::put(out, std::bit_cast<std::uint64_t>(d)); }

std::uint64_t zigzag(std::int64_t v) {
  return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}
std::int64_t unzigzag(std::uint64_t v) {
  return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1);
}

// A varint::Reader that can also read length-prefixed strings out of the same bytes.
class WireReader {
 public:
  explicit WireReader(std::string_view bytes) : bytes_(bytes) {}

  std::uint8_t byte() {
    if (pos_ >= bytes_.size()) fail("truncated");
    return static_cast<std::uint8_t>(bytes_[pos_++]);
  }
  std::uint64_t number() {
    // varint::Reader does not say how far it read, so give it exactly one varint: the
    // bytes up to the first one without the high bit.
    std::size_t end = pos_;
    while (end < bytes_.size() && (static_cast<std::uint8_t>(bytes_[end]) & 0x80) != 0) ++end;
    if (end >= bytes_.size()) fail("truncated");
    metrics::varint::Reader one(bytes_.substr(pos_, end + 1 - pos_), "second");
    const auto v = one.get<std::uint64_t>();
    pos_ = end + 1;
    return v;
  }
  std::string_view string() {
    const std::uint64_t n = number();
    if (n > bytes_.size() - pos_) fail("truncated string");
    const std::string_view s = bytes_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  double real() { return std::bit_cast<double>(number()); }
  bool at_end() const { return pos_ == bytes_.size(); }
  [[noreturn]] static void fail(const std::string& problem) {
    throw std::invalid_argument("second from another rank: " + problem);
  }

 private:
  std::string_view bytes_;
  std::size_t pos_ = 0;
};

}  // namespace

std::string encode_snapshot(const metrics::Snapshot& second, const metrics::Registry& registry) {
  using metrics::varint::put;
  std::string out;
  out.push_back(kMagic0);
  out.push_back(kMagic1);
  out.push_back(kVersion);
  put(out, zigzag(second.second));
  put(out, second.requests.sent);
  put(out, second.requests.completed);
  put(out, second.requests.failed);
  put(out, std::uint64_t{second.metrics.size()});
  for (std::size_t id = 0; id < second.metrics.size(); ++id) {
    const metrics::MetricData& m = second.metrics[id];
    const auto metric_id = static_cast<metrics::MetricId>(id);
    put_string(out, registry.name(metric_id));
    out.push_back(static_cast<char>(registry.kind(metric_id)));
    out.push_back(m.present ? 1 : 0);
    put(out, m.count);
    put(out, m.failed);
    put_double(out, m.gauge_last);
    put_double(out, m.gauge_max);
    put(out, std::uint64_t{m.reasons.size()});
    for (const auto& [reason, n] : m.reasons) {
      put_string(out, reason);
      put(out, n);
      const auto example = m.examples.find(reason);
      put_string(out, example == m.examples.end() ? std::string_view() : std::string_view(example->second));
    }
    put_string(out, m.histogram.serialize());
  }
  return out;
}

metrics::Snapshot decode_snapshot(std::string_view bytes, metrics::Registry& registry) {
  WireReader in(bytes);
  if (in.byte() != kMagic0 || in.byte() != kMagic1) WireReader::fail("not a second");
  if (in.byte() != kVersion) WireReader::fail("unknown version");
  metrics::Snapshot snap;
  snap.second = unzigzag(in.number());
  snap.requests.sent = in.number();
  snap.requests.completed = in.number();
  snap.requests.failed = in.number();
  const std::uint64_t count = in.number();
  // Each metric takes at least a dozen bytes: a count beyond that is a lie, not a reason
  // to allocate.
  if (count > bytes.size()) WireReader::fail("metric count larger than the message");
  std::set<metrics::MetricId> seen;
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::string_view name = in.string();
    if (name.empty()) WireReader::fail("metric without a name");
    const std::uint8_t kind = in.byte();
    if (kind > static_cast<std::uint8_t>(metrics::Kind::Distribution)) WireReader::fail("unknown metric kind");
    const std::uint8_t present = in.byte();
    if (present > 1) WireReader::fail("bad present flag");
    metrics::MetricData data;
    data.present = present == 1;
    data.count = in.number();
    data.failed = in.number();
    data.gauge_last = in.real();
    data.gauge_max = in.real();
    data.one_process = kind == static_cast<std::uint8_t>(metrics::Kind::Gauge) && metrics::is_one_process_gauge(name);
    const std::uint64_t reasons = in.number();
    if (reasons > metrics::MetricData::kMaxReasons + 1) WireReader::fail("too many reasons");
    for (std::uint64_t r = 0; r < reasons; ++r) {
      const std::string_view reason = in.string();
      const std::uint64_t n = in.number();
      const std::string_view example = in.string();
      if (!data.reasons.emplace(std::string(reason), n).second) WireReader::fail("reason listed twice");
      if (!example.empty()) data.examples.emplace(std::string(reason), std::string(example));
    }
    data.histogram = metrics::Histogram::deserialize(in.string());
    // Throws std::invalid_argument when the kind differs from this registry's.
    const metrics::MetricId id = registry.intern(name, static_cast<metrics::Kind>(kind));
    if (!seen.insert(id).second) WireReader::fail("metric listed twice");
    if (snap.metrics.size() <= id) snap.metrics.resize(id + 1);
    snap.metrics[id] = std::move(data);
  }
  if (!in.at_end()) WireReader::fail("trailing bytes");
  return snap;
}

}  // namespace stampede::distributed
