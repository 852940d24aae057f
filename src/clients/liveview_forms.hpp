#pragma once
// phx-change and phx-submit as a browser sends them, from the values a scenario says a user
// entered. A browser serializes the whole form, not only what was typed: every named control
// in DOM order with its current value, and (LiveView >= 1.0) an `_unused_` marker before each
// field the user has not touched yet. So the scenario's values are filled into the form as the
// page shows it, and the entries come from the same rules the browser applies
// (proto/liveview_events.hpp form_entries).
//
// Like Phoenix.LiveViewTest (`form/3`), a change or submit needs the form on the page, and every
// value must go to a field the form has: a misspelled event or field name is a scenario mistake
// reported before anything is sent (find_action_form), not a payload no browser could send.
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "proto/form.hpp"
#include "proto/liveview_events.hpp"
#include "proto/liveview_page.hpp"

namespace stampede::clients {

// `form`: the form on the page (nullopt: none; the values alone are then sent). `fields`: what
// the user entered, e.g. {"post[title]", "Hi"}; a checkbox is checked by its value (or "true"),
// a radio by its value, a select's options by their values, repeated names fill same-named
// controls in order; values left over (a button's, more than the controls of that name) come
// after the form's own fields. `used_names`: fields the user touched earlier on this page (they
// lose their _unused_ marker). `only_name`: an input with its own phx-change changed, and the
// browser sends that field alone.
std::vector<proto::lv::FormEntry> fill_form(std::optional<proto::lv::Form> form, const proto::FormFields& fields,
                                            const std::set<std::string>& used_names, proto::lv::FormPurpose purpose,
                                            std::string_view only_name = {});

// The form a change or submit acts on.
struct ActionForm {
  proto::lv::Form form;
  std::string only_name;  // phx-change on an input of the form: that input's name (see fill_form)
};

// Finds the form of a phx-change (`binding` "phx-change") or phx-submit ("phx-submit") named
// `event` in a view's HTML (Rendered::to_html with mark_components):
//   - with a `selector`, the form it matches or the form around the first element it matches;
//   - else the first form whose binding is `event` or a JS command pushing it
//     (phx-change={JS.push("validate")}); for phx-change, else the form around the first input,
//     select or textarea with its own phx-change bound to `event`.
// Then every name in `fields` (and `target_field`, the input a change names as changed, when
// given) must be an enabled input, select, textarea or button of that form. "" when all is well;
// else a sentence for a not_found error: the form that is missing (and the page's forms), or the
// unknown field (and the form's fields).
std::string find_action_form(std::string_view html, std::string_view binding, std::string_view event,
                             std::string_view selector, const proto::FormFields& fields,
                             std::string_view target_field, ActionForm& out);

}  // namespace stampede::clients
