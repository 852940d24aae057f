// Run-time values instead of recorded ones, where the recording shows where they come from:
//   CSRF tokens: a form's _csrf_token or an x-csrf-token header is read from the page the user
//     was on (the LiveView's rendered page, or the last HTML page fetched), as a person would.
//   ids: a value under an id-like key ("id", "post_id", "uuid", "slug") in a JSON response that
//     a later request sends again (a path segment, a query value, a JSON or form field under an
//     id-like key) becomes a local read from that response.
#include <boost/json/parse.hpp>

#include <algorithm>
#include <cctype>
#include <set>

#include "proto/form.hpp"
#include "record/http_steps.hpp"

namespace stampede::record {
namespace {

namespace json = boost::json;

bool is_id_key(std::string_view key) {
  std::string k(key);
  std::transform(k.begin(), k.end(), k.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  auto ends = [&](std::string_view s) { return k.size() >= s.size() && k.substr(k.size() - s.size()) == s; };
  return k == "id" || k == "uuid" || k == "slug" || ends("_id") || ends("id") || ends("_uuid") || ends("_slug");
}

std::string scalar_text(const json::value& v) {
  if (v.is_string()) return std::string(v.get_string());
  if (v.is_int64()) return std::to_string(v.get_int64());
  if (v.is_uint64()) return std::to_string(v.get_uint64());
  return {};
}

struct Candidate {
  std::string text;      // the value as it appears in a URL
  std::string accessor;  // Lua: ":json().data.id"
  std::string key;
  std::size_t step = 0;
  std::string name;      // the local, once used
};

bool is_identifier(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isalnum(c) || c == '_'; });
}

void collect(const json::value& v, const std::string& accessor, std::size_t depth, std::size_t step,
             std::vector<Candidate>& out) {
  if (depth > 6) return;
  if (const auto* object = v.if_object()) {
    for (const auto& [key, item] : *object) {
      const auto k = std::string(key);
      const auto path = accessor + (is_identifier(k) ? "." + k : "[\"" + k + "\"]");
      const auto text = scalar_text(item);
      if (is_id_key(k) && !text.empty() && text.size() <= 200) out.push_back({text, path, k, step, {}});
      if (item.is_object() || item.is_array()) collect(item, path, depth + 1, step, out);
    }
  } else if (const auto* array = v.if_array()) {
    // The first element only: which one a later request picked is not something the
    // recording can tell apart from coincidence.
    if (!array->empty()) collect((*array)[0], accessor + "[1]", depth + 1, step, out);
  }
}

std::string singular_resource(const std::string& url) {
  auto path = url.substr(0, url.find('?'));
  while (!path.empty()) {
    const auto slash = path.rfind('/');
    auto segment = path.substr(slash + 1);
    path.resize(slash == std::string::npos ? 0 : slash);
    if (segment.empty() || std::all_of(segment.begin(), segment.end(), ::isdigit)) continue;
    if (segment.size() > 1 && segment.back() == 's') segment.pop_back();
    std::string name;
    for (const char c : segment) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    if (is_identifier(name)) return name;
  }
  return "item";
}

class Correlator {
 public:
  Correlator(std::vector<Step>& steps, Scenario& scenario) : steps_(steps), scenario_(scenario) {}

  void run() {
    for (std::size_t i = 0; i < steps_.size(); ++i) {
      auto& step = steps_[i];
      if (step.kind == Step::Kind::LiveConnect) last_page_ = "view:html()";
      if (step.kind != Step::Kind::Http) continue;
      fill_csrf(i);
      substitute(i);
      if (step.response_mime.find("html") != std::string::npos && step.method == "GET") html_step_ = i;
      if (step.response_mime.find("json") != std::string::npos) {
        json::error_code ec;
        const auto body = json::parse(step.response_body, ec);
        if (!ec) collect(body, ":json()", 0, i, candidates_);
      }
    }
  }

 private:
  std::string var_of(std::size_t i) {
    auto& step = steps_[i];
    if (step.var.empty()) step.var = "res" + std::to_string(++vars_);
    return step.var;
  }

  std::string csrf_expression(std::size_t i) {
    // The page the user was on when the request left: the latest of a LiveView and an HTML GET.
    std::string source;
    for (std::size_t j = i; j-- > 0;) {
      if (steps_[j].kind == Step::Kind::LiveConnect) {
        source = "view:html()";
        break;
      }
      if (j == html_step_) {
        source = var_of(j) + ".body";
        break;
      }
    }
    if (source.empty()) source = "http.get(BASE .. \"/\").body";
    scenario_.needs_csrf_helper = true;
    ++scenario_.summary.hidden_tokens;
    return "csrf_token(" + source + ")";
  }

  void fill_csrf(std::size_t i) {
    auto& step = steps_[i];
    for (auto& [name, value] : step.headers)
      if (value == runtime_ref("csrf")) value = runtime_ref(csrf_expression(i));
    for (auto& [name, value] : step.fields)
      if (name == "_csrf_token") value = runtime_ref(csrf_expression(i));
    if (auto* object = step.value.if_object())
      if (auto* token = object->if_contains("_csrf_token"); token != nullptr && token->is_string())
        *token = runtime_ref(csrf_expression(i));
  }

  // The latest candidate with this text, named and read from its response on first use.
  const Candidate* use(const std::string& text) {
    for (auto it = candidates_.rbegin(); it != candidates_.rend(); ++it) {
      if (it->text != text) continue;
      if (it->name.empty()) {
        auto base = it->key == "id" ? singular_resource(steps_[it->step].url) + "_id" : it->key;
        for (auto& c : base)
          if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
        if (!is_identifier(base)) base = "id";
        auto name = base;
        for (int n = 2; names_.count(name) != 0; ++n) name = base + std::to_string(n);
        names_.insert(name);
        it->name = name;
        steps_[it->step].extracts.emplace_back(name, var_of(it->step) + it->accessor);
      }
      ++scenario_.summary.correlated;
      return &*it;
    }
    return nullptr;
  }

  void substitute_json(json::value& v, std::size_t depth) {
    if (depth > 16) return;
    if (auto* object = v.if_object()) {
      for (auto& [key, item] : *object) {
        if (is_id_key(key) && !item.is_object() && !item.is_array()) {
          const auto text = scalar_text(item);
          if (!text.empty())
            if (const auto* c = use(text)) item = runtime_ref(c->name);
        } else {
          substitute_json(item, depth + 1);
        }
      }
    } else if (auto* array = v.if_array()) {
      for (auto& item : *array) substitute_json(item, depth + 1);
    }
  }

  void substitute(std::size_t i) {
    if (candidates_.empty()) return;
    auto& step = steps_[i];
    const auto question = step.url.find('?');
    auto path = step.url.substr(0, question);
    std::string query = question == std::string::npos ? std::string() : step.url.substr(question + 1);
    std::string new_path;
    std::size_t start = 0;
    while (start <= path.size()) {
      const auto slash = path.find('/', start);
      const auto segment = path.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
      const Candidate* c = segment.empty() ? nullptr : use(segment);
      new_path += c != nullptr ? url_runtime_ref(c->name) : segment;
      if (slash == std::string::npos) break;
      new_path += '/';
      start = slash + 1;
    }
    if (!query.empty()) {
      auto fields = proto::decode_form(query);
      bool changed = false;
      std::string rebuilt;
      for (auto& [key, value] : fields) {
        const Candidate* c = is_id_key(key) ? use(value) : nullptr;
        if (!rebuilt.empty()) rebuilt += '&';
        rebuilt += proto::form_encode_component(key) + "=";
        rebuilt += c != nullptr ? url_runtime_ref(c->name) : proto::form_encode_component(value);
        changed = changed || c != nullptr;
      }
      if (changed) query = rebuilt;
    }
    step.url = query.empty() ? new_path : new_path + "?" + query;
    for (auto& [key, value] : step.fields)
      if (is_id_key(key))
        if (const auto* c = use(value)) value = runtime_ref(c->name);
    if (step.body == Step::Body::Json) substitute_json(step.value, 0);
  }

  std::vector<Step>& steps_;
  Scenario& scenario_;
  std::vector<Candidate> candidates_;
  std::set<std::string> names_;
  std::size_t vars_ = 0;
  std::size_t html_step_ = std::size_t(-1);
  std::string last_page_;
};

}  // namespace

void correlate(std::vector<Step>& steps, Scenario& scenario) { Correlator(steps, scenario).run(); }

}  // namespace stampede::record
