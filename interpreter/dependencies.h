// What a propagated object needs on every cluster it runs on (docs/design.md §12): the objects its
// pod template names, a StatefulSet's governing Service, the Services that select its pods, and
// the extras its author lists. Pure functions on JSON, tested by tables (dependencies_test.cc);
// the kinds' entries (KindEntry::dependencies) call them, and the dependency controller places
// what they return on the clusters of their leaders.
#pragma once

#include <boost/json/object.hpp>
#include <compare>
#include <string>
#include <vector>

namespace flotilla::interpreter {

// On a workload: extra followers, a JSON list of {"kind", "name"} (and "apiVersion" for a kind
// outside the core group), in the workload's namespace.
inline constexpr const char* kFollowersAnnotation = "flotilla.io/followers";
// On a would-be follower: "false" keeps it from following any workload (a policy that selects it
// directly still places it).
inline constexpr const char* kFollowAnnotation = "flotilla.io/follow";

struct Dependency {
  std::string apiVersion;
  std::string kind;
  std::string ns;  // "" for a cluster-scoped object
  std::string name;
  // The reference is marked optional (a ConfigMap or Secret a pod starts without): it follows
  // when it exists, and its absence is not reported as missing.
  bool optional = false;
  auto operator<=>(const Dependency&) const = default;
};

// The objects a pod spec (`spec.template.spec` of a workload) names in namespace `ns`:
// ConfigMaps and Secrets (volumes, projected volumes, a CSI volume's nodePublishSecretRef, env
// valueFrom, envFrom, of containers, initContainers and ephemeralContainers), imagePullSecrets,
// the ServiceAccount (not "default"), and PersistentVolumeClaims of its volumes. Sorted, each once
// (a reference once required is required). Not followed: the secretRefs of in-tree volume
// plugins (cephfs, rbd, iscsi, ...; mostly removed from Kubernetes), resource claims, cluster-
// scoped objects (PriorityClass, RuntimeClass), and a ServiceAccount's own imagePullSecrets.
std::vector<Dependency> podSpecDependencies(const boost::json::object& podSpec,
                                            const std::string& ns);

struct Followers {
  std::vector<Dependency> followers;
  std::vector<std::string> problems;  // entries that could not be read, for an Event
};

// The flotilla.io/followers annotation of `object`, in its namespace. A core kind (ConfigMap,
// Secret, Service, ServiceAccount, PersistentVolumeClaim) needs no apiVersion; any other kind
// does. Malformed JSON or entries are problems, never a failure of the object.
Followers annotatedFollowers(const boost::json::object& object);

// Whether `object` may follow a workload (its flotilla.io/follow annotation is not "false").
bool mayFollow(const boost::json::object& object);

// The Services of `services` (same namespace) whose non-empty selector matches `podLabels`: they
// route to the workload's pods, so they follow it.
std::vector<Dependency> selectingServices(const boost::json::object& podLabels,
                                          const std::vector<const boost::json::object*>& services);

// Sorts and removes duplicates (one required and one optional reference are required).
void normalize(std::vector<Dependency>& dependencies);

}  // namespace flotilla::interpreter
