#include "distributed/rank_plan.hpp"

#include <boost/json.hpp>

#include <stdexcept>

namespace stampede::distributed {

namespace json = boost::json;

std::string encode_plan(const RankPlan& plan) {
  json::array stages;
  for (const Stage& s : plan.shape.stages) stages.push_back(json::array{s.duration, s.target});
  json::object shape{{"model", plan.shape.model == LoadModel::Rate ? "rate" : "vus"},
                     {"start", plan.shape.start},
                     {"stages", std::move(stages)},
                     {"max_vus", plan.shape.max_vus},
                     {"graceful_stop", plan.shape.graceful_stop},
                     {"iterations", plan.shape.iterations}};
  json::object o{{"done", plan.done},
                 {"exit_status", plan.exit_status},
                 {"sequence", plan.sequence},
                 {"file", plan.file},
                 {"source", plan.source},
                 {"shape", std::move(shape)},
                 {"setup_data", plan.setup_data},
                 {"insecure", plan.insecure},
                 {"local_addresses", json::value_from(plan.local_addresses)}};
  return json::serialize(o);
}

RankPlan decode_plan(std::string_view text) {
  try {
    const json::object o = json::parse(text).as_object();
    RankPlan plan;
    plan.done = o.at("done").as_bool();
    plan.exit_status = o.at("exit_status").to_number<int>();
    plan.sequence = json::value_to<std::uint64_t>(o.at("sequence"));
    plan.file = json::value_to<std::string>(o.at("file"));
    plan.source = json::value_to<std::string>(o.at("source"));
    const json::object& shape = o.at("shape").as_object();
    plan.shape.model = shape.at("model").as_string() == "rate" ? LoadModel::Rate : LoadModel::Vus;
    plan.shape.start = shape.at("start").to_number<double>();
    for (const json::value& s : shape.at("stages").as_array()) {
      const json::array& pair = s.as_array();
      plan.shape.stages.push_back({pair.at(0).to_number<Nanos>(), pair.at(1).to_number<double>()});
    }
    plan.shape.max_vus = shape.at("max_vus").to_number<int>();
    plan.shape.graceful_stop = shape.at("graceful_stop").to_number<Nanos>();
    plan.shape.iterations = shape.at("iterations").to_number<long long>();
    plan.setup_data = json::value_to<std::string>(o.at("setup_data"));
    plan.insecure = o.at("insecure").as_bool();
    plan.local_addresses = json::value_to<std::vector<std::string>>(o.at("local_addresses"));
    return plan;
  } catch (const std::exception& e) {
    throw std::invalid_argument(std::string("plan from rank 0: ") + e.what());
  }
}

}  // namespace stampede::distributed
