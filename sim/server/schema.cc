#include "sim/server/schema.h"

#include <algorithm>
#include <boost/json.hpp>
#include <charconv>

namespace flotilla::sim {
namespace json = boost::json;

namespace {

std::string render(const json::value& v) {
  if (v.is_string()) return "\"" + std::string(v.as_string()) + "\"";
  if (v.is_double()) {  // shortest round-trip form ("1.5"), as Go prints it
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v.as_double());
    if (ec == std::errc()) return std::string(buf, end);
  }
  return json::serialize(v);
}

std::string join(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

bool flag(const json::object& schema, std::string_view key) {
  const auto* v = schema.if_contains(key);
  return v && v->is_bool() && v->as_bool();
}

const json::object* subSchema(const json::object& schema, std::string_view key) {
  const auto* v = schema.if_contains(key);
  return v && v->is_object() ? &v->as_object() : nullptr;
}

std::optional<double> number(const json::object& schema, std::string_view key) {
  const auto* v = schema.if_contains(key);
  if (!v) return std::nullopt;
  if (v->is_int64()) return static_cast<double>(v->as_int64());
  if (v->is_uint64()) return static_cast<double>(v->as_uint64());
  if (v->is_double()) return v->as_double();
  return std::nullopt;
}

class Walker {
 public:
  SchemaOutcome outcome;

  void walk(json::value& value, const json::object& schema, const std::string& path, bool root) {
    const std::string type = schema.contains("type") && schema.at("type").is_string()
                                 ? std::string(schema.at("type").as_string())
                                 : "";
    if (flag(schema, "x-kubernetes-int-or-string")) {
      if (!value.is_int64() && !value.is_uint64() && !value.is_string())
        invalid(path, value, "must be of type int-or-string");
      return;
    }
    if (!type.empty() && !typeMatches(value, type)) {
      invalid(path, value, "must be of type " + type);
      return;
    }
    if (const auto* allowed = schema.if_contains("enum"); allowed && allowed->is_array()) {
      bool found = false;
      for (const auto& a : allowed->as_array()) found = found || a == value;
      if (!found) {
        std::string supported;
        for (const auto& a : allowed->as_array())
          supported += (supported.empty() ? "" : ", ") + render(a);
        outcome.errors.push_back(
            {path, "Unsupported value: " + render(value) + ": supported values: " + supported});
        return;
      }
    }
    if (value.is_object()) walkObject(value.as_object(), schema, path, root);
    if (value.is_array()) {
      auto& a = value.as_array();
      if (auto min = number(schema, "minItems"); min && a.size() < *min)
        invalid(path, value, "should have at least " + fmt(*min) + " items");
      if (auto max = number(schema, "maxItems"); max && a.size() > *max)
        outcome.errors.push_back({path, "Too many: " + std::to_string(a.size()) +
                                            ": must have at most " + fmt(*max) + " items"});
      if (const auto* items = subSchema(schema, "items")) {
        for (size_t i = 0; i < a.size(); ++i)
          walk(a[i], *items, path + "[" + std::to_string(i) + "]", false);
      }
    }
    if (value.is_string()) {
      const size_t length = value.as_string().size();
      if (auto min = number(schema, "minLength"); min && length < *min)
        invalid(path, value, "should be at least " + fmt(*min) + " chars long");
      if (auto max = number(schema, "maxLength"); max && length > *max)
        outcome.errors.push_back({path, "Too long: may not be more than " + fmt(*max) + " bytes"});
    }
    if (value.is_number()) {
      const double n = value.is_int64()    ? static_cast<double>(value.as_int64())
                       : value.is_uint64() ? static_cast<double>(value.as_uint64())
                                           : value.as_double();
      if (auto min = number(schema, "minimum")) {
        const bool exclusive = flag(schema, "exclusiveMinimum");
        if (exclusive ? n <= *min : n < *min)
          invalid(path, value,
                  std::string("should be greater than ") + (exclusive ? "" : "or equal to ") +
                      fmt(*min));
      }
      if (auto max = number(schema, "maximum")) {
        const bool exclusive = flag(schema, "exclusiveMaximum");
        if (exclusive ? n >= *max : n > *max)
          invalid(
              path, value,
              std::string("should be less than ") + (exclusive ? "" : "or equal to ") + fmt(*max));
      }
    }
  }

 private:
  static std::string fmt(double d) {
    if (d == static_cast<double>(static_cast<int64_t>(d)))
      return std::to_string(static_cast<int64_t>(d));
    return std::to_string(d);
  }

  static bool typeMatches(const json::value& v, const std::string& type) {
    if (type == "object") return v.is_object();
    if (type == "array") return v.is_array();
    if (type == "string") return v.is_string();
    if (type == "integer") return v.is_int64() || v.is_uint64();
    if (type == "number") return v.is_number();
    if (type == "boolean") return v.is_bool();
    return true;
  }

  void invalid(const std::string& path, const json::value& value, const std::string& why) {
    outcome.errors.push_back(
        {path, "Invalid value: " + render(value) + ": " + path + " in body " + why});
  }

  void walkObject(json::object& object, const json::object& schema, const std::string& path,
                  bool root) {
    const json::object* properties = subSchema(schema, "properties");
    const json::value* additional = schema.if_contains("additionalProperties");
    const bool preserve = flag(schema, "x-kubernetes-preserve-unknown-fields");
    // Defaults first: a defaulted field is then validated like a given one.
    if (properties) {
      for (const auto& [key, sub] : *properties) {
        if (!sub.is_object() || object.contains(key)) continue;
        if (const auto* d = sub.as_object().if_contains("default")) object[key] = *d;
      }
    }
    std::vector<std::string> drop;
    for (auto& [key, value] : object) {
      const std::string field(key);
      if (root && (field == "apiVersion" || field == "kind" || field == "metadata")) continue;
      const json::object* sub = nullptr;
      if (properties) {
        if (const auto* p = properties->if_contains(key); p && p->is_object())
          sub = &p->as_object();
      }
      if (!sub && additional && additional->is_object()) sub = &additional->as_object();
      if (!sub) {
        const bool allowed =
            preserve || (additional && additional->is_bool() && additional->as_bool());
        if (!allowed) {
          outcome.unknown.push_back(join(path, field));
          drop.push_back(field);
        }
        continue;
      }
      if (value.is_null()) {
        if (!flag(*sub, "nullable")) drop.push_back(field);  // null means absent
        continue;
      }
      walk(value, *sub, join(path, field), false);
    }
    for (const auto& field : drop) object.erase(field);
    if (const auto* required = schema.if_contains("required"); required && required->is_array()) {
      for (const auto& r : required->as_array()) {
        if (r.is_string() && !object.contains(r.as_string()))
          outcome.errors.push_back({join(path, r.as_string()), "Required value"});
      }
    }
  }
};

}  // namespace

SchemaOutcome applySchema(json::object& object, const json::object& schema) {
  Walker walker;
  json::value root(std::move(object));
  walker.walk(root, schema, "", true);
  object = std::move(root.as_object());
  // Sorted by field path: stable, readable messages whatever the object's key order.
  std::stable_sort(
      walker.outcome.errors.begin(), walker.outcome.errors.end(),
      [](const api::FieldError& a, const api::FieldError& b) { return a.field < b.field; });
  return std::move(walker.outcome);
}

}  // namespace flotilla::sim
