#pragma once
// phx-change and phx-submit as a browser sends them, from the values a scenario says a user
// entered. A browser serializes the whole form, not only what was typed: every named control
// in DOM order with its current value, and (LiveView >= 1.0) an `_unused_` marker before each
// field the user has not touched yet. So the scenario's values are filled into the form as the
// page shows it, and the entries come from the same rules the browser applies
// (proto/liveview_events.hpp form_entries). Values for names the form does not have are sent
// after the form's own fields; without a form on the page, the values alone are sent.
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "proto/form.hpp"
#include "proto/liveview_events.hpp"
#include "proto/liveview_page.hpp"

namespace stampede::clients {

// `form`: the form on the page (nullopt: none found). `fields`: what the user entered, e.g.
// {"post[title]", "Hi"}; a checkbox is checked by its value (or "true"), a radio by its value,
// a select's options by their values, repeated names fill same-named controls in order.
// `used_names`: fields the user touched earlier on this page (they lose their _unused_ marker).
std::vector<proto::lv::FormEntry> fill_form(std::optional<proto::lv::Form> form, const proto::FormFields& fields,
                                            const std::set<std::string>& used_names, proto::lv::FormPurpose purpose);

// The selector that finds the form an event belongs to: `form[phx-change="validate"]` (or
// phx-submit), or nullopt when the event name cannot be written in a selector.
std::optional<std::string> form_selector(std::string_view binding, std::string_view event);

}  // namespace stampede::clients
