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
  std::string key;                 // its binding ("shop/web-deployment" or "shop/web")
  std::set<std::string> clusters;  // where it is placed now (the binding's spec.clusters)
  std::vector<Dependency> needs;   // the interpreter's dependencies of its template
  bool follow = true;              // the policy's spec.dependencies is Follow (not Ignore)
};

// Where one follower must be: the union of its leaders' clusters.
struct FollowerPlacement {
  Dependency follower;  // optional only when every leader's reference to it is optional
  std::set<std::string> clusters;
  // Per cluster, the leaders that need it there: it leaves a cluster only when none remains.
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
};

// Whether a leader may go to each of its target clusters, and its DependenciesReady condition.
struct LeaderGate {
  // Targets the leader is not on yet whose required followers are not applied there: the leader
  // waits (it is created, or its replicas moved, once they are). A cluster the leader already
  // runs on is never blocked: a follower lost later does not stop its updates.
  std::set<std::string> blocked;
  // DependenciesReady: "True", or "False" with reason Missing (a required follower does not exist
  // on the host: the leader still propagates) or Pending (not applied on every target yet).
  std::string status = "True";
  std::string reason;
  std::string message;  // names the first followers concerned
};

LeaderGate gateLeader(const Leader& leader, const std::map<Dependency, FollowerState>& followers,
                      const std::set<std::string>& leaderPresentOn);

}  // namespace flotilla::controllers::dependencies
