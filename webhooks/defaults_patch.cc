#include "webhooks/defaults_patch.h"

#include <boost/json.hpp>
#include <string>

namespace flotilla::webhooks {
namespace json = boost::json;

namespace {

std::string escapeToken(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

// What `after` has that `before` lacks (or has differently), as one value: objects keep only
// the members that changed, anything else is taken whole.
json::value delta(const json::value& before, const json::value& after) {
  if (!before.is_object() || !after.is_object()) return after;
  json::object out;
  for (const auto& [key, value] : after.as_object()) {
    const json::value* was = before.as_object().if_contains(key);
    if (was && *was == value) continue;
    out[key] = was ? delta(*was, value) : value;
  }
  return out;
}

// `add` for a member that does not exist yet; `replace` where something is there (for an array
// element, RFC 6902 `add` would insert in front of it instead).
void add(json::array& ops, const std::string& path, json::value value) {
  ops.push_back(json::object{{"op", "add"}, {"path", path}, {"value", std::move(value)}});
}
void replace(json::array& ops, const std::string& path, json::value value) {
  ops.push_back(json::object{{"op", "replace"}, {"path", path}, {"value", std::move(value)}});
}

// `original` is the node at `path` in the object sent to us (it exists).
void walk(const json::value* original, const json::value& before, const json::value& after,
          const std::string& path, json::array& ops) {
  if (before == after) return;
  if (before.is_object() && after.is_object() && original->is_object()) {
    for (const auto& [key, value] : after.as_object()) {
      const json::value* was = before.as_object().if_contains(key);
      if (was && *was == value) continue;
      const std::string child = path + "/" + escapeToken(key);
      const json::value* there = original->as_object().if_contains(key);
      if (was && there) {
        walk(there, *was, value, child, ops);
      } else if (there && there->is_object() && value.is_object()) {
        // The codec left out a level the user wrote (empty to it, or holding only fields it does
        // not model): add into it rather than replace it.
        walk(there, json::object{}, value, child, ops);
      } else if (there) {
        replace(ops, child, value);
      } else {  // the codec made this level up: add it with only what defaulting put in
        add(ops, child, was ? delta(*was, value) : value);
      }
    }
    return;
  }
  if (before.is_array() && after.is_array() && original->is_array() &&
      before.as_array().size() == after.as_array().size() &&
      original->as_array().size() == after.as_array().size()) {
    for (size_t i = 0; i < after.as_array().size(); ++i)
      walk(&original->as_array()[i], before.as_array()[i], after.as_array()[i],
           path + "/" + std::to_string(i), ops);
    return;
  }
  replace(ops, path, after);
}

}  // namespace

json::array defaultsPatch(const json::value& original, const json::value& before,
                          const json::value& after) {
  json::array ops;
  walk(&original, before, after, "", ops);
  return ops;
}

}  // namespace flotilla::webhooks
