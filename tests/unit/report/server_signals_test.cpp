// "What broke first" for --find-limit: realistic step-by-step server figures (the names of
// Stampede.Probe, PromEx and telemetry_metrics_prometheus) and the signal each story should
// name.
#include "report/server_signals.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace stampede::report {
namespace {

MetricFigures gauge(std::string name, double max) {
  MetricFigures f;
  f.name = std::move(name);
  f.kind = metrics::Kind::Gauge;
  f.present = true;
  f.count = 5;
  f.gauge_max = max;
  f.gauge_last = max;
  return f;
}

MetricFigures timing(std::string name, double p95_ms) {
  MetricFigures f;
  f.name = std::move(name);
  f.kind = metrics::Kind::Timing;
  f.present = true;
  f.count = 100;
  f.p95 = static_cast<Nanos>(p95_ms * 1e6);
  return f;
}

struct Row {
  double level;
  const char* status;
  double run_queue, utilization, memory_mb, handler_ms, ecto_ms;
};

// Stampede.Probe's series for one step.
ServerStepFigures probe_step(const Row& r) {
  ServerStepFigures s;
  s.level = r.level;
  s.status = r.status;
  s.server = {
      gauge("server.erlang_vm_run_queues_length", r.run_queue),
      gauge("server.erlang_vm_run_queue_length{queue=\"1\"}", r.run_queue / 2),
      gauge("server.erlang_vm_schedulers_online{type=\"normal\"}", 8),
      gauge("server.erlang_vm_schedulers_utilization_ratio{type=\"normal\"}", r.utilization),
      gauge("server.erlang_vm_schedulers_utilization_ratio{type=\"dirty_cpu\"}", 0.01),
      gauge("server.erlang_vm_memory_bytes{kind=\"total\"}", r.memory_mb * 1e6),
      gauge("server.erlang_vm_memory_bytes{kind=\"processes\"}", r.memory_mb * 0.6e6),
      timing("server.phoenix_live_view_handle_event_duration_seconds", r.handler_ms * 0.8),
      timing("server.phoenix_live_view_handle_event_duration_seconds{view=\"CounterLive\",event=\"inc\"}", r.handler_ms),
      timing("server.phoenix_live_view_handle_event_duration_seconds{view=\"RoomLive\",event=\"say\"}", 2),
      timing("server.ecto_query_queue_duration_seconds", r.ecto_ms),
      timing("server.ecto_query_queue_duration_seconds{repo=\"MyApp.Repo\",source=\"counters\"}", r.ecto_ms * 1.1),
  };
  return s;
}

std::vector<ServerStepFigures> probe_steps(const std::vector<Row>& rows) {
  std::vector<ServerStepFigures> out;
  for (const Row& r : rows) out.push_back(probe_step(r));
  return out;
}

const ServerSignalColumn& column(const ServerBreakdown& b, const std::string& key) {
  for (const auto& c : b.columns) {
    if (c.key == key) return c;
  }
  ADD_FAILURE() << "no column " << key;
  static ServerSignalColumn none;
  return none;
}

TEST(WhatBrokeFirst, SaturatedSchedulersComeBeforeTheirSymptoms) {
  // CPU-bound LiveView: at 8,000 VUs the run queue, utilization, the handler's p95 and even
  // the Ecto queue time all move; the run queue is the cause.
  const auto steps = probe_steps({
      {1000, "pass", 1, 0.21, 80, 3, 1},
      {2000, "pass", 2, 0.39, 95, 4, 1},
      {4000, "pass", 3, 0.74, 120, 6, 2},
      {8000, "fail", 310, 0.99, 180, 420, 30},
  });
  const ServerBreakdown b = what_broke_first(steps);
  ASSERT_EQ(b.columns.size(), 5u);
  EXPECT_EQ(b.columns[0].key, "run_queue");
  EXPECT_EQ(b.columns[0].metric, "server.erlang_vm_run_queues_length") << "the total, not one queue";
  EXPECT_EQ(b.columns[0].values[3], 310);
  EXPECT_EQ(column(b, "scheduler_utilization").metric, "server.erlang_vm_schedulers_utilization_ratio{type=\"normal\"}");
  EXPECT_EQ(column(b, "memory").metric, "server.erlang_vm_memory_bytes{kind=\"total\"}");
  EXPECT_EQ(column(b, "memory").unit, "bytes");
  EXPECT_EQ(column(b, "ecto_queue").metric, "server.ecto_query_queue_duration_seconds") << "the family as a whole";
  EXPECT_EQ(column(b, "handler").metric,
            "server.phoenix_live_view_handle_event_duration_seconds{view=\"CounterLive\",event=\"inc\"}")
      << "the slowest handler";
  EXPECT_EQ(column(b, "handler").values[3], 420);
  ASSERT_TRUE(b.first.has_value());
  EXPECT_EQ(b.columns[*b.first].key, "run_queue");
  EXPECT_EQ(b.verdict,
            "the BEAM run queue went from 3 to 310: the schedulers were saturated (more processes ready to run than "
            "its 8 schedulers)");
}

TEST(WhatBrokeFirst, AnExhaustedEctoPoolIsNamedBeforeTheHandlersItSlows) {
  // The queue time started climbing a step before the failure; the handlers followed it.
  const auto steps = probe_steps({
      {1000, "pass", 1, 0.20, 80, 3, 1},
      {2000, "pass", 1, 0.28, 82, 4, 2},
      {3000, "pass", 2, 0.33, 83, 50, 45},
      {4000, "fail", 2, 0.36, 85, 800, 900},
  });
  const ServerBreakdown b = what_broke_first(steps);
  ASSERT_TRUE(b.first.has_value());
  EXPECT_EQ(b.columns[*b.first].key, "ecto_queue");
  EXPECT_EQ(b.verdict,
            "the Ecto queue time p95 went from 2.00ms to 900.00ms: requests waited for a database connection: the "
            "Ecto pool was too small, or the database too slow");
}

TEST(WhatBrokeFirst, AThresholdOnAServerSeriesIsTheUsersOwnLine) {
  auto steps = probe_steps({
      {1000, "pass", 1, 0.2, 80, 3, 1},
      {2000, "fail", 2, 0.3, 400, 4, 1},  // memory 5x: the only thing that moved
  });
  metrics::ThresholdResult t;
  t.spec = {"server.erlang_vm_memory_bytes{kind=\"total\"}", "max", 300e6, "s.lua"};
  t.judged = true;
  t.pass = false;
  t.value = 400e6;
  steps[1].thresholds.push_back(t);
  const ServerBreakdown b = what_broke_first(steps);
  ASSERT_TRUE(b.first.has_value());
  EXPECT_EQ(b.columns[*b.first].key, "memory");
  EXPECT_EQ(b.verdict,
            "memory went from 80.00MB to 400.00MB: over its threshold, server.erlang_vm_memory_bytes{kind=\"total\"} "
            "max <= 300000000");
}

TEST(WhatBrokeFirst, NothingIsNamedWhenTheServerStayedCalm) {
  // The client's threshold broke (the network, the generator, a slow external API): the
  // server's figures barely moved, and the columns still show that.
  const auto steps = probe_steps({
      {1000, "pass", 1, 0.20, 80, 3, 1},
      {2000, "pass", 1, 0.25, 82, 3, 1},
      {3000, "fail", 2, 0.30, 85, 4, 1},
  });
  const ServerBreakdown b = what_broke_first(steps);
  EXPECT_EQ(b.columns.size(), 5u);
  EXPECT_FALSE(b.first.has_value());
  EXPECT_EQ(b.verdict, "");
}

TEST(WhatBrokeFirst, UtilizationOverNinetyPercentIsSaturation) {
  const auto steps = probe_steps({
      {100, "pass", 1, 0.55, 80, 3, 1},
      {200, "fail", 4, 0.93, 80, 5, 1},
  });
  const ServerBreakdown b = what_broke_first(steps);
  ASSERT_TRUE(b.first.has_value());
  EXPECT_EQ(b.verdict, "the schedulers' utilization went from 55% to 93%: the BEAM ran out of CPU");
}

TEST(WhatBrokeFirst, RefineProbesAreTakenInLevelOrder) {
  // The staircase, then a refine probe between 2,000 (held) and 4,000 (broke) that also broke.
  auto steps = probe_steps({
      {2000, "pass", 2, 0.3, 80, 4, 1},
      {4000, "fail", 300, 0.99, 90, 400, 2},
      {3000, "fail", 150, 0.97, 85, 200, 2},
  });
  const ServerBreakdown b = what_broke_first(steps);  // the lowest failing level: 3,000
  ASSERT_TRUE(b.first.has_value());
  EXPECT_EQ(b.verdict,
            "the BEAM run queue went from 2 to 150: the schedulers were saturated (more processes ready to run than "
            "its 8 schedulers)");
}

TEST(WhatBrokeFirst, PromExAndTelemetryMetricsPrometheusNames) {
  const auto step = [](double level, const char* status, double queue, double handler, double ecto) {
    ServerStepFigures s;
    s.level = level;
    s.status = status;
    s.server = {
        gauge("server.my_app_prom_ex_beam_stats_run_queue_count", queue),
        gauge("server.my_app_prom_ex_beam_memory_allocated_bytes", 90e6),
        gauge("server.my_app_prom_ex_beam_system_schedulers_online_info", 4),
        timing("server.my_app_prom_ex_phoenix_channel_handled_in_duration_milliseconds", handler),
        timing("server.ecto_repo_query_queue_time_milliseconds{repo=\"MyApp.Repo\"}", ecto),
        // telemetry_metrics_prometheus, from Phoenix's generated telemetry.ex
        gauge("server.vm_total_run_queue_lengths_total", queue),
    };
    return s;
  };
  const std::vector<ServerStepFigures> steps = {step(50, "pass", 0, 2, 0.5), step(100, "fail", 0, 3, 120)};
  const ServerBreakdown b = what_broke_first(steps);
  EXPECT_EQ(column(b, "run_queue").metric, "server.vm_total_run_queue_lengths_total");
  EXPECT_EQ(column(b, "memory").metric, "server.my_app_prom_ex_beam_memory_allocated_bytes");
  EXPECT_EQ(column(b, "handler").metric, "server.my_app_prom_ex_phoenix_channel_handled_in_duration_milliseconds");
  EXPECT_EQ(column(b, "ecto_queue").metric, "server.ecto_repo_query_queue_time_milliseconds{repo=\"MyApp.Repo\"}");
  ASSERT_TRUE(b.first.has_value());
  EXPECT_EQ(b.columns[*b.first].key, "ecto_queue");
}

// The built-in target's /metrics (`stampede target --capacity`): requests it holds pile up
// once it is past its capacity; its memory stays flat.
ServerStepFigures target_step(double level, const char* status, double in_flight) {
  ServerStepFigures s;
  s.level = level;
  s.status = status;
  s.server = {
      gauge("server.stampede_target_connections", 20),
      gauge("server.stampede_target_http_requests_in_flight", in_flight),
      gauge("server.process_resident_memory_bytes", 30e6),
      // Go's client counts scrapes of /metrics in flight, not the app's requests.
      gauge("server.promhttp_metric_handler_requests_in_flight", 1),
  };
  return s;
}

TEST(WhatBrokeFirst, RequestsPilingUpInTheServer) {
  const std::vector<ServerStepFigures> steps = {target_step(100, "pass", 2), target_step(300, "pass", 4),
                                                target_step(800, "fail", 88)};
  const ServerBreakdown b = what_broke_first(steps);
  ASSERT_EQ(b.columns.size(), 2u);
  EXPECT_EQ(b.columns[0].key, "memory");
  EXPECT_EQ(b.columns[1].key, "in_flight");
  EXPECT_EQ(b.columns[1].metric, "server.stampede_target_http_requests_in_flight");
  EXPECT_EQ(b.columns[1].unit, "count");
  EXPECT_EQ(b.columns[1].title, "requests in flight max");
  ASSERT_TRUE(b.first.has_value());
  EXPECT_EQ(b.columns[*b.first].key, "in_flight");
  EXPECT_EQ(b.verdict,
            "the requests in flight went from 4 to 88: the server answered slower than requests arrived, and they "
            "piled up");
}

TEST(WhatBrokeFirst, AFewMoreRequestsInFlightAreTheLoadNotTrouble) {
  // 3x, but by less than 10 requests: more users keep more requests in flight.
  const std::vector<ServerStepFigures> steps = {target_step(1, "pass", 1), target_step(3, "fail", 3)};
  const ServerBreakdown b = what_broke_first(steps);
  EXPECT_EQ(column(b, "in_flight").values, (std::vector<std::optional<double>>{1, 3}));
  EXPECT_FALSE(b.first.has_value());
  EXPECT_EQ(b.verdict, "");
}

TEST(WhatBrokeFirst, TheRunQueueIsNamedBeforeTheRequestsItMadeWait) {
  // A BEAM app exposing both: the schedulers' saturation is the cause of the pile-up.
  auto steps = probe_steps({
      {1000, "pass", 1, 0.5, 80, 3, 1},
      {2000, "fail", 150, 0.99, 85, 40, 2},
  });
  steps[0].server.push_back(gauge("server.http_server_active_requests", 3));
  steps[1].server.push_back(gauge("server.http_server_active_requests", 400));
  const ServerBreakdown b = what_broke_first(steps);
  EXPECT_EQ(column(b, "in_flight").metric, "server.http_server_active_requests");
  ASSERT_TRUE(b.first.has_value());
  EXPECT_EQ(b.columns[*b.first].key, "run_queue");
}

TEST(WhatBrokeFirst, NoServerMetricsNoColumns) {
  std::vector<ServerStepFigures> steps(2);
  steps[0].level = 1;
  steps[0].status = "pass";
  steps[1].level = 2;
  steps[1].status = "fail";
  const ServerBreakdown b = what_broke_first(steps);
  EXPECT_TRUE(b.columns.empty());
  EXPECT_EQ(b.verdict, "");
}

TEST(FormatSignal, ReadsAsTheTableShowsIt) {
  EXPECT_EQ(format_signal("count", 310), "310");
  EXPECT_EQ(format_signal("ratio", 0.934), "93%");
  EXPECT_EQ(format_signal("bytes", 1.2e9), "1.20GB");
  EXPECT_EQ(format_signal("ms", 68.75), "68.75ms");
  EXPECT_EQ(format_signal("number", 2.5), "2.50");
}

}  // namespace
}  // namespace stampede::report
