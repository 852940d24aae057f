#include "cli/find_limit_args.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <stdexcept>

#include "cli/number_checks.hpp"
#include "proto/duration.hpp"

namespace stampede::cli {

namespace {

std::string check_duration(const std::string& text) {
  std::string error;
  return proto::parse_duration(text, &error) ? std::string() : error;
}

}  // namespace

void add_find_limit_options(CLI::App& run, FindLimitArgs& args) {
  // Flags, not options: `--find-limit file.lua` must not take the file as its value.
  run.add_flag("--find-limit{scenario}", args.by,
               "Step the load up until a threshold breaks and report the most it held: --find-limit (VUs, or what "
               "options.find_limit.by says) or --find-limit=rate (arrival rate)")
      ->check(CLI::IsMember({"scenario", "vus", "rate"}));
  run.add_option("--start", args.start, "find-limit: the first level (default: one step)")->check(check_non_negative_number);
  run.add_option("--step", args.step, "find-limit: how much each step adds (VUs, or iterations/s)")
      ->check(check_positive_number);
  run.add_option("--up-to", args.up_to, "find-limit: the highest level to try")->check(check_positive_number);
  run.add_option("--hold", args.hold, "find-limit: how long each step holds its level, judged (default 30s)")
      ->check(check_duration);
  run.add_option("--ramp", args.ramp, "find-limit: how long each step ramps to its level, not judged (default 5s)")
      ->check(check_duration);
  run.add_flag("--refine{auto}", args.refine,
               "find-limit: after the first failing step, bisect until the limit is known within step/8 "
               "(--refine=N: within N)")
      ->check([](const std::string& text) -> std::string {
        if (text == "auto") return {};
        try {
          std::size_t used = 0;
          if (std::stod(text, &used) > 0 && used == text.size()) return {};
        } catch (const std::exception&) {
        }
        return "--refine takes no value, or a resolution above zero such as --refine=50";
      });
}

engine::FindLimitSettings find_limit_settings(const FindLimitArgs& args,
                                              const std::optional<scenario::FindLimitOption>& option) {
  engine::FindLimitSettings s;
  const scenario::FindLimitOption o = option.value_or(scenario::FindLimitOption{});
  std::string by = args.by == "scenario" ? o.by.value_or("vus") : args.by;
  s.by = by == "rate" ? engine::LimitBy::Rate : engine::LimitBy::Vus;
  s.start = args.start ? *args.start : o.start.value_or(0);
  if (!args.step && !o.step)
    throw std::invalid_argument("--find-limit needs a step: pass --step N (or set options.find_limit.step)");
  if (!args.up_to && !o.up_to)
    throw std::invalid_argument("--find-limit needs a highest level: pass --up-to N (or set options.find_limit.up_to)");
  s.step = args.step ? *args.step : *o.step;
  s.up_to = args.up_to ? *args.up_to : *o.up_to;
  s.hold = !args.hold.empty() ? *proto::parse_duration(args.hold) : o.hold.value_or(s.hold);
  s.ramp = !args.ramp.empty() ? *proto::parse_duration(args.ramp) : o.ramp.value_or(s.ramp);
  s.refine = !args.refine.empty() || o.refine.value_or(false);
  if (!args.refine.empty() && args.refine != "auto") {
    s.resolution = std::stod(args.refine);
  } else {
    s.resolution = o.resolution.value_or(0);
  }
  engine::validate(s);
  return s;
}

}  // namespace stampede::cli
