// What every reconciler needs between the untyped client runtime (informer caches hold JSON) and
// the typed pure decisions: the resources the operator reads and writes, decoding a cached object,
// and encoding a typed object for a write.
#pragma once

#include <boost/json/object.hpp>
#include <string>

#include "api/json_codec.h"
#include "api/result.h"
#include "kube/cache/indexer.h"
#include "kube/client/resource.h"
#include "kube/controller/controller.h"

namespace flotilla::controllers {

// The resources the operator uses on the host and on members.
namespace resources {
extern const kube::ResourceId kFederatedClusters;
extern const kube::ResourceId kPropagationPolicies;
extern const kube::ResourceId kClusterPropagationPolicies;
extern const kube::ResourceId kOverridePolicies;
extern const kube::ResourceId kClusterOverridePolicies;
extern const kube::ResourceId kFederatedDeployments;
extern const kube::ResourceId kResourceBindings;
extern const kube::ResourceId kFederatedObjects;
extern const kube::ResourceId kClusterFederatedObjects;
extern const kube::ResourceId kClusterResourceBindings;
extern const kube::ResourceId kSchedulingProfiles;
extern const kube::ResourceId kSchedulerExtenders;
extern const kube::ResourceId kDeployments;
extern const kube::ResourceId kReplicaSets;
extern const kube::ResourceId kSecrets;
extern const kube::ResourceId kNodes;
extern const kube::ResourceId kPods;
extern const kube::ResourceId kNamespaces;
}  // namespace resources

// A binding's queue key: "ns/name" for a ResourceBinding, "name" for a ClusterResourceBinding
// (the binding of a cluster-scoped object).
inline bool clusterScopedKey(std::string_view key) {
  return key.find('/') == std::string_view::npos;
}
inline const kube::ResourceId& bindingResourceOf(std::string_view key) {
  return clusterScopedKey(key) ? resources::kClusterResourceBindings : resources::kResourceBindings;
}

// A cached object as its type. Objects in a cache were accepted by the API server, so a failure
// here means a schema drift; callers log it and skip the object.
template <class T>
api::Result<T> fromObject(const boost::json::object& object) {
  return api::decode<T>(object);
}
template <class T>
api::Result<T> fromObject(const kube::ObjectPtr& object) {
  return fromObject<T>(*object);
}

template <class T>
boost::json::object toObject(const T& value) {
  auto v = api::encode(value);
  return v.is_object() ? std::move(v.as_object()) : boost::json::object{};
}

// The object an event is about: apiVersion, kind and metadata (what EventRecorder expects).
template <class T>
boost::json::object involved(const T& value) {
  boost::json::object o;
  o["apiVersion"] = value.apiVersion;
  o["kind"] = value.kind;
  o["metadata"] = api::encode(value.metadata);
  return o;
}

// Whether `object`'s status already is `status`. An absent status and an empty one are the same
// (the codec omits empty fields), so a status with nothing to say is never written.
bool sameStatus(const boost::json::object& object, const boost::json::value& status);
// The object carries a non-empty status.
bool hasStatus(const boost::json::object& object);

// A write that lost a race (409 Conflict: the cache was behind) is retried quietly with the
// key's backoff, reading the fresh object; other errors are reported.
api::Result<kube::ReconcileResult> retryOnConflict(const api::Error& error);

}  // namespace flotilla::controllers
