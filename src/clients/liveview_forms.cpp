#include "clients/liveview_forms.hpp"

#include <boost/json/parse.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <map>

namespace stampede::clients {

namespace lv = proto::lv;

namespace {

bool takes_no_typed_value(const lv::FormControl& c) {
  if (c.tag == "button") return true;
  return c.tag == "input" && (c.type == "file" || c.type == "submit" || c.type == "image" || c.type == "reset" ||
                              c.type == "button");
}

bool contains(const std::deque<std::string>& values, const std::string& v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}

bool equals(const boost::json::string& s, std::string_view text) { return std::string_view(s.data(), s.size()) == text; }

// Whether a phx-change / phx-submit attribute sends `event`: the event's name, or a JS command
// that pushes it (phx-change={JS.push("validate")} renders [["push",{"event":"validate"}]]).
bool binds(const std::string& value, std::string_view event) {
  if (value == event) return true;
  if (value.empty() || value.front() != '[') return false;
  boost::system::error_code ec;
  const boost::json::value commands = boost::json::parse(value, ec);
  if (ec || !commands.is_array()) return false;
  for (const auto& command : commands.as_array()) {
    if (!command.is_array() || command.as_array().size() < 2) continue;
    const auto& op = command.as_array();
    if (!op[0].is_string() || !equals(op[0].as_string(), "push") || !op[1].is_object()) continue;
    const auto* pushed = op[1].as_object().if_contains("event");
    if (pushed != nullptr && pushed->is_string() && equals(pushed->as_string(), event)) return true;
  }
  return false;
}

// `tag[attribute="value"]`, the selector of the first such element with exactly that value
// (quoted with whichever quote the value does not hold); nullopt when no quote fits.
std::optional<std::string> exact_selector(std::string_view tag, std::string_view attribute, std::string_view value) {
  const char quote = value.find('"') == std::string_view::npos    ? '"'
                     : value.find('\'') == std::string_view::npos ? '\''
                                                                  : '\0';
  if (quote == '\0') return std::nullopt;
  std::string selector = fmt::format("{}[{}={}{}{}]", tag, attribute, quote, value, quote);
  if (!lv::selector_error(selector).empty()) return std::nullopt;
  return selector;
}

// `form#post-form phx-change="validate" phx-submit="save"`: a form as a scenario writer
// recognizes it in the page.
std::string describe_form(const lv::HtmlAttributes& attributes) {
  std::string out = "form";
  if (const std::string* id = lv::find_attribute(attributes, "id"); id != nullptr && !id->empty()) out += "#" + *id;
  for (const char* binding : {"phx-change", "phx-submit"}) {
    if (const std::string* value = lv::find_attribute(attributes, binding)) {
      out += fmt::format(" {}=\"{}\"", binding, *value);
    }
  }
  return out;
}

// The forms in the HTML, for an error that says none is the one asked for.
std::string page_forms(std::string_view html) {
  constexpr std::size_t kListed = 6;
  std::vector<std::string> forms;
  std::size_t more = 0;
  lv::scan_html(html, [&](const lv::HtmlToken& token) {
    if (token.kind != lv::HtmlToken::Kind::StartTag || token.name != "form") return true;
    if (forms.size() < kListed) {
      forms.push_back(describe_form(token.attributes));
    } else {
      ++more;
    }
    return true;
  });
  if (forms.empty()) return "the view has no form";
  std::string out = forms.size() == 1 ? "its form: " : "its forms: ";
  for (std::size_t i = 0; i < forms.size(); ++i) out += (i == 0 ? "" : ", ") + forms[i];
  if (more > 0) out += fmt::format(" and {} more", more);
  return out;
}

// The form bound to `event` (see find_action_form); `only_name` is set when an input's own
// phx-change is.
std::optional<lv::Form> event_form(std::string_view html, std::string_view binding, std::string_view event,
                                   std::string& only_name) {
  std::optional<std::string> form_selector;
  std::optional<std::string> field_selector;
  std::string field_name;
  const bool fields_bind = binding == "phx-change";
  lv::scan_html(html, [&](const lv::HtmlToken& token) {
    if (token.kind != lv::HtmlToken::Kind::StartTag) return true;
    const bool is_form = token.name == "form";
    const bool is_field = fields_bind && !field_selector &&
                          (token.name == "input" || token.name == "select" || token.name == "textarea");
    if (!is_form && !is_field) return true;
    const std::string* value = lv::find_attribute(token.attributes, binding);
    if (value == nullptr || !binds(*value, event)) return true;
    if (is_form) {
      form_selector = exact_selector("form", binding, *value);
      const std::string* id = lv::find_attribute(token.attributes, "id");
      if (!form_selector && id != nullptr) form_selector = exact_selector("form", "id", *id);
      return !form_selector;  // a form bound to the event wins over any input
    }
    field_selector = exact_selector(token.name, binding, *value);
    const std::string* name = lv::find_attribute(token.attributes, "name");
    field_name = name != nullptr ? *name : std::string();
    return true;
  });
  if (form_selector) return lv::find_form(html, *form_selector);
  if (!field_selector) return std::nullopt;
  std::optional<lv::Form> form = lv::find_form(html, *field_selector);  // the form around the input
  if (form) only_name = field_name;
  return form;
}

}  // namespace

std::vector<lv::FormEntry> fill_form(std::optional<lv::Form> form, const proto::FormFields& fields,
                                     const std::set<std::string>& used_names, lv::FormPurpose purpose,
                                     std::string_view only_name) {
  std::vector<std::string> order;  // names in the scenario's order
  std::map<std::string, std::deque<std::string>> given;
  for (const auto& [name, value] : fields) {
    auto [it, inserted] = given.try_emplace(name);
    if (inserted) order.push_back(name);
    it->second.push_back(value);
  }

  std::set<std::string> taken_by_group;  // names a checkbox group, radio group or select consumed
  std::vector<lv::FormEntry> entries;
  if (form) {
    for (lv::FormControl& c : form->controls) {
      if (used_names.count(c.name) != 0) c.used = true;
      auto it = given.find(c.name);
      if (it == given.end()) continue;
      c.used = true;
      if (takes_no_typed_value(c)) continue;
      std::deque<std::string>& values = it->second;
      if (c.type == "checkbox") {
        c.checked = contains(values, c.value) || contains(values, "true");
      } else if (c.type == "radio") {
        c.checked = contains(values, c.value);
      } else if (c.tag == "select") {
        c.selected.assign(values.begin(), values.end());
      } else {
        if (!values.empty()) {
          c.value = values.front();
          values.pop_front();
        }
        continue;
      }
      taken_by_group.insert(c.name);
    }
    entries = lv::form_entries(*form, purpose, nullptr, only_name);
  }
  for (const std::string& name : order) {
    if (taken_by_group.count(name) != 0) continue;
    if (!only_name.empty() && name != only_name) continue;
    for (const std::string& value : given[name]) entries.push_back(lv::FormEntry{name, value, false});
  }
  return entries;
}

std::string find_action_form(std::string_view html, std::string_view binding, std::string_view event,
                             std::string_view selector, const proto::FormFields& fields,
                             std::string_view target_field, ActionForm& out) {
  std::optional<lv::Form> form;
  out.only_name.clear();
  if (!selector.empty()) {
    if (std::string bad = lv::selector_error(selector); !bad.empty()) return bad;
    form = lv::find_form(html, selector);
    if (!form) return fmt::format("no form matches {} ({})", selector, page_forms(html));
  } else {
    form = event_form(html, binding, event, out.only_name);
    if (!form) {
      return fmt::format("no form with {}=\"{}\" is on the page ({}); the event name is misspelled, or the form "
                         "is in a nested LiveView (option view) or not rendered yet",
                         binding, event, page_forms(html));
    }
  }
  // Like LiveViewTest's form/3: a value goes to a field the form has, or the scenario is wrong.
  std::set<std::string, std::less<>> known;
  std::string listed;
  for (const lv::FormControl& control : form->controls) {
    if (control.name.empty() || control.disabled || !known.insert(control.name).second) continue;
    listed += fmt::format("{}\"{}\"", listed.empty() ? "" : ", ", control.name);
  }
  auto unknown = [&](std::string_view name) {
    return fmt::format("{} has no enabled input, select or textarea named \"{}\" ({})", describe_form(form->attributes),
                       name, listed.empty() ? "it has no named fields" : "its fields: " + listed);
  };
  for (const auto& field : fields) {
    if (known.count(field.first) == 0) return unknown(field.first);
  }
  if (!target_field.empty() && known.count(target_field) == 0) return unknown(target_field);
  out.form = std::move(*form);
  return {};
}

}  // namespace stampede::clients
