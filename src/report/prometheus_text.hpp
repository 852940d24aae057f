#pragma once
// The live figures of running scenarios in the Prometheus text exposition format
// (version 0.0.4), for `--prometheus`. Every sample has a `scenario` label.
//
//   stampede_http_request_seconds{scenario="Demo.Api",quantile="0.95"} 0.0319   summary over the run so far
//   stampede_http_request_seconds_sum / _count                                 (quantiles 0.5 0.9 0.95 0.99)
//   stampede_http_request_errors_total{scenario="Demo.Api"} 12                counters
//   stampede_http_request_errors_by_reason_total{scenario=..,reason="refused"} 9
//   stampede_checks_total{scenario=..,check="status is 200",result="pass"} 99
//   stampede_vus{scenario=..} 500                                              gauges: the latest value
//   stampede_requests_sent_total, _completed_total, _failed_total, stampede_requests_in_flight
//   stampede_elapsed_seconds, stampede_iterations_per_second, stampede_generator_cpu_cores
//
// Metric names are sanitised to [a-zA-Z0-9_:] ("http.request" -> "http_request"). Two
// metrics that sanitise to the same name (or whose series would collide, such as a timing
// "a" and a gauge "a.seconds.count") keep apart by a numeric suffix ("_2") on the later
// one in name order, since a scrape with a repeated family is rejected whole.
#include <string>
#include <string_view>
#include <vector>

#include "report/run_result.hpp"

namespace stampede::report {

// "http.request" -> "http_request"; characters outside [a-zA-Z0-9_:] become '_'.
std::string prometheus_name(std::string_view metric);

// Each scenario's figures over the run so far (metrics, requests, duration as the time
// elapsed); the last entry of its timeline, if any, is the latest second, which gives
// the per-second gauges.
std::string prometheus_text(const std::vector<ScenarioResult>& scenarios);

inline constexpr std::string_view kPrometheusContentType = "text/plain; version=0.0.4; charset=utf-8";

}  // namespace stampede::report
