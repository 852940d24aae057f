#include "target/liveview_http_routes.hpp"

#include <string>

#include "target/liveview.hpp"
#include "target/liveview_layout.hpp"
#include "target/liveview_tokens.hpp"
#include "target/rendered_html.hpp"

namespace stampede::target {
namespace {

constexpr std::string_view kNotFoundPage = "Not Found";

PlugSession session_of(const RouteRequest& req) {
  const auto* header = req.request.header("cookie");
  if (header == nullptr) return {};
  const auto value = find_cookie(*header, kSessionCookieName);
  if (!value) return {};
  return decode_session_cookie(*value).value_or(PlugSession{});
}

std::string set_cookie_line(const PlugSession& session) {
  return "Set-Cookie: " + std::string(kSessionCookieName) + "=" + encode_session_cookie(session) +
         "; path=/; HttpOnly; SameSite=Lax\r\n";
}

std::string query_value(std::string_view query, std::string_view name) {
  for (auto& [key, value] : proto::decode_form(query)) {
    if (key == name) return std::move(value);
  }
  return {};
}

void redirect(const RouteRequest& req, Response& response, LiveViewScope scope, std::string location,
              std::string cookie_line = {}) {
  response.set_owned(302, kHtml, redirect_body(location));
  response.headers = std::move(cookie_line) + page_headers(scope.dialect, random_base64url(req.state.random, 15)) +
                     "Location: " + location + "\r\n";
}

void serve_page(const RouteRequest& req, Response& response, LiveViewScope scope, const PageRoute& route) {
  auto session = session_of(req);
  if (route.page == LiveViewPage::Dashboard && session.user.empty()) {
    redirect(req, response, scope, std::string(scope.prefix) + "/login");
    return;
  }
  auto& random = req.state.random;
  // The root layout asks for a CSRF token: the first one goes into the session (§1.4).
  std::string cookie_line;
  if (session.csrf_token.empty()) {
    session.csrf_token = new_csrf_secret(random);
    cookie_line = set_cookie_line(session);
  }
  const MountContext context{scope, req.query, session.user, false, random, *req.state.liveview_posts};
  auto mounted = mount_view(route.page, context);
  if (!mounted.view) {  // a dead mount always succeeds; this is a guard, not a path
    response.set_static(500, kHtml, "Internal Server Error");
    return;
  }
  std::string inner;
  RenderedHtml html(inner);
  render_layout(html, scope.dialect, *mounted.view, Changed::everything());

  const auto id = new_phx_id(random);
  const auto now_ms = wall_clock_ms();
  const auto session_token =
      sign_view_session(scope.dialect, {id, std::string(route.module), std::string(route.live_session)}, now_ms);
  const auto static_token = sign_view_static(scope.dialect, id, now_ms);
  const auto csrf = mask_csrf_token(session.csrf_token, random);
  response.set_owned(200, kHtml, render_page_html({scope, csrf, route.title, id, session_token, static_token, inner}));
  response.headers = std::move(cookie_line) + page_headers(scope.dialect, random_base64url(random, 15));
}

void serve_login(const RouteRequest& req, Response& response, LiveViewScope scope) {
  const auto user = query_value(req.query, "user");
  if (user.empty()) {
    std::string body = "<!DOCTYPE html>\n<html lang=\"en\">\n  <body>\n    <a id=\"login\" href=\"";
    append_escaped_html(body, std::string(scope.prefix) + "/login?user=alice");
    body += "\">Log in as alice</a>\n  </body>\n</html>";
    response.set_owned(200, kHtml, std::move(body));
    response.headers = page_headers(scope.dialect, random_base64url(req.state.random, 15));
    return;
  }
  auto session = session_of(req);
  session.user = user;
  redirect(req, response, scope, std::string(scope.prefix) + "/dashboard", set_cookie_line(session));
}

void serve_logout(const RouteRequest& req, Response& response, LiveViewScope scope) {
  // configure_session(drop: true)
  redirect(req, response, scope, std::string(scope.prefix) + "/login",
           "Set-Cookie: " + std::string(kSessionCookieName) +
               "=; path=/; expires=Thu, 01 Jan 1970 00:00:00 GMT; max-age=0; HttpOnly; SameSite=Lax\r\n");
}

template <LiveViewDialect Root>
void serve(const RouteRequest& req, Response& response) {
  std::string_view path;
  const auto scope = scope_of_path(req.path, Root, path);
  if (const auto* route = route_for_path(path)) {
    serve_page(req, response, scope, *route);
  } else if (path == "/login") {
    serve_login(req, response, scope);
  } else if (path == "/logout") {
    serve_logout(req, response, scope);
  } else if (path == "/assets/app.js") {
    response.set_owned(200, kJavaScript, app_js(scope.prefix));
    response.headers = "Cache-Control: public\r\n";
  } else {
    response.set_static(404, kHtml, kNotFoundPage);
  }
}

}  // namespace

void add_liveview_routes(RouteTable& routes, LiveViewDialect root_dialect) {
  const auto handler =
      root_dialect == LiveViewDialect::V0_20 ? &serve<LiveViewDialect::V0_20> : &serve<LiveViewDialect::V1>;
  for (const std::string_view path : {"/counter", "/posts/new", "/posts", "/components", "/upload", "/dashboard",
                                      "/stale", "/crash", "/login", "/logout"}) {
    routes.add({"GET", path, false, handler, false});
  }
  routes.add({"GET", "/assets/", true, handler, false});
  routes.add({"GET", "/lv020/", true, handler, false});
  routes.add({"GET", "/lv1x/", true, handler, false});
}

}  // namespace stampede::target
