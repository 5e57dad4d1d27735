// The status controller's decision: what the host should say about a workload, from what its
// member Deployments say (seed 003's status aggregation). Pure: plain structs in, statuses out.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "api/flotilla_types.h"

namespace flotilla::controllers::status {

struct Aggregation {
  api::FederatedDeploymentStatus federated;         // FederatedDeployment.status
  std::vector<api::AggregatedStatusItem> bindings;  // ResourceBinding.status.aggregatedStatus
  std::optional<api::DeploymentStatus> host;  // the host Deployment's status, when there is one
};

// `members`: the member Deployments Flotilla manages for this workload, by cluster. `binding` may
// be null (not created yet); so may `host` (a FederatedDeployment written by a user).
//
// - Per cluster (targets and clusters still holding an object), sorted by name: the member's
//   replica counts, observedGeneration and conditions; propagation and message from the sync
//   controller (aggregatedStatus), PendingCreate for a target it has not reported on.
// - Totals; `ready` = "readyReplicas/desired" (desired: the placement's replicas, else the
//   template's); conditions Propagated (every target OK) and Available (every target's member
//   Deployment Available).
// - Binding entries: sync's fields kept; health Healthy (Available and all replicas ready),
//   Unhealthy, or Unknown (no member object); replicas and readyReplicas.
// - Host status: sums of the members; observedGeneration becomes the host Deployment's generation
//   only when every target holds a member Deployment made from that generation
//   (flotilla.io/source-generation) and observed by its own controller, and the placement is for
//   the current replica count — so `kubectl rollout status` waits for every member (KubeAdmiral's
//   rule). Conditions Available and Progressing as the deployment controller sets them.
// `unknown`: clusters whose member objects cannot be seen now (not Ready): their last reported
// per-cluster status is kept, their binding health is Unknown, and they hold the host's
// observedGeneration back.
Aggregation aggregate(const api::FederatedDeployment& fd, const api::ResourceBinding* binding,
                      const std::map<std::string, api::Deployment>& members,
                      const api::Deployment* host, const std::string& now,
                      const std::set<std::string>& unknown = {});

// True while a workload waits for the scheduler's first decision: a binding the scheduler has not
// written its Scheduled condition on, or none yet for a FederatedDeployment made from a host
// Deployment (the federate controller's; a binding follows it at once). A FederatedDeployment or
// host Deployment without any status is then left without one: what it would say ("no cluster is
// selected yet", nothing available) is not worth a write of its own when the decision comes
// within the second (`kubectl get deploy` prints 0/N either way; `kubectl get fdeploy` shows an
// empty READY until then), so its first status comes with the first decision (docs/performance.md,
// round 2). A decision that places nothing (Scheduled False) ends the wait like any other: that
// status is written. A FederatedDeployment a user wrote, with no binding, does not wait.
bool awaitingFirstDecision(const api::FederatedDeployment& fd, const api::ResourceBinding* binding);

}  // namespace flotilla::controllers::status
