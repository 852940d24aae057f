#include "report/html_page.hpp"

#include <fmt/format.h>

#include <array>
#include <random>
#include <stdexcept>

#include "report/html_assets.hpp"

namespace stampede::report {

namespace {

// A nonce unguessable by whoever wrote the scenario or the server's responses: 128 bits.
std::string new_nonce() {
  std::random_device random;
  std::string nonce;
  for (int i = 0; i < 4; ++i) nonce += fmt::format("{:08x}", random());
  return nonce;
}

std::string script(std::string_view nonce, std::string_view code) {
  return fmt::format("<script nonce=\"{}\">\n{}\n</script>\n", nonce, code);
}

std::string scripts(PageKind kind, std::string_view nonce) {
  namespace a = html_assets;
  std::string out;
  out += fmt::format("<!-- uPlot, the chart library, is embedded below under its license:\n{}\n-->\n",
                     a::uplot_license);
  out += script(nonce, a::uplot_js);
  for (std::string_view code : {a::format_js, a::charts_js, a::tables_js, a::results_view_js})
    out += script(nonce, code);
  out += script(nonce, kind == PageKind::Report ? a::report_js : a::dashboard_js);
  return out;
}

std::string content_security_policy(PageKind kind, std::string_view nonce) {
  return fmt::format(
      "default-src 'none'; script-src 'nonce-{0}'; style-src 'nonce-{0}'; img-src data:; "
      "connect-src {1}; base-uri 'none'; form-action 'none'",
      nonce, kind == PageKind::Dashboard ? "'self'" : "'none'");
}

// Replaces each {{name}} of the template in one pass: text put in is never scanned again,
// so a "{{" inside a script or the results cannot be mistaken for a placeholder.
template <typename Lookup>
std::string fill(std::string_view templ, Lookup&& lookup) {
  std::string out;
  out.reserve(templ.size());
  std::size_t at = 0;
  while (true) {
    const auto open = templ.find("{{", at);
    if (open == std::string_view::npos) break;
    const auto close = templ.find("}}", open + 2);
    if (close == std::string_view::npos) break;
    out += templ.substr(at, open - at);
    out += lookup(templ.substr(open + 2, close - open - 2));
    at = close + 2;
  }
  out += templ.substr(at);
  return out;
}

}  // namespace

std::string json_for_script_element(std::string_view json) {
  std::string out;
  out.reserve(json.size() + json.size() / 16);
  for (char c : json) {
    switch (c) {
      case '<': out += "\\u003c"; break;
      case '>': out += "\\u003e"; break;
      case '&': out += "\\u0026"; break;
      default: out += c;
    }
  }
  return out;
}

std::string html_page(PageKind kind, std::string_view results_json) {
  const std::string nonce = new_nonce();
  const std::string data = json_for_script_element(results_json);
  const std::string csp = content_security_policy(kind, nonce);
  const std::string code = scripts(kind, nonce);
  return fill(html_assets::page_html, [&](std::string_view name) -> std::string_view {
    if (name == "mode") return kind == PageKind::Report ? "report" : "dashboard";
    if (name == "nonce") return nonce;
    if (name == "csp") return csp;
    if (name == "uplot_css") return html_assets::uplot_css;
    if (name == "style_css") return html_assets::style_css;
    if (name == "results_json") return data;
    if (name == "scripts") return code;
    // web/page.html is ours and built in: a placeholder it has that is not known here is
    // a mistake of this build, caught by the unit tests.
    throw std::logic_error(fmt::format("web/page.html: unknown placeholder {{{{{}}}}}", name));
  });
}

}  // namespace stampede::report
