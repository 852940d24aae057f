#include "engine/load_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "scenario/scenario_error.hpp"

namespace stampede::engine {

using scenario::ScenarioError;

long long default_max_vus(const LoadShape& shape) {
  double peak = shape.start;
  for (const Stage& s : shape.stages) peak = std::max(peak, s.target);
  return std::max<long long>(100, static_cast<long long>(std::ceil(peak)));
}

LoadShape build_load_shape(const scenario::ScenarioOptions& o, const LoadOverrides& cli, const std::string& where) {
  LoadShape shape;
  shape.graceful_stop = o.graceful_stop;
  const bool rate_model = cli.rate.has_value() || (!cli.vus && (o.rate || !o.rate_stages.empty()));
  const std::optional<Nanos> duration = cli.duration ? cli.duration : o.duration;

  if (rate_model) {
    shape.model = LoadModel::Rate;
    if (cli.rate || (o.rate && o.rate_stages.empty()) || (cli.duration && o.rate)) {
      const double rate = cli.rate ? *cli.rate : *o.rate;
      if (!duration)
        throw ScenarioError(fmt::format("{}: a rate needs a duration: set options.duration or pass --duration", where));
      shape.start = rate;
      shape.stages = {{*duration, rate}};
    } else {
      if (cli.duration)
        throw ScenarioError(fmt::format(
            "{}: --duration cannot shorten rate_stages; pass --rate with it, or edit the stages", where));
      shape.start = o.start_rate.value_or(0);
      shape.stages = o.rate_stages;
    }
    shape.max_vus = static_cast<int>(cli.max_vus ? *cli.max_vus : o.max_vus ? *o.max_vus : default_max_vus(shape));
    return shape;
  }

  shape.model = LoadModel::Vus;
  if (cli.vus || cli.duration || o.stages.empty()) {
    const long long vus = cli.vus ? *cli.vus : o.vus ? *o.vus : 1;
    if (!duration)
      throw ScenarioError(fmt::format(
          "{}: no load given: set options.duration (with vus), options.stages, or rate with duration; "
          "or pass --duration (and --vus or --rate)",
          where));
    shape.start = static_cast<double>(vus);
    shape.stages = {{*duration, static_cast<double>(vus)}};
  } else {
    shape.start = 0;
    shape.stages = o.stages;
  }
  if (shape.total_duration() <= 0) throw ScenarioError(fmt::format("{}: the load lasts no time at all", where));
  return shape;
}

}  // namespace stampede::engine
