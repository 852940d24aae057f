#include "clients/server_metrics_options.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "clients/url_target.hpp"
#include "proto/duration.hpp"

namespace stampede::clients {

Nanos ServerMetricsOptions::scrape_timeout() const {
  if (timeout) return *timeout;
  return std::min(every / 2, kDefaultTimeoutCap);
}

std::string validate_server_metrics(const ServerMetricsOptions& options, const std::string& where) {
  if (options.urls.empty())
    return fmt::format("{}: give the URL of a Prometheus endpoint to scrape, such as http://127.0.0.1:9568/metrics",
                       where);
  // A flag ("--server-metrics") names itself; a table's fields are named within it.
  const bool flag = where.starts_with("--");
  for (std::size_t i = 0; i < options.urls.size(); ++i) {
    const std::string& url = options.urls[i];
    const std::string field = options.urls.size() == 1 ? (flag ? where : where + ".url")
                                                       : fmt::format("{}{}[{}]", where, flag ? "" : ".urls", i + 1);
    UrlTarget target;
    std::string why;
    if (!parse_url_target(url, UrlSchemes::http, target, why))
      return fmt::format("{} \"{}\" is not a URL to scrape: {}", field, url, why);
    if (std::find(options.urls.begin(), options.urls.begin() + static_cast<std::ptrdiff_t>(i), url) !=
        options.urls.begin() + static_cast<std::ptrdiff_t>(i))
      return fmt::format("{} \"{}\" is given twice: each URL is scraped once per interval already", field, url);
  }
  if (options.every < ServerMetricsOptions::kMinEvery)
    return fmt::format("{}.every must be at least {}, got {}: every scrape costs the server some work too", where,
                       proto::format_duration(ServerMetricsOptions::kMinEvery), proto::format_duration(options.every));
  if (options.timeout) {
    if (*options.timeout <= 0)
      return fmt::format("{}.timeout must be more than 0, got {}", where, proto::format_duration(*options.timeout));
    if (*options.timeout >= options.every)
      return fmt::format("{}.timeout ({}) must be shorter than every ({}): a scrape has to end before the next is due",
                         where, proto::format_duration(*options.timeout), proto::format_duration(options.every));
  }
  for (std::size_t i = 0; i < options.select.size(); ++i) {
    const std::string& pattern = options.select[i];
    if (pattern.empty() || pattern == "server.")
      return fmt::format("{}.select[{}] is empty: give a pattern of family names, such as \"beam_*\"", where, i + 1);
  }
  if (options.max_body_bytes == 0) return fmt::format("{}: the largest body accepted must be more than 0 bytes", where);
  return {};
}

}  // namespace stampede::clients
