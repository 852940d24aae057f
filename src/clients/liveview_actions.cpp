// LiveViewSession, what the virtual user does: events on elements, forms, live_patch and live
// navigation. Each builds the browser's payload (proto/liveview_events.hpp) from the scenario's
// values and the page as it is rendered now, then waits for the reply (liveview_replies.cpp).
#include <fmt/format.h>

#include "clients/liveview_forms.hpp"
#include "clients/liveview_session.hpp"
#include "proto/url_resolve.hpp"

namespace stampede::clients {

namespace lv = proto::lv;

// ---------------------------------------------------------------------------------------------
// user actions

void LiveViewSession::event(LiveEvent e, Done done) {
  LiveOutcome why;
  LiveViewTopic* view = joined_view(e.view_id, why);
  if (view == nullptr) return refuse(ids_.event, std::move(done), std::move(why));
  std::string payload;
  const std::string what = fmt::format("{} \"{}\" on {}", e.type, e.event, describe(*view));
  if (e.type == "hook") {
    payload = lv::hook_payload(e.event, e.value ? *e.value : boost::json::value(boost::json::object()), e.cid);
  } else {
    std::optional<lv::Element> element;
    if (!e.element.empty()) {
      if (std::string bad = lv::selector_error(e.element); !bad.empty()) {
        return fail_later(std::move(done), LiveOutcome::fail("not_found", fmt::format("{}: {}", what, bad)));
      }
      element = view->rendered.find(e.element);
      if (!element) {
        return fail_later(std::move(done), LiveOutcome::fail("not_found", fmt::format("{}: nothing matches \"{}\"",
                                                                                      what, e.element)));
      }
    } else if (!e.value && e.event.find_first_of("\"\\\n") == std::string::npos) {
      // Like the browser, the value comes from the element the user acted on.
      const std::string selector = fmt::format("[phx-{}=\"{}\"]", e.type, e.event);
      if (lv::selector_error(selector).empty()) element = view->rendered.find(selector);
    }
    boost::json::value value;
    if (element && !e.element.empty() && e.value && e.value->is_object()) {
      value = lv::element_value(*element, &e.value->as_object());
    } else if (e.value) {
      value = *e.value;
    } else if (element) {
      value = lv::element_value(*element);
    } else {
      value = boost::json::object();
    }
    std::optional<int> cid = e.cid;
    if (!cid && element) cid = target_cid(*view, element->attributes);
    payload = lv::event_payload(e.type, e.event, value, cid);
  }
  request(*view, "event", std::move(payload), e.timeout, &ids_.event, what,
          [done = std::move(done)](LiveOutcome o, bool) { done(o); });
}

void LiveViewSession::change(LiveForm f, Done done) {
  LiveOutcome why;
  LiveViewTopic* view = joined_view(f.view_id, why);
  if (view == nullptr) return refuse(ids_.event, std::move(done), std::move(why));
  const std::string what = fmt::format("change \"{}\" on {}", f.event, describe(*view));
  ActionForm found;
  if (std::string bad = find_action_form(view->rendered.to_html(lv::RenderOptions{.mark_components = true}),
                                         "phx-change", f.event, f.form, f.fields, f.field, found);
      !bad.empty()) {
    return fail_later(std::move(done), LiveOutcome::fail("not_found", fmt::format("{}: {}", what, bad)));
  }
  const lv::Form& form = found.form;
  lv::FormChange c;
  c.event = f.event;
  c.entries = fill_form(form, f.fields, view->used_fields, lv::FormPurpose::Change, found.only_name);
  // _target: the input that changed (an input with its own phx-change is that input).
  c.target = !f.field.empty()           ? f.field
             : !found.only_name.empty() ? found.only_name
             : f.fields.empty()         ? std::string()
                                        : f.fields.front().first;
  c.values = lv::form_values(form);
  c.cid = f.cid ? f.cid : target_cid(*view, form.attributes);
  for (const auto& field : f.fields) view->used_fields.insert(field.first);
  request(*view, "event", lv::form_change_payload(version_, c), f.timeout, &ids_.event, what,
          [done = std::move(done)](LiveOutcome o, bool) { done(o); });
}

void LiveViewSession::submit(LiveForm f, Done done) {
  LiveOutcome why;
  LiveViewTopic* view = joined_view(f.view_id, why);
  if (view == nullptr) return refuse(ids_.event, std::move(done), std::move(why));
  const std::string what = fmt::format("submit \"{}\" on {}", f.event, describe(*view));
  ActionForm found;
  if (std::string bad = find_action_form(view->rendered.to_html(lv::RenderOptions{.mark_components = true}),
                                         "phx-submit", f.event, f.form, f.fields, {}, found);
      !bad.empty()) {
    return fail_later(std::move(done), LiveOutcome::fail("not_found", fmt::format("{}: {}", what, bad)));
  }
  const lv::Form& form = found.form;
  lv::FormSubmit s;
  s.event = f.event;
  s.entries = fill_form(form, f.fields, view->used_fields, lv::FormPurpose::Submit);
  s.values = lv::form_values(form);
  s.cid = f.cid ? f.cid : target_cid(*view, form.attributes);
  // A submitted form counts as used everywhere (phx-has-submitted).
  for (const auto& field : f.fields) view->used_fields.insert(field.first);
  for (const auto& control : form.controls)
    if (!control.name.empty()) view->used_fields.insert(control.name);
  request(*view, "event", lv::form_submit_payload(version_, s), f.timeout, &ids_.event, what,
          [done = std::move(done)](LiveOutcome o, bool) { done(o); });
}

void LiveViewSession::patch(std::string url, Nanos timeout, Done done) {
  LiveOutcome why;
  LiveViewTopic* view = joined_view("", why);
  if (view == nullptr) return refuse(ids_.patch, std::move(done), std::move(why));
  std::string target = proto::resolve_url(url_, url);
  url_ = target;  // the browser changes the URL first (pushState), then tells the server
  request(*view, "live_patch", lv::live_patch_payload(target), timeout, &ids_.patch,
          fmt::format("live_patch to {}", target),
          [weak = weak_from_this(), target, done = std::move(done)](LiveOutcome o, bool link_redirect) {
            auto self = weak.lock();
            if (self && o.ok() && link_redirect) {
              // Another LiveView owns the URL: the browser navigates there instead.
              self->navigate(target, "", done);
              return;
            }
            done(o);
          });
}

void LiveViewSession::navigate(std::string url, std::string flash, Done done) {
  const Nanos started = ctx_.clock.now();
  const std::string target = url_.empty() ? url : proto::resolve_url(url_, url);
  auto finish = [weak = weak_from_this(), started, done = std::move(done)](const LiveOutcome& o) {
    if (auto self = weak.lock()) self->record(self->ids_.navigate, started, o);
    done(o);
  };
  LiveViewTopic* main = views_.empty() ? nullptr : views_.front().get();
  if (main == nullptr || !is_open()) {
    open_page(target, std::move(finish));
    return;
  }
  // The main view's nested LiveViews go with it; sticky roots stay (§5.9).
  std::vector<std::string> children;
  for (const auto& v : views_)
    if (v->root.parent_id == main->root.id) children.push_back(v->root.id);
  for (const auto& id : children) drop_view(id, true);
  if (main->state == LiveViewTopic::State::Joined && connection_->phx->joined(main->topic)) {
    try {
      connection_->phx->cast(main->topic, "phx_leave", "{}", false);
    } catch (const std::exception&) {
      // it was joined, so it encodes
    }
  }
  lv::JoinParams p = base_join_params();
  p.url = target;
  p.redirect = true;
  p.live_referer = url_;
  // A new View in the browser (replaceMain): its mounts start over.
  main->mounts = 0;
  main->mount_attempts = 0;
  p.mounts = 0;
  p.flash = std::move(flash);
  p.session = main->root.session;
  p.static_token = main->root.static_token;
  p.sticky = main->root.sticky;
  url_ = target;
  main->used_fields.clear();
  join_view(*main, std::move(p), [weak = weak_from_this(), target, finish](const LiveOutcome& o) {
    auto self = weak.lock();
    if (!self) return;
    if (!o.ok() && o.failure == "join_error" && (o.reason == "unauthorized" || o.reason == "stale")) {
      // Another live_session, or tokens the server no longer takes: the browser loads the page.
      self->open_page(target, finish);
      return;
    }
    finish(o);
  });
}

}  // namespace stampede::clients

