// find-limit: one run for the whole staircase (the load never drops between steps, as it
// would not in production), judged step by step as the seconds come in; then, with
// --refine, one short run per probe level between the last level that held and the first
// that broke.
#include "cli/find_limit_command.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <mutex>
#include <stdexcept>

#include "cli/find_limit_args.hpp"
#include "cli/scenario_execution.hpp"
#include "cli/summary_lock.hpp"
#include "engine/find_limit_plan.hpp"
#include "engine/step_judge.hpp"
#include "engine/stop_signals.hpp"
#include "metrics/metric_table.hpp"
#include "report/find_limit_table.hpp"
#include "report/server_signals.hpp"
#include "scenario/scenario_error.hpp"

namespace stampede::cli {

namespace {

using engine::LimitBy;

// A step as judged: its row, and the server's figures over its hold (with --server-metrics).
struct JudgedStep {
  report::FindLimitStep row;
  std::vector<report::MetricFigures> server;
};

// The thresholds, the generator's health and the server's figures over one step's hold.
// `server_exposed`: what the server-metrics endpoints exposed so far (threshold messages).
JudgedStep judge_hold(const metrics::Collector& collector, const metrics::Registry& registry,
                      const std::vector<metrics::ThresholdSpec>& thresholds, const engine::StepWindow& w, LimitBy by,
                      const std::vector<std::string>& server_exposed) {
  JudgedStep judged;
  report::FindLimitStep& row = judged.row;
  row.level = w.level;
  row.hold_start = w.hold_start;
  row.hold_end = w.hold_end;
  const double seconds = static_cast<double>(w.last_second - w.first_second + 1);
  const auto table = metrics::make_metric_table(collector.summary_window(w.first_second, w.last_second), registry);
  for (const auto& spec : thresholds) row.thresholds.push_back(metrics::judge(spec, table, seconds, server_exposed));
  judged.server = report::server_figures(table, seconds);
  row.generator = generator_figures(collector, registry, w.first_second, w.last_second, seconds,
                                    report::format_load(w.level, by == LimitBy::Rate));
  return judged;
}

bool all_passed(const report::FindLimitStep& row) {
  for (const auto& t : row.thresholds)
    if (!t.pass) return false;
  return true;
}

// Fills limit, failed_at, broke, reached_up_to, inconclusive and the headline.
void conclude(report::FindLimitResult& r, const engine::FindLimitSettings& s) {
  const bool by_rate = s.by == LimitBy::Rate;
  const report::FindLimitStep* lowest_bad = nullptr;
  for (const auto& row : r.steps) {
    if (row.status == "pass" && (!r.limit || row.level > *r.limit)) r.limit = row.level;
    if ((row.status == "fail" || row.status == "inconclusive") && (lowest_bad == nullptr || row.level < lowest_bad->level))
      lowest_bad = &row;
  }
  if (lowest_bad != nullptr) {
    r.failed_at = lowest_bad->level;
    r.inconclusive = lowest_bad->status == "inconclusive";
    r.broke = r.inconclusive ? std::string() : report::first_broken(*lowest_bad);
  }
  r.reached_up_to = r.limit && *r.limit >= s.up_to;
  const auto load = [by_rate](double level) { return report::format_load(level, by_rate); };
  if (r.reached_up_to) {
    r.verdict = fmt::format("Held {}, the most it was asked to try", load(s.up_to));
  } else if (r.inconclusive) {
    const std::string& why = lowest_bad->generator ? lowest_bad->generator->verdict : std::string();
    r.verdict = r.limit ? fmt::format("Held {}; then the generator became the bottleneck\n{}", load(*r.limit), why)
                        : fmt::format("No level could be judged: the generator was the bottleneck\n{}", why);
  } else if (r.limit && r.failed_at) {
    const std::string within =
        r.refine ? fmt::format(" (known within {})", report::format_level(*r.failed_at - *r.limit)) : std::string();
    r.verdict = fmt::format("Held {}{}; {} broke {}", load(*r.limit), within, load(*r.failed_at), r.broke);
  } else if (r.failed_at) {
    r.verdict = fmt::format("No level held: {} already broke {}", load(*r.failed_at), r.broke);
  } else {
    r.verdict = r.limit ? fmt::format("Held {} before the run was stopped", load(*r.limit))
                        : std::string("No step was judged: the run was stopped first");
  }
}

// With --server-metrics: the server's columns of the step table and, when a level broke,
// the server signal that broke first, named in the verdict next to the threshold
// ("...; 9,000 VUs broke live.event p95 <= 250ms (420ms) while the BEAM run queue went
// from 2 to 310: the schedulers were saturated"). `server`: per step of `r.steps`.
void add_what_broke_first(report::FindLimitResult& r, const std::vector<std::vector<report::MetricFigures>>& server) {
  std::vector<report::ServerStepFigures> figures;
  std::optional<std::size_t> failing;
  for (std::size_t i = 0; i < r.steps.size(); ++i) {
    const report::FindLimitStep& step = r.steps[i];
    figures.push_back({step.level, step.status, i < server.size() ? server[i] : std::vector<report::MetricFigures>{},
                       step.thresholds});
    // The step that decided the verdict: the lowest level that failed (not one where the
    // generator ran out: then the figures measure the generator, not the server).
    if (r.failed_at && !r.inconclusive && step.level == *r.failed_at && step.status == "fail") failing = i;
  }
  report::ServerBreakdown breakdown = report::what_broke_first(figures, failing);
  if (!breakdown.verdict.empty() && failing) r.verdict += " while " + breakdown.verdict;
  r.server = std::move(breakdown);
}

}  // namespace

int find_limit_one(const std::string& path, const RunArgs& args, LiveExports* live, report::ScenarioResult& result) {
  if (args.overrides.vus || args.overrides.rate || args.overrides.duration || args.overrides.iterations)
    throw scenario::ScenarioError(
        "--find-limit sets the load itself, step by step: leave out --vus, --rate, --duration and --iterations "
        "(use --start, --step, --up-to, --hold and --ramp)");
  metrics::Registry registry;
  PreparedScenario sc = load_scenario(path, args, registry);
  // The scenario's vus, rate and duration are a load the staircase replaces, as users expect;
  // a count of iterations is a different kind of run, so dropping it is said.
  if (sc.options.iterations)
    fmt::print(stderr,
               "{}: options.iterations ({}) is not used by --find-limit: each step runs for its --hold, as many "
               "iterations as its load makes\n",
               path, *sc.options.iterations);
  engine::FindLimitSettings settings;
  std::vector<engine::StepWindow> steps;
  try {
    settings = find_limit_settings(args.find_limit, sc.options.find_limit);
    steps = engine::plan_steps(settings);
  } catch (const std::invalid_argument& e) {
    throw scenario::ScenarioError(fmt::format("{}: {}", path, e.what()));
  }
  if (sc.thresholds.empty())
    throw scenario::ScenarioError(fmt::format(
        "{}: --find-limit judges each step by the scenario's thresholds, and it has none: add options.thresholds, "
        "such as {{ {{\"http.request\", p95 = 250}} }}",
        path));
  // Only how VUs stop and the cap on iterations in flight come from the scenario's own load.
  LoadShape base;
  base.model = LoadModel::Rate;
  base.graceful_stop = sc.options.graceful_stop;
  base.max_vus = static_cast<int>(args.overrides.max_vus.value_or(sc.options.max_vus.value_or(0)));
  const bool by_rate = settings.by == LimitBy::Rate;
  engine::run_setup(sc, registry);

  report::FindLimitResult found;
  found.by = by_rate ? "rate" : "vus";
  found.start = steps.front().level;
  found.step = settings.step;
  found.up_to = settings.up_to;
  found.ramp = settings.ramp;
  found.hold = settings.hold;
  found.refine = settings.refine;
  found.resolution = engine::refine_resolution(settings);

  // The staircase.
  ScenarioExecution staircase(sc, args, engine::staircase_shape(settings, steps, base), registry, live, args.quiet);
  engine::StepJudge judge(steps);
  std::vector<report::FindLimitStep> rows(steps.size());
  for (std::size_t i = 0; i < steps.size(); ++i) {
    rows[i].level = steps[i].level;
    rows[i].hold_start = steps[i].hold_start;
    rows[i].hold_end = steps[i].hold_end;
    rows[i].status = engine::step_status_name(engine::StepStatus::NotReached);
  }
  std::vector<std::vector<report::MetricFigures>> server(steps.size());  // per row
  std::mutex rows_mutex;  // the observer runs on a worker's (or the sampler's) thread
  staircase.observe([&](const metrics::Snapshot& second) {
    for (std::size_t i : judge.on_second(second.second)) {
      JudgedStep judged = judge_hold(staircase.collector(), registry, sc.thresholds, steps[i], settings.by,
                                     staircase.server_exposed_names());
      report::FindLimitStep& row = judged.row;
      const bool go_on = judge.record(i, {all_passed(row), row.generator && row.generator->bottleneck});
      row.status = engine::step_status_name(judge.status(i));
      {
        std::lock_guard lock(rows_mutex);
        rows[i] = std::move(row);
        server[i] = std::move(judged.server);
      }
      if (!go_on) staircase.stop();
    }
  });
  const Nanos duration = staircase.run();
  {
    std::lock_guard lock(rows_mutex);
    found.steps = rows;
  }

  // --refine: bisect between the last level that held and the first that broke.
  const auto first_bad = judge.first_not_passed();
  if (settings.refine && staircase.interrupts() == 0 && first_bad && judge.status(*first_bad) == engine::StepStatus::Failed) {
    const double passed = judge.last_passed() ? steps[*judge.last_passed()].level : 0;
    engine::Bisection bisection(passed, steps[*first_bad].level, found.resolution, settings.by);
    while (const auto level = bisection.next()) {
      if (!args.quiet) std::fprintf(stderr, "refine: trying %s\n", report::format_load(*level, by_rate).c_str());
      const engine::StepWindow w = engine::single_step(settings, *level);
      ScenarioExecution probe(sc, args, engine::single_step_shape(settings, *level, base), registry, nullptr, true);
      std::optional<JudgedStep> judged;
      std::mutex row_mutex;
      probe.observe([&](const metrics::Snapshot& second) {
        if (second.second < w.last_second) return;
        std::lock_guard lock(row_mutex);
        if (judged) return;
        judged = judge_hold(probe.collector(), registry, sc.thresholds, w, settings.by, probe.server_exposed_names());
        probe.stop();
      });
      try {
        probe.run();
      } catch (const engine::StoppedBeforeTheLoad&) {
        // A Ctrl-C between two runs: the search ends as one during a probe ends it.
        std::fputs("interrupted: no more refining.\n", stderr);
        break;
      }
      if (probe.interrupts() > 0 || !judged) break;
      std::optional<report::FindLimitStep> row = std::move(judged->row);
      server.push_back(std::move(judged->server));
      row->refine = true;
      const bool bound = row->generator && row->generator->bottleneck;
      row->status = bound ? "inconclusive" : all_passed(*row) ? "pass" : "fail";
      if (!args.quiet) std::fprintf(stderr, "refine: %s %s\n", report::format_load(*level, by_rate).c_str(), row->status.c_str());
      found.steps.push_back(*row);
      if (bound) break;  // past here the figures measure the generator
      bisection.record(*level, row->status == "pass");
    }
  }
  conclude(found, settings);
  if (sc.options.server_metrics) add_what_broke_first(found, server);

  if (const std::string failed = engine::run_teardown(sc, registry); !failed.empty()) staircase.output().warn(failed);
  // The whole staircase's figures; the thresholds are judged per step, above.
  std::lock_guard summary(summary_lock());
  staircase.output().finish(duration, {});
  result = staircase.output().result();
  result.generator = generator_figures(staircase.collector(), registry, 0, -1,
                                       std::max(1e-9, static_cast<double>(duration) / kSecond),
                                       report::format_load(found.failed_at.value_or(found.limit.value_or(0)), by_rate));
  result.generator->setup = staircase.setup_description();
  // The whole staircase's figures average the step where the generator ran out over the
  // easy ones before it: the run's verdict is that step's, the one the find-limit verdict
  // names (the lowest level that did not hold, inconclusive).
  if (found.inconclusive && found.failed_at) {
    for (const report::FindLimitStep& step : found.steps) {
      if (step.level != *found.failed_at || step.status != "inconclusive" || !step.generator) continue;
      result.generator->bottleneck = step.generator->bottleneck;
      result.generator->verdict = step.generator->verdict;
      break;
    }
  }
  result.find_limit = found;
  // The thresholds as judged where the verdict was decided (docs/design/012): the results
  // file, JUnit and the HTML report show what held at the limit, or what broke.
  if (const report::FindLimitStep* decided = report::verdict_step(found)) result.thresholds = decided->thresholds;
  std::string text =
      report::render_find_limit(found) + report::render_generator_line(*result.generator, staircase.workers_may_poll());
  std::fputs(text.c_str(), stdout);
  std::fflush(stdout);
  return result.passed() ? 0 : 1;
}

}  // namespace stampede::cli
