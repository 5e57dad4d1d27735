// What marks an object as Flotilla's, on the host and on members (docs/operator.md, "What Flotilla
// owns"). A member Deployment belongs to a ResourceBinding when it carries
//   label      flotilla.io/managed-by: flotilla
//   label      flotilla.io/binding:    <16 hex digits: FNV-1a 64 of "namespace/name">
//   annotation flotilla.io/binding:    namespace/name
// Label values are limited to 63 characters and a binding key ("namespace/name") can reach 317,
// so the label holds a fixed-length hash (for selectors) and the annotation the full key (the
// authority: a hash collision can never make Flotilla touch another binding's object).
// Any other kind belongs to the binding of its federated object: the annotation is
// namespace/<name>-<kind> (object_key.h: federatedName), or <name>-<kind> when cluster-scoped.
// The annotation is only believed on the object Flotilla would have made for that binding: one
// whose own namespace/name is the key (or whose namespace, name and kind give it)
// (docs/security.md, M1: a member user's decoy in another namespace cannot pose as a workload's
// copy). Two more labels say who made it:
//   label      flotilla.io/host:       <the host's identity: its kube-system namespace UID>
//   label      flotilla.io/cluster:    <the FederatedCluster it was made through>
// An object another host's operator made is never Flotilla's here, and deleting a
// FederatedCluster deletes only what this host made through that entry.
#pragma once

#include <boost/json/object.hpp>
#include <string>

namespace flotilla::controllers {

inline constexpr const char* kCleanupFinalizer = "flotilla.io/cleanup";
// The PolicyKey::str() of the policy that claimed a source, on its federated object.
inline constexpr const char* kPolicyAnnotation = "flotilla.io/policy";
inline constexpr const char* kManagedByLabel = "flotilla.io/managed-by";
inline constexpr const char* kManagedByValue = "flotilla";
inline constexpr const char* kBindingLabel = "flotilla.io/binding";
inline constexpr const char* kBindingAnnotation = "flotilla.io/binding";
inline constexpr const char* kHostLabel = "flotilla.io/host";
inline constexpr const char* kClusterLabel = "flotilla.io/cluster";
// The host Deployment generation a FederatedDeployment's template (and so a member Deployment)
// was made from: the status controller sets the host's observedGeneration from it.
inline constexpr const char* kSourceGenerationAnnotation = "flotilla.io/source-generation";
// Set on a FederatedDeployment (or FederatedCluster) whose deletion must not wait for members.
// On a member namespace Flotilla created (not one whose owner let Flotilla use it): it is removed
// when nothing of the host's remains in it there (docs/design.md §12).
inline constexpr const char* kCreatedNamespaceAnnotation = "flotilla.io/created-namespace";
inline constexpr const char* kSkipMemberCleanupAnnotation = "flotilla.io/skip-member-cleanup";

// The label value for a binding key.
std::string bindingHash(const std::string& bindingKey);
// "flotilla.io/managed-by=flotilla,flotilla.io/binding=<hash>"
std::string bindingSelector(const std::string& bindingKey);
std::string managedSelector();

// The binding a member object belongs to ("ns/name"), or "" when Flotilla does not manage it:
// marked as Flotilla's, its binding annotation equal to its own namespace/name, and, when
// `hostId` is given, not marked as another host's (an object without the host label predates
// it and is this host's until its next apply adds the label).
std::string managingBinding(const boost::json::object& object, const std::string& hostId = "");
// The ownership rule: Flotilla may modify or delete `object` on behalf of `bindingKey` only when
// it is managed by Flotilla for exactly that binding.
bool managedFor(const boost::json::object& object, const std::string& bindingKey,
                const std::string& hostId = "");
// What a FederatedCluster's deletion removes from its member: objects this host made through
// that entry ("flotilla.io/managed-by=flotilla,flotilla.io/host=<id>,flotilla.io/cluster=<name>").
std::string madeThroughSelector(const std::string& hostId, const std::string& cluster);

}  // namespace flotilla::controllers
