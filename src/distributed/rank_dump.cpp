#include "distributed/rank_dump.hpp"

#include <boost/json.hpp>

#include <cstdio>
#include <fstream>

namespace stampede::distributed {

namespace json = boost::json;

namespace {

std::string hex(const std::string& bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

}  // namespace

std::string summary_dump_json(const metrics::Summary& summary, const metrics::Registry& registry, int rank) {
  json::array list;
  for (std::size_t id = 0; id < summary.metrics.size(); ++id) {
    const metrics::MetricData& m = summary.metrics[id];
    if (!m.present) continue;
    const auto metric_id = static_cast<metrics::MetricId>(id);
    list.push_back(json::object{{"name", registry.name(metric_id)},
                                {"kind", metrics::kind_name(registry.kind(metric_id))},
                                {"count", m.count},
                                {"failed", m.failed},
                                {"histogram", hex(m.histogram.serialize())}});
  }
  json::object o{{"rank", rank},
                 {"requests", json::object{{"sent", summary.requests.sent},
                                           {"completed", summary.requests.completed},
                                           {"failed", summary.requests.failed}}},
                 {"metrics", std::move(list)}};
  return json::serialize(o);
}

bool write_dump(const std::string& dir, const std::string& name, const std::string& text) {
  const std::string path = dir + "/" + name + ".json";
  std::ofstream out(path);
  out << text << '\n';
  if (!out) {
    std::fprintf(stderr, "error: cannot write %s\n", path.c_str());
    return false;
  }
  return true;
}

}  // namespace stampede::distributed
