#include "api/unstructured.h"

#include <boost/json/array.hpp>
#include <boost/json/value.hpp>

namespace flotilla::api::unstructured {
namespace json = boost::json;

const json::value* find(const json::object& o, Path path) {
  const json::object* at = &o;
  const json::value* found = nullptr;
  for (auto step : path) {
    if (at == nullptr) return nullptr;
    auto it = at->find(step);
    if (it == at->end()) return nullptr;
    found = &it->value();
    at = found->if_object();
  }
  return found;
}

const json::object* findObject(const json::object& o, Path path) {
  const json::value* v = find(o, path);
  return v ? v->if_object() : nullptr;
}

json::object* findObject(json::object& o, Path path) {
  return const_cast<json::object*>(findObject(static_cast<const json::object&>(o), path));
}

const json::array* findArray(const json::object& o, Path path) {
  const json::value* v = find(o, path);
  return v ? v->if_array() : nullptr;
}

std::string stringAt(const json::object& o, Path path, std::string_view fallback) {
  const json::value* v = find(o, path);
  if (v == nullptr || !v->is_string()) return std::string(fallback);
  return std::string(v->get_string());
}

std::optional<int64_t> intAt(const json::object& o, Path path) {
  const json::value* v = find(o, path);
  if (v == nullptr) return std::nullopt;
  if (v->is_int64()) return v->get_int64();
  if (v->is_uint64() && v->get_uint64() <= uint64_t(INT64_MAX))
    return static_cast<int64_t>(v->get_uint64());
  if (v->is_double()) {
    // Only integral values that fit: casting 1e300 to int64 is undefined behaviour.
    const double d = v->get_double();
    if (d >= -9.2e18 && d <= 9.2e18 && d == static_cast<double>(static_cast<int64_t>(d)))
      return static_cast<int64_t>(d);
  }
  return std::nullopt;
}

json::object& ensureObject(json::object& o, Path path) {
  json::object* at = &o;
  for (auto step : path) {
    json::value& next = (*at)[step];
    if (!next.is_object()) next = json::object{};
    at = &next.get_object();
  }
  return *at;
}

bool erase(json::object& o, Path path) {
  if (path.size() == 0) return false;
  json::object* at = &o;
  auto last = path.end() - 1;
  for (auto it = path.begin(); it != last; ++it) {
    auto found = at->find(*it);
    if (found == at->end() || !found->value().is_object()) return false;
    at = &found->value().get_object();
  }
  return at->erase(*last) != 0;
}

std::string_view groupOf(std::string_view apiVersion) {
  const auto slash = apiVersion.find('/');
  return slash == std::string_view::npos ? std::string_view{} : apiVersion.substr(0, slash);
}

const json::object* condition(const json::object& o, std::string_view type) {
  const json::array* conditions = findArray(o, {"status", "conditions"});
  if (conditions == nullptr) return nullptr;
  for (const auto& c : *conditions) {
    const json::object* obj = c.if_object();
    if (obj && stringAt(*obj, {"type"}) == type) return obj;
  }
  return nullptr;
}

}  // namespace flotilla::api::unstructured
