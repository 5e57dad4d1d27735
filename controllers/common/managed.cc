#include "controllers/common/managed.h"

#include <cstdint>
#include <cstdio>

namespace flotilla::controllers {

namespace {

const boost::json::object* metaMap(const boost::json::object& o, const char* field) {
  const auto* meta = o.if_contains("metadata");
  if (!meta || !meta->is_object()) return nullptr;
  const auto* m = meta->as_object().if_contains(field);
  return m && m->is_object() ? &m->as_object() : nullptr;
}

std::string stringAt(const boost::json::object* m, const char* key) {
  if (!m) return "";
  const auto* v = m->if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : "";
}

}  // namespace

std::string bindingHash(const std::string& bindingKey) {
  uint64_t h = 14695981039346656037ull;  // FNV-1a 64
  for (const unsigned char c : bindingKey) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string managedSelector() { return std::string(kManagedByLabel) + "=" + kManagedByValue; }

std::string bindingSelector(const std::string& bindingKey) {
  return managedSelector() + "," + kBindingLabel + "=" + bindingHash(bindingKey);
}

std::string managingBinding(const boost::json::object& object) {
  if (stringAt(metaMap(object, "labels"), kManagedByLabel) != kManagedByValue) return "";
  return stringAt(metaMap(object, "annotations"), kBindingAnnotation);
}

bool managedFor(const boost::json::object& object, const std::string& bindingKey) {
  return !bindingKey.empty() && managingBinding(object) == bindingKey;
}

}  // namespace flotilla::controllers
