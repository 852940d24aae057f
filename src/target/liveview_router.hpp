#pragma once
// The demo app's router, as far as LiveView cares (the `live` routes of the recorded app):
// which path mounts which view, in which live_session, with which title.
//
//   /counter      CounterLive        default        /posts/new   PostLive.New   default
//   /posts        PostLive.Index     default        /components  ComponentsLive default
//   /upload       UploadLive         default        /dashboard   DashboardLive  authenticated
//   /stale        StaleLive          default        /crash       CrashLive      default
//
// (/login and /logout are plain controller routes: see liveview_http_routes.hpp.)
#include <cstdint>
#include <optional>
#include <string_view>

namespace stampede::target {

enum class LiveViewPage : std::uint8_t { Counter, PostsNew, Posts, Components, Upload, Dashboard, Stale, Crash };

struct PageRoute {
  LiveViewPage page;
  std::string_view path;          // inside its scope: "/counter"
  std::string_view module;        // what session tokens name: "Elixir.DemoWeb.CounterLive"
  std::string_view live_session;  // navigation stays inside one live_session
  std::string_view title;         // page_title ("t" in the join's rendered)
};

const PageRoute* route_for_path(std::string_view path);
const PageRoute* route_for_module(std::string_view module);
const PageRoute& route_of(LiveViewPage page);

// Splits an absolute URL ("http://host:4000/posts?page=2") into path and query; nullopt when
// it is not absolute: LiveView joins and patches always carry absolute URLs (§5.2, §5.8).
struct UrlParts {
  std::string_view path;
  std::string_view query;
};
std::optional<UrlParts> split_absolute_url(std::string_view url);

}  // namespace stampede::target
