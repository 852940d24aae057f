#include "target/liveview_router.hpp"

#include <array>

namespace stampede::target {
namespace {

constexpr std::array<PageRoute, 8> kRoutes{{
    {LiveViewPage::Counter, "/counter", "Elixir.DemoWeb.CounterLive", "default", "Counter"},
    {LiveViewPage::PostsNew, "/posts/new", "Elixir.DemoWeb.PostLive.New", "default", "New post"},
    {LiveViewPage::Posts, "/posts", "Elixir.DemoWeb.PostLive.Index", "default", "Posts"},
    {LiveViewPage::Components, "/components", "Elixir.DemoWeb.ComponentsLive", "default", "Components"},
    {LiveViewPage::Upload, "/upload", "Elixir.DemoWeb.UploadLive", "default", "Upload"},
    {LiveViewPage::Dashboard, "/dashboard", "Elixir.DemoWeb.DashboardLive", "authenticated", "Dashboard"},
    {LiveViewPage::Stale, "/stale", "Elixir.DemoWeb.StaleLive", "default", "Stale"},
    {LiveViewPage::Crash, "/crash", "Elixir.DemoWeb.CrashLive", "default", "Crash"},
}};

}  // namespace

const PageRoute* route_for_path(std::string_view path) {
  for (const auto& route : kRoutes) {
    if (route.path == path) return &route;
  }
  return nullptr;
}

const PageRoute* route_for_module(std::string_view module) {
  for (const auto& route : kRoutes) {
    if (route.module == module) return &route;
  }
  return nullptr;
}

const PageRoute& route_of(LiveViewPage page) { return kRoutes[static_cast<std::size_t>(page)]; }

std::optional<UrlParts> split_absolute_url(std::string_view url) {
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos || scheme_end == 0) return std::nullopt;
  const auto scheme = url.substr(0, scheme_end);
  if (scheme != "http" && scheme != "https") return std::nullopt;
  const auto authority_start = scheme_end + 3;
  const auto path_start = url.find_first_of("/?#", authority_start);
  if (path_start == authority_start) return std::nullopt;  // no host
  UrlParts parts;
  if (path_start == std::string_view::npos) {
    parts.path = "/";
    return parts;
  }
  auto rest = url.substr(path_start);
  rest = rest.substr(0, rest.find('#'));
  const auto question = rest.find('?');
  parts.path = rest.substr(0, question);
  if (parts.path.empty()) parts.path = "/";
  if (question != std::string_view::npos) parts.query = rest.substr(question + 1);
  return parts;
}

}  // namespace stampede::target
