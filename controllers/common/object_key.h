// The one name of an object across the pipeline (docs/design.md §3.4a): a source object on the
// host, its federated object, its binding and its member copies are all found from it. It carries
// the kind, so a ConfigMap and a Secret of the same namespace/name never share a queue key, a
// cache entry or a binding.
//
// Text form (queue keys, logs): "<Kind>/<apiVersion>:<namespace>/<name>", or
// "<Kind>/<apiVersion>:<name>" for a cluster-scoped object, e.g. "ConfigMap/v1:demo/settings",
// "ClusterRole/rbac.authorization.k8s.io/v1:system:reader" (a name may hold ':' and the first ':'
// ends the apiVersion, which never holds one).
#pragma once

#include <boost/json/object.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace flotilla::controllers {

// The federated object of a source (and so its binding): "web-configmap", distinct for two kinds
// of the same name. A kind outside the Kubernetes groups (core, apps, batch, policy, autoscaling,
// *.k8s.io) adds a hash of its group ("web-service-1a2b3c4d": a Knative Service is not the core
// one). A name that is not a valid object name once suffixed (RBAC names may hold ':' and
// capitals; 253 characters at most) is lowercased, cleaned and shortened, with a hash of the
// original, so it stays unique.
std::string federatedName(std::string_view name, std::string_view kind,
                          std::string_view group = "");

struct ObjectKey {
  std::string apiVersion;
  std::string kind;
  std::string ns;  // empty: cluster-scoped
  std::string name;

  std::string str() const;
  // "demo/settings" or "settings": the informer-cache key of the object.
  std::string cacheKey() const { return ns.empty() ? name : ns + "/" + name; }
  std::string group() const;
  static std::optional<ObjectKey> parse(std::string_view text);
  // From an object's apiVersion, kind, metadata.namespace and metadata.name.
  static ObjectKey of(const boost::json::object& object);
  bool operator==(const ObjectKey&) const = default;
  auto operator<=>(const ObjectKey&) const = default;
};

// What an informer per kind is kept for: apiVersion and kind.
struct KindKey {
  std::string apiVersion;
  std::string kind;
  bool operator==(const KindKey&) const = default;
  auto operator<=>(const KindKey&) const = default;
};

}  // namespace flotilla::controllers
