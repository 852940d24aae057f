#include "target/liveview_layout.hpp"

namespace stampede::target {
namespace {

// LiveView 1.x indents the view's line like the flash lines; 0.20 did not.
constexpr std::string_view kMain1Parts[] = {"<main>\n  ", "\n  ", "\n  ", "\n</main>"};
constexpr std::string_view kMain020Parts[] = {"<main>\n  ", "\n  ", "\n", "\n</main>"};
constexpr Template kMain1{kMain1Parts, true};
constexpr Template kMain020{kMain020Parts, true};
constexpr std::string_view kFlashInfoParts[] = {"<p id=\"flash-info\" role=\"alert\">", "</p>"};
constexpr Template kFlashInfo{kFlashInfoParts, false};

constexpr int kFlashInfoSlot = 0;
constexpr int kFlashErrorSlot = 1;
constexpr int kViewSlot = 2;

void render_flash(RenderOutput& out, const LiveView& view) {
  if (view.flash().empty()) {
    out.text(kFlashInfoSlot, "");
    return;
  }
  out.begin(kFlashInfoSlot, &kFlashInfo);
  out.text(0, escape_html(view.flash()));
  out.end();
}

}  // namespace

void render_layout(RenderOutput& out, LiveViewDialect dialect, const LiveView& view, Changed changed) {
  out.begin_root(changed.full ? (dialect == LiveViewDialect::V0_20 ? &kMain020 : &kMain1) : nullptr);
  if (changed.any(LiveView::kFlashChanged)) render_flash(out, view);
  if (changed.full) out.text(kFlashErrorSlot, "");
  out.begin(kViewSlot, changed.full ? &view.statics(dialect) : nullptr);
  view.render(out, changed);
  out.end();
  out.end_root();
}

std::string render_page_html(const DeadPage& page) {
  const bool v020 = page.scope.dialect == LiveViewDialect::V0_20;
  std::string html;
  html.reserve(2048 + page.inner_html.size());
  html +=
      "<!DOCTYPE html>\n<html lang=\"en\">\n  <head>\n    <meta charset=\"utf-8\">\n"
      "    <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "    <meta name=\"csrf-token\" content=\"";
  html += page.csrf_token;
  html += "\">\n";
  html += v020 ? "    <title data-suffix=\" · Phoenix Framework\">\n"
               : "    <title data-default=\"Demo\" data-suffix=\" · Phoenix Framework\">\n      ";
  append_escaped_html(html, page.title);
  html += "\n     · Phoenix Framework</title>\n";
  for (const std::string_view script : {"phoenix.min.js", "phoenix_live_view.min.js", "app.js"}) {
    html += "    <script defer phx-track-static type=\"text/javascript\" src=\"";
    html += page.scope.prefix;
    html += "/assets/";
    html += script;
    html += "\">\n    </script>\n";
  }
  html += "  </head>\n  <body>\n";
  html += v020 ? "<div id=\"" : "    <div id=\"";
  html += page.container_id;
  html += "\" data-phx-main data-phx-session=\"";
  html += page.session_token;
  html += "\" data-phx-static=\"";
  html += page.static_token;
  html += "\">";
  html += page.inner_html;
  html += "</div>\n  </body>\n</html>";
  return html;
}

std::string page_headers(LiveViewDialect dialect, std::string_view request_id) {
  std::string headers;
  if (dialect == LiveViewDialect::V0_20) {
    headers += "Cache-Control: max-age=0, private, must-revalidate\r\nX-Request-Id: ";
    headers += request_id;
    headers +=
        "\r\nReferrer-Policy: strict-origin-when-cross-origin\r\nX-Content-Type-Options: nosniff\r\n"
        "X-Download-Options: noopen\r\nX-Frame-Options: SAMEORIGIN\r\n"
        "X-Permitted-Cross-Domain-Policies: none\r\n";
    return headers;
  }
  headers +=
      "X-Permitted-Cross-Domain-Policies: none\r\nX-Content-Type-Options: nosniff\r\n"
      "Content-Security-Policy: base-uri 'self'; frame-ancestors 'self';\r\n"
      "Referrer-Policy: strict-origin-when-cross-origin\r\n"
      "Cache-Control: max-age=0, private, must-revalidate\r\nX-Request-Id: ";
  headers += request_id;
  headers += "\r\n";
  return headers;
}

std::string redirect_body(std::string_view to) {
  std::string body = "<html><body>You are being <a href=\"";
  append_escaped_html(body, to);
  body += "\">redirected</a>.</body></html>";
  return body;
}

std::string app_js(std::string_view prefix) {
  std::string js =
      "// Minimal hand-written client bootstrap (no esbuild offline): uses the UMD globals\n"
      "// from phoenix.min.js (window.Phoenix) and phoenix_live_view.min.js (window.LiveView).\n"
      "window.addEventListener(\"DOMContentLoaded\", () => {\n"
      "  const csrfToken = document.querySelector(\"meta[name='csrf-token']\").getAttribute(\"content\")\n"
      "  const liveSocket = new LiveView.LiveSocket(\"";
  js += prefix;
  js +=
      "/live\", Phoenix.Socket, {\n"
      "    longPollFallbackMs: 2500,\n"
      "    params: {_csrf_token: csrfToken}\n"
      "  })\n"
      "  liveSocket.connect()\n"
      "  window.liveSocket = liveSocket\n"
      "})\n";
  return js;
}

}  // namespace stampede::target
