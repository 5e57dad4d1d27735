// From the host's bindings to the follower plan (docs/design.md §12): which bindings lead (their
// object names followers or runs pods a Service selects), and what a follower's own binding
// records about its leaders (spec.requiredBy). Pure functions on JSON and plain structs, tested by
// tables (leaders_test.cc); FollowerIndex (follower_index.h) feeds them from the caches.
#pragma once

#include <boost/json/object.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/flotilla_types.h"
#include "controllers/dependencies/followers.h"

namespace flotilla::controllers::dependencies {

// The leader a binding (as the host stores it) stands for, given `object`, the object its
// members receive (the federated object's template; a FederatedDeployment's as a Deployment),
// and the Services of its namespace. Its needs are what the kind's interpreter names plus the
// Services whose selector matches its pods. nullopt when it needs nothing and runs no pods; a
// binding being deleted still leads while a member copy remains. Its copies are where
// status.aggregatedStatus has an entry that does not say none was made (PendingCreate,
// CreationFailed, Conflict): a cluster it waits on is not one it runs on.
// `extraNeeds`: what the caches add (a custom resource's CustomResourceDefinition).
std::optional<Leader> leaderOf(const boost::json::object& binding,
                               const boost::json::object& object,
                               const std::vector<const boost::json::object*>& services,
                               const std::vector<Dependency>& extraNeeds = {});

// The same object, whatever the reference's optional flag.
bool sameObject(const Dependency& a, const Dependency& b);

// What `follower`'s binding records in spec.requiredBy: one entry per leader naming it (in
// its own namespace, or `ns` for a plan whose leaders carry none; sorted) with the clusters where
// that leader needs it. Empty when no leader names it: it follows nothing.
// At most this many entries: the leaders past the first kMaxRequirements - 1 (sorted) are one
// entry named "+N more" with no namespace and the union of their clusters, so the binding of a
// follower thousands of workloads share (a CRD, a common ConfigMap) stays small: its clusters are
// all there, the names only as far as they are useful to read.
inline constexpr size_t kMaxRequirements = 100;
std::vector<api::BindingRequirement> requirementsFor(const std::vector<FollowerPlacement>& plan,
                                                     const Dependency& follower,
                                                     const std::string& ns);

// The clusters a binding's object goes to: spec.clusters, then the clusters of spec.requiredBy
// not among them (a follower Duplicated there: 0 replicas).
std::vector<api::TargetCluster> targetsOf(const api::ResourceBinding& rb);

// The clusters where a binding (as the host stores it) places its object or may still have a copy
// (spec.clusters, spec.requiredBy, status.aggregatedStatus): its namespace stays on those members.
std::set<std::string> clustersInUse(const boost::json::object& binding);

// The leader's DependenciesReady condition from its gate. Only a binding that leads carries it;
// returns whether it turned to (or changed within) Missing: a Warning Event then says why.
inline constexpr const char* kDependenciesReady = "DependenciesReady";
bool setDependenciesReady(api::ResourceBindingStatus& status, const LeaderGate& gate,
                          int64_t generation, const std::string& now);
// The same for a sync pass: no gate (the binding leads nothing, or its policy says Ignore)
// removes a condition left from when it led; an Unknown gate (caches syncing) leaves it as it is.
bool updateDependenciesReady(api::ResourceBindingStatus& status,
                             const std::optional<LeaderGate>& gate, int64_t generation,
                             const std::string& now);

}  // namespace flotilla::controllers::dependencies
