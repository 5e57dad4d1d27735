// Which events feed the scheduling queue (docs/design.md §4.1, §4.2). The scheduler must not
// reschedule on status writes, its own writes or operator restarts, and must not spin on bindings
// nothing has changed for; cluster events re-activate unschedulable bindings the way
// kube-scheduler's node events re-activate pods.
#pragma once

#include "api/flotilla_types.h"

namespace flotilla::controllers::scheduler {

// An updated binding is queued only when its scheduling inputs changed: replicas, placement or
// policy (generation), or auto-migration estimates. Status writes, the scheduler's own spec and
// annotation writes and label edits do not.
bool schedulingInputsChanged(const api::ResourceBinding& before, const api::ResourceBinding& after);

// Whether an update may change what the two functions above look at: the binding's generation
// (its spec) or its status.autoMigration (the estimates). Read on the cached JSON without
// decoding: most binding updates are status writes, and every one of the fleet comes here.
bool schedulingInputsMayDiffer(const boost::json::object& before,
                               const boost::json::object& after);

// A spec change the scheduler does not schedule on (a follower's spec.requiredBy) left a placed
// binding's schedulerObservedGeneration behind: the scheduler observes it again, else the sync
// controller would take the placement for one not written yet and never remove anything.
bool observedGenerationLeftBehind(const api::ResourceBinding& before,
                                  const api::ResourceBinding& after);

// A cluster change that can make an unschedulable binding schedulable: labels, taints, topology
// fields, readiness, API enablements or resources changed.
bool clusterChangeMatters(const api::FederatedCluster& before, const api::FederatedCluster& after);

// A change after which bindings already placed on the cluster must be looked at again (failover):
// readiness changed, its NoExecute taints changed, or it is being deleted.
bool placedBindingsAffected(const api::FederatedCluster& before,
                            const api::FederatedCluster& after);

}  // namespace flotilla::controllers::scheduler
