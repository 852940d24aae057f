#include "clients/liveview_forms.hpp"

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

}  // namespace

std::vector<lv::FormEntry> fill_form(std::optional<lv::Form> form, const proto::FormFields& fields,
                                     const std::set<std::string>& used_names, lv::FormPurpose purpose) {
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
    entries = lv::form_entries(*form, purpose);
  }
  for (const std::string& name : order) {
    if (taken_by_group.count(name) != 0) continue;
    for (const std::string& value : given[name]) entries.push_back(lv::FormEntry{name, value, false});
  }
  return entries;
}

std::optional<std::string> form_selector(std::string_view binding, std::string_view event) {
  if (event.find_first_of("\"\\\n") != std::string_view::npos) return std::nullopt;
  std::string selector = "form[";
  selector.append(binding).append("=\"").append(event).append("\"]");
  if (!lv::selector_error(selector).empty()) return std::nullopt;
  return selector;
}

}  // namespace stampede::clients
