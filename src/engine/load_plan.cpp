#include "engine/load_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "proto/duration.hpp"
#include "scenario/scenario_error.hpp"

namespace stampede::engine {

using scenario::ScenarioError;

namespace {

double peak_of(const std::vector<Stage>& stages) {
  double peak = 0;
  for (const Stage& s : stages) peak = std::max(peak, s.target);
  return peak;
}

Nanos total_of(const std::vector<Stage>& stages) {
  Nanos total = 0;
  for (const Stage& s : stages) total += s.duration;
  return total;
}

// Options that describe two different loads are a mistake to report, not to resolve
// silently by a precedence the user cannot see.
void check_options_agree(const scenario::ScenarioOptions& o, const std::string& where) {
  const bool closed = o.vus || !o.stages.empty();
  const bool open = o.rate || !o.rate_stages.empty();
  if (closed && open) {
    throw ScenarioError(fmt::format(
        "{}: options set both a VU load ({}) and an arrival rate ({}): choose one (--vus or --rate on the command "
        "line picks one for a run)",
        where, o.vus ? "vus" : "stages", o.rate ? "rate" : "rate_stages"));
  }
  if (!o.stages.empty() && o.duration) {
    throw ScenarioError(fmt::format("{}: options set both stages and duration: the stages are the duration ({})",
                                    where, proto::format_duration(total_of(o.stages))));
  }
  if (!o.rate_stages.empty() && o.rate) {
    throw ScenarioError(
        fmt::format("{}: options set both rate and rate_stages: with rate_stages, start_rate is where they start", where));
  }
  if (o.start_rate && o.rate_stages.empty()) {
    // start_rate is only where rate_stages begin; beside rate (constant from the first
    // second) or a VU load it would be ignored, and the run would not be the one written.
    throw ScenarioError(fmt::format(
        "{}: options set start_rate without rate_stages: start_rate is where rate_stages start; {}", where,
        o.rate ? "rate is constant from the start, so drop start_rate or ramp with rate_stages" : "drop it"));
  }
  if (!o.rate_stages.empty() && o.duration) {
    throw ScenarioError(fmt::format(
        "{}: options set both rate_stages and duration: the rate_stages are the duration ({})", where,
        proto::format_duration(total_of(o.rate_stages))));
  }
}

// A load that runs nothing (no time, or a level that never leaves 0) is a mistake: run, it
// would exit 0 with an empty summary, and a CI job whose $VUS expanded to 0 would pass.
// Stages that ramp from or to 0 are fine as long as some part of the run is above it.
void require_some_load(const LoadShape& shape, const std::string& where, const char* why_zero) {
  if (shape.total_duration() <= 0) throw ScenarioError(fmt::format("{}: the load lasts no time at all", where));
  if (std::max(shape.start, peak_of(shape.stages)) <= 0)
    throw ScenarioError(fmt::format("{}: no load: {}, so no iteration would run", where, why_zero));
}

}  // namespace

long long default_max_vus(const LoadShape& shape) {
  const double peak = std::max(shape.start, peak_of(shape.stages));
  return std::max<long long>(100, static_cast<long long>(std::ceil(peak)));
}

LoadShape build_load_shape(const scenario::ScenarioOptions& o, const LoadOverrides& cli, const std::string& where) {
  check_options_agree(o, where);
  LoadShape shape;
  shape.graceful_stop = o.graceful_stop;
  const bool rate_model = cli.rate.has_value() || (!cli.vus && (o.rate || !o.rate_stages.empty()));
  const std::optional<long long> iterations = cli.iterations ? cli.iterations : o.iterations;
  std::optional<Nanos> duration = cli.duration ? cli.duration : o.duration;

  if (iterations) {
    // k6's shared iterations: a count of iterations for a constant number of VUs. A rate
    // already says how many iterations start, and stages how many VUs over time.
    const char* source = cli.iterations ? "--iterations" : "options.iterations";
    if (rate_model)
      throw ScenarioError(fmt::format(
          "{}: {} counts the iterations of VUs (vus, or --vus), and this load is an arrival rate, which "
          "already says how many iterations start: drop one",
          where, source));
    if (!o.stages.empty() && !(cli.vus && cli.duration))
      throw ScenarioError(fmt::format(
          "{}: {} goes with a constant number of VUs (vus), not with stages: drop one, or pass --vus", where, source));
    const long long vus = cli.vus ? *cli.vus : o.vus ? *o.vus : 1;
    if (*iterations < vus)
      throw ScenarioError(fmt::format(
          "{}: {} is {}, fewer than the {} VUs: each VU runs at least one iteration; lower the VUs or raise "
          "the iterations",
          where, source, *iterations, vus));
    shape.iterations = *iterations;
    if (!duration) duration = kIterationsMaxDuration;
  }

  if (rate_model) {
    shape.model = LoadModel::Rate;
    if (cli.rate || o.rate) {
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
    const bool staged = !cli.rate && !o.rate;
    require_some_load(shape, where, staged ? "the rate_stages and start_rate never go above 0" : "options.rate is 0");
    return shape;
  }

  if (cli.max_vus) {
    throw ScenarioError(fmt::format(
        "{}: --max-vus caps an arrival rate's VUs, and this run has none: pass --rate with it", where));
  }
  shape.model = LoadModel::Vus;
  if (!o.stages.empty() && !(cli.vus && cli.duration)) {
    // One flag without the other would silently turn a ramp into a constant load (k6 runs
    // one VU for --duration alone), which a CI job copying a guide would never notice.
    if (cli.vus || cli.duration) {
      throw ScenarioError(fmt::format(
          "{}: {} replaces options.stages with a constant load: give --vus and --duration together (the stages "
          "reach {:g} VUs over {})",
          where, cli.vus ? "--vus" : "--duration", peak_of(o.stages), proto::format_duration(total_of(o.stages))));
    }
    // k6's ramping VUs start from options.vus when it is given.
    shape.start = static_cast<double>(o.vus.value_or(0));
    shape.stages = o.stages;
    require_some_load(shape, where, "the stages (and options.vus) never go above 0 VUs");
  } else {
    const long long vus = cli.vus ? *cli.vus : o.vus ? *o.vus : 1;
    if (!duration)
      throw ScenarioError(fmt::format(
          "{}: no load given: set options.duration (with vus), options.stages, or rate with duration; "
          "or pass --duration (and --vus or --rate)",
          where));
    shape.start = static_cast<double>(vus);
    shape.stages = {{*duration, static_cast<double>(vus)}};
    require_some_load(shape, where, cli.vus ? "--vus is 0" : "options.vus is 0");
  }
  return shape;
}

}  // namespace stampede::engine
