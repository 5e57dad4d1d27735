// The follower plan as the host's caches show it (docs/design.md §12): the leaders (bindings whose
// objects name followers), and for one object the leaders it follows. Nothing is kept between
// calls but the informers' own indexes: every answer is computed from the caches, so a restarted
// operator answers the same (the pure parts are leaders.h and followers.h). The indexes make each
// answer cost what the object's own leaders and followers cost, not its namespace: a follower's
// leaders are a lookup of what names it (kNeedsIndex), a leader's recorded followers a lookup of
// spec.requiredBy (kRequiredByIndex).
#pragma once

#include <array>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "controllers/common/object_key.h"
#include "controllers/dependencies/leaders.h"
#include "kube/cache/informer.h"
#include "kube/controller/controller.h"

namespace flotilla::controllers::dependencies {

// FollowerIndex adds its indexes to these (kNeedsIndex, kRequiredByIndex).
struct IndexInformers {
  kube::SharedInformer& bindings;
  kube::SharedInformer& federatedDeployments;
  kube::SharedInformer& federatedObjects;
  // ClusterResourceBindings: a cluster-scoped follower's (a CRD's) requirements.
  kube::SharedInformer* clusterBindings = nullptr;
};

// On federated objects: "need:<ObjectKey>" for each object its template names (the interpreter's
// dependencies), "pod:<ns>/<key>=<value>" for each label of the pods it runs (a Service's selector
// finds them), "crd:<group>/<kind>" for a custom resource (its CRD finds it), "target:<ObjectKey>"
// of its own object when it has replicas (an HPA naming it finds it).
inline constexpr const char* kNeedsIndex = "flotilla.io/needs";
// On bindings: "<ns>/<name>" of each leader in spec.requiredBy.
inline constexpr const char* kRequiredByIndex = "flotilla.io/required-by";

// The host's Services as its caches hold them (none where Services are not watched).
struct ServiceLookup {
  // Service `name` of namespace `ns`; null when it is not cached.
  std::function<kube::ObjectPtr(const std::string& ns, const std::string& name)> named;
  // The Services whose selector has a label, by its kSelectorIndex value.
  std::function<std::vector<kube::ObjectPtr>(const std::string& ns, const std::string& value)>
      selecting;
};
// On the Service informers: "<ns>/<key>=<value>" for each label of spec.selector.
inline constexpr const char* kSelectorIndex = "flotilla.io/selector";
std::vector<std::string> selectorIndexValues(const boost::json::object& service);
// The kSelectorIndex value of one label.
std::string selectorValue(const std::string& ns, std::string_view key,
                          const boost::json::value& value);
// The host's CustomResourceDefinitions as its caches hold them (none where they are not watched:
// no policy that lets dependencies follow selects a custom resource).
struct CrdLookup {
  // The CRD serving `kind` of `group`; null when none is cached (not a custom resource: an
  // aggregated API has no CRD).
  std::function<kube::ObjectPtr(const std::string& group, const std::string& kind)> serving;
  // CRD `name`; null when it is not cached.
  std::function<kube::ObjectPtr(const std::string& name)> named;
  // Whether the CRD cache, where it runs, has synced (until then a custom resource's need of its
  // CRD is not known).
  std::function<bool()> synced;
};
// On the CRD informer: "<spec.group>/<spec.names.kind>".
inline constexpr const char* kCrdIndex = "flotilla.io/serves";
std::vector<std::string> crdIndexValues(const boost::json::object& crd);
// The kind through which a custom resource needs its CRD.
inline constexpr std::pair<const char*, const char*> kCrdKind = {"apiextensions.k8s.io/v1",
                                                                 "CustomResourceDefinition"};

// The host's objects of the kinds that follow what they name (interpreter::Interpreter::follows:
// an HPA its scale target), as their caches hold them (none where they are not watched).
struct NamingLookup {
  // The cached source of `follower`; null when it is not cached.
  std::function<kube::ObjectPtr(const Dependency& follower)> named;
  // The cached objects of those kinds in `ns` following the object whose kFollowsIndex value is
  // `target` (the ObjectKey text of the object they name).
  std::function<std::vector<Dependency>(const std::string& ns, const std::string& target)> naming;
};
// On the informers of those kinds: the ObjectKey text of the object each names.
inline constexpr const char* kFollowsIndex = "flotilla.io/follows";
std::vector<std::string> followsIndexValues(const std::string& apiVersion, const std::string& kind,
                                            const boost::json::object& object);
// The kinds that follow what they name.
inline constexpr std::array<std::pair<const char*, const char*>, 1> kNamingKinds = {{
    {"autoscaling/v2", "HorizontalPodAutoscaler"},
}};

// Whether the caches of every follower kind in a namespace have synced: until then what follows
// whom is not known (a restarting operator must not take a Service it has not listed yet for one
// that is gone).
using SourcesSynced = std::function<bool(const std::string& ns)>;

// The kinds that follow workloads on their own (a pod template or a selector names them); an
// annotated extra of another kind follows only where a policy has that kind watched.
inline constexpr std::array<std::pair<const char*, const char*>, 6> kFollowerKinds = {{
    {"v1", "ConfigMap"},
    {"v1", "Secret"},
    {"v1", "ServiceAccount"},
    {"v1", "PersistentVolumeClaim"},
    {"v1", "Service"},
    {"autoscaling/v2", "HorizontalPodAutoscaler"},
}};

// A binding update that may move its followers: spec.clusters, the clusters of
// status.aggregatedStatus (where copies are), or its deletion began.
kube::Predicate leaderPlacementChanged();

// The federated object (and binding) key "ns/name" of each ObjectKey text.
std::vector<std::string> federatedKeys(const std::vector<std::string>& objectKeys);

class FollowerIndex {
 public:
  FollowerIndex(IndexInformers informers, ServiceLookup services, SourcesSynced synced = nullptr,
                CrdLookup crds = {}, NamingLookup naming = {});

  // Whether the answers for namespace `ns` are complete (SourcesSynced).
  bool ready(const std::string& ns) const { return !synced_ || synced_(ns); }
  // The same for a leader of `apiVersion` in `ns`: a custom resource's also wait for the CRD
  // cache (only theirs: a CRD cache that cannot sync holds back nothing else).
  bool readyFor(const std::string& ns, const std::string& apiVersion) const;

  // The object a binding's members receive, from its federated object's cache (a
  // FederatedDeployment's template as a Deployment); nullopt when that is not cached.
  std::optional<boost::json::object> memberObjectOf(const boost::json::object& binding) const;
  // The leader a binding stands for (leaders.h), nullopt when it leads nothing.
  std::optional<Leader> leaderOf(const boost::json::object& binding) const;
  // The leaders that name `follower` (or, a Service, run pods it selects).
  std::vector<Leader> leadersOf(const Dependency& follower) const;
  // What `follower`'s binding records in spec.requiredBy (empty: no leader names it).
  std::vector<api::BindingRequirement> requiredBy(const Dependency& follower) const;
  // The ObjectKey texts of what a binding's object needs: for the federate controller's queue.
  std::vector<std::string> followerKeysOf(const boost::json::object& binding) const;
  // The bindings (of the same namespace, or ClusterResourceBindings) whose spec.requiredBy
  // names `binding` (its followers as last recorded): looked at again when it changes or goes,
  // even once its federated object is gone from the cache.
  std::vector<kube::ObjectPtr> bindingsRequiring(const boost::json::object& binding) const;
  // followerKeysOf, plus the sources of bindingsRequiring (ObjectKey texts).
  std::vector<std::string> followerSourcesOf(const boost::json::object& binding) const;
  // The federated object keys ("ns/name") of the same followers.
  std::vector<std::string> followerBindingsOf(const boost::json::object& binding) const;
  // The same for a member object (a cached federated object's, below).
  std::vector<std::string> keysNeededBy(const boost::json::object& object) const;
  // The same for a FederatedDeployment, or a FederatedObject, as cached (its template).
  std::vector<std::string> keysNeededByDeployment(const boost::json::object& fd) const;
  std::vector<std::string> keysNeededByObject(const boost::json::object& fo) const;

  // The object members receive, from a cached FederatedDeployment (as a Deployment) or
  // FederatedObject; nullopt when it has no template.
  static std::optional<boost::json::object> deploymentOf(const boost::json::object& fd);
  static std::optional<boost::json::object> templateOf(const boost::json::object& fo);

 private:
  // The leader `object` (what a binding's members receive) stands for: its needs include the
  // cached Services selecting its pods (candidates by kSelectorIndex, each checked whole).
  std::optional<Leader> leaderFor(const boost::json::object& binding,
                                  const boost::json::object& object) const;

  // What the caches add to a leader's needs: a custom resource's CRD, the HPAs scaling it.
  std::vector<Dependency> cachedNeeds(const boost::json::object& object) const;

  IndexInformers informers_;
  ServiceLookup services_;
  SourcesSynced synced_;
  CrdLookup crds_;
  NamingLookup naming_;
};

}  // namespace flotilla::controllers::dependencies
