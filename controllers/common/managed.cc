#include "controllers/common/managed.h"

#include <cstdint>
#include <cstdio>

#include "controllers/common/object_key.h"

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

std::string madeThroughSelector(const std::string& hostId, const std::string& cluster) {
  return managedSelector() + "," + kHostLabel + "=" + hostId + "," + kClusterLabel + "=" + cluster;
}

std::string managingBinding(const boost::json::object& object, const std::string& hostId) {
  const auto* labels = metaMap(object, "labels");
  if (stringAt(labels, kManagedByLabel) != kManagedByValue) return "";
  if (!hostId.empty() && labels->contains(kHostLabel) && stringAt(labels, kHostLabel) != hostId)
    return "";
  std::string key = stringAt(metaMap(object, "annotations"), kBindingAnnotation);
  if (key.empty()) return "";
  // Its own identity must be the key: "ns/name" for a Deployment (its FederatedDeployment has its
  // name); for any other kind the binding is named after its federated object, <name>-<kind>
  // (object_key.h), so the kind counts too.
  const auto* meta = object.if_contains("metadata");
  const auto& m = meta->as_object();  // metaMap found labels, so metadata is an object
  const auto* ns = m.if_contains("namespace");
  const auto* name = m.if_contains("name");
  if (!name || !name->is_string()) return "";
  const bool namespaced = ns && ns->is_string() && !ns->as_string().empty();
  const std::string prefix = namespaced ? std::string(ns->as_string()) + "/" : "";
  const auto* apiVersion = object.if_contains("apiVersion");
  const auto* kind = object.if_contains("kind");
  // A Deployment (whose list items come without a kind) is named after its binding.
  const bool deployment = !kind || (kind->is_string() && kind->as_string() == "Deployment");
  if (deployment && namespaced && key == prefix + std::string(name->as_string())) return key;
  if (!apiVersion || !apiVersion->is_string() || !kind || !kind->is_string()) return "";
  const std::string_view version = apiVersion->as_string();
  const auto slash = version.find('/');
  const std::string_view group =
      slash == std::string_view::npos ? std::string_view() : version.substr(0, slash);
  if (key == prefix + federatedName(name->as_string(), kind->as_string(), group)) return key;
  return "";
}

bool managedFor(const boost::json::object& object, const std::string& bindingKey,
                const std::string& hostId) {
  return !bindingKey.empty() && managingBinding(object, hostId) == bindingKey;
}

}  // namespace flotilla::controllers
