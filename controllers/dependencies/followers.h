// Dependencies follow their workloads (docs/design.md §12; issue #30): where each follower must be,
// and whether a leader may go to a cluster yet. Pure functions on plain structs, tested by tables
// (followers_test.cc). The dependency controller that feeds them from the caches and writes the
// followers' placements is built on top of these.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "interpreter/dependencies.h"

namespace flotilla::controllers::dependencies {

using interpreter::Dependency;

// A propagated workload whose dependencies follow it.
struct Leader {
  std::string key;  // its binding's name ("web-deployment" or "web")
  std::set<std::string> clusters;  // where it is placed now (the binding's spec.clusters)
  // Where its member copy still exists (being deleted, or holding replicas during a move): its
  // pods there may restart and need their followers until it is gone. A deleted leader stays in
  // the input with no clusters while any copy remains.
  std::set<std::string> presentOn;
  std::vector<Dependency> needs;  // the interpreter's dependencies of its template
  bool follow = true;             // the policy's spec.dependencies is Follow (not Ignore)
  std::string ns;  // its binding's namespace ("" in tables of one namespace)
  // "ns/key", or the key alone without a namespace: how a follower's plan names it (a
  // cluster-scoped follower, a CRD, has leaders in many namespaces).
  std::string id() const { return ns.empty() ? key : ns + "/" + key; }
};

// Where one follower must be: the union of its leaders' clusters and of the clusters their copies
// are still on.
struct FollowerPlacement {
  Dependency follower;  // optional only when every leader's reference to it is optional
  std::set<std::string> clusters;
  // Per cluster, the leaders that need it there (Leader::id): it leaves a cluster only when none
  // remains.
  std::map<std::string, std::set<std::string>> leadersOn;
  std::set<std::string> requiredBy;  // every leader naming it
  bool operator==(const FollowerPlacement&) const = default;
};

// Every follower of `leaders`, sorted by the object. A leader whose policy says Ignore brings
// none; `optOut` (objects annotated flotilla.io/follow: "false") follow no one. A leader not
// placed anywhere yet still names its followers (requiredBy), on no cluster.
std::vector<FollowerPlacement> planFollowers(const std::vector<Leader>& leaders,
                                             const std::set<Dependency>& optOut = {});

// One follower as the sync controller last saw it.
struct FollowerState {
  bool onHost = false;              // the object exists on the host
  std::set<std::string> appliedOn;  // clusters whose copy is applied (and, a CRD, established)
  // Clusters where a copy of it is (applied, or there and its last update failed): where an HPA
  // scales the leader whatever its last update did.
  std::set<std::string> heldOn;
};

// Whether a leader may go to each of its target clusters, and its DependenciesReady condition.
// `optOut` as for planFollowers: such an object is never waited for.
struct LeaderGate {
  // Targets the leader is not on yet (Leader::presentOn) where a follower that exists on the host
  // (required, or optional: its pods would mount it) is not applied yet: the leader waits (it is
  // created, or its replicas moved, once they are). A cluster the leader already runs on is never
  // blocked: a follower lost later does not stop its updates.
  std::set<std::string> blocked;
  // DependenciesReady: "True", or "False" with reason Missing (a required follower does not exist
  // on the host: the leader still propagates) or Pending (not applied on every target yet).
  std::string status = "True";
  std::string reason;
  std::string message;  // names the first followers concerned
  // Clusters where a copy of a follower that scales the leader is (an HPA: interpreter::
  // Interpreter::scalesWhatItFollows; opted out of following or not): there the leader's replicas
  // are the member's, kept by the sync (docs/design.md §13). While the gate is Unknown (caches
  // syncing after a restart), every cluster the leader is on.
  std::set<std::string> autoscaledOn;
};

// `waitForMissing`: the leader is new (within the grace of the sync options): a required follower
// missing on the host blocks its new clusters too, so that a directory applied in any order
// (the Deployment before its ConfigMap) starts no pod without it. Past the grace the workload
// propagates without it (reported Missing).
LeaderGate gateLeader(const Leader& leader, const std::map<Dependency, FollowerState>& followers,
                      const std::set<Dependency>& optOut = {}, bool waitForMissing = false);

}  // namespace flotilla::controllers::dependencies
