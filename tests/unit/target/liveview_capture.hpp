#pragma once
// The recorded browser sessions of tests/vectors/liveview-captures/ (real Chromium against a
// real Phoenix app: lv-0.20 is Phoenix 1.7.24 / LiveView 0.20.17, lv-1.x Phoenix 1.8.12 /
// LiveView 1.2.10), and how the target's answers are compared with them: as JSON trees,
// equal except where the recording has an id, a token, a CSRF token or the app's origin,
// which the target makes its own. Comparing learns which of ours stands for which of theirs,
// so the client frames of the recording can be replayed with ours in their place.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "liveview_capture_file.hpp"
#include "proto/base64.hpp"

namespace stampede::target::testing {

namespace json = boost::json;

// The values that differ between any two runs of an app.
struct VariablePattern {
  std::regex pattern;
  std::string placeholder;
};

inline const std::vector<VariablePattern>& variable_patterns() {
  static const std::vector<VariablePattern> patterns{
      {std::regex(R"(SFMyNTY\.[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+)"), "<token>"},
      {std::regex(R"(phx-[A-Za-z0-9_\-]{16})"), "<id>"},
      {std::regex(R"(http://127\.0\.0\.1:[0-9]+)"), "<origin>"},
      {std::regex(R"((?:content="|_csrf_token":")[A-Za-z0-9_\-]{56})"), "<csrf>"},
  };
  return patterns;
}

inline std::string normalize(std::string text) {
  for (const auto& [pattern, placeholder] : variable_patterns()) text = std::regex_replace(text, pattern, placeholder);
  return text;
}

// Theirs -> ours.
class Substitutions {
 public:
  void add(const std::string& theirs, const std::string& ours) {
    if (theirs != ours) map_[theirs] = ours;
  }

  // Pairs the variable values of two strings that are equal once normalized. Tokens must
  // carry payloads of the same size: the same terms, with other ids and times.
  void learn(const std::string& theirs, const std::string& ours) {
    std::string their_rest = theirs;
    std::string our_rest = ours;
    for (const auto& [pattern, placeholder] : variable_patterns()) {
      const auto their_values = matches(their_rest, pattern);
      const auto our_values = matches(our_rest, pattern);
      if (their_values.size() != our_values.size()) continue;
      for (std::size_t i = 0; i < their_values.size(); ++i) {
        if (placeholder == "<token>") expect_same_payload_size(their_values[i], our_values[i]);
        if (placeholder == "<csrf>") {
          add(their_values[i].substr(their_values[i].size() - 56), our_values[i].substr(our_values[i].size() - 56));
        } else {
          add(their_values[i], our_values[i]);
        }
      }
      their_rest = std::regex_replace(their_rest, pattern, placeholder);
      our_rest = std::regex_replace(our_rest, pattern, placeholder);
    }
  }

  std::string apply(std::string text) const {
    for (const auto& [theirs, ours] : map_) {
      for (auto at = text.find(theirs); at != std::string::npos; at = text.find(theirs, at + ours.size())) {
        text.replace(at, theirs.size(), ours);
      }
    }
    return text;
  }

 private:
  static std::vector<std::string> matches(const std::string& text, const std::regex& pattern) {
    std::vector<std::string> out;
    for (std::sregex_iterator it(text.begin(), text.end(), pattern), end; it != end; ++it) out.push_back(it->str());
    return out;
  }

  static void expect_same_payload_size(const std::string& theirs, const std::string& ours) {
    const auto payload = [](const std::string& token) {
      const auto first = token.find('.');
      const auto last = token.rfind('.');
      return proto::decode_base64url(token.substr(first + 1, last - first - 1)).value_or("");
    };
    EXPECT_EQ(payload(theirs).size(), payload(ours).size())
        << "token shapes differ:\n  theirs " << theirs << "\n  ours   " << ours;
  }

  std::map<std::string, std::string> map_;
};

// Whether `ours` has the structure and values of `theirs`, variable values aside; learns
// the variable values on the way. `where` says where the first difference is.
inline bool same_tree(const json::value& theirs, const json::value& ours, Substitutions& substitutions,
                      std::string& where, const std::string& path = "") {
  if (theirs.kind() != ours.kind()) {
    where = path + ": " + json::serialize(theirs) + " vs " + json::serialize(ours);
    return false;
  }
  switch (theirs.kind()) {
    case json::kind::object: {
      const auto& a = theirs.as_object();
      const auto& b = ours.as_object();
      if (a.size() != b.size()) {
        where = path + ": keys " + json::serialize(theirs) + " vs " + json::serialize(ours);
        return false;
      }
      for (const auto& [key, value] : a) {
        const auto* other = b.if_contains(key);
        if (other == nullptr) {
          where = path + ": no \"" + std::string(key) + "\" in " + json::serialize(ours);
          return false;
        }
        if (!same_tree(value, *other, substitutions, where, path + "/" + std::string(key))) return false;
      }
      return true;
    }
    case json::kind::array: {
      const auto& a = theirs.as_array();
      const auto& b = ours.as_array();
      if (a.size() != b.size()) {
        where = path + ": " + json::serialize(theirs) + " vs " + json::serialize(ours);
        return false;
      }
      for (std::size_t i = 0; i < a.size(); ++i) {
        if (!same_tree(a[i], b[i], substitutions, where, path + "/" + std::to_string(i))) return false;
      }
      return true;
    }
    case json::kind::string: {
      const std::string a(theirs.as_string());
      const std::string b(ours.as_string());
      if (a == b) return true;
      if (normalize(a) != normalize(b)) {
        where = path + ": \"" + a + "\" vs \"" + b + "\"";
        return false;
      }
      substitutions.learn(a, b);
      return true;
    }
    default:
      if (theirs != ours) {
        where = path + ": " + json::serialize(theirs) + " vs " + json::serialize(ours);
        return false;
      }
      return true;
  }
}

}  // namespace stampede::target::testing
