// What a member cluster has and uses, computed from its Node and Pod objects: the numbers the
// cluster controller writes to FederatedCluster.status.resources and status.nodeSummary, and
// that the scheduler's resource plugins and available-replica estimates read.
#pragma once

#include <vector>

#include "api/core_types.h"
#include "api/flotilla_types.h"

namespace flotilla::controllers::cluster {

struct ResourceSummary {
  api::ClusterResources resources;
  api::NodeSummary nodes;
};

// nodes.total counts every node, nodes.ready those whose Ready condition is "True".
// allocatable sums status.allocatable over nodes that are Ready and schedulable (as Karmada does:
// a cordoned or broken node offers nothing to new replicas). Pods that finished (Succeeded,
// Failed) are ignored; a bound pod (spec.nodeName set) counts to `allocated`, an unbound one to
// `allocating`, each with its podRequests() plus one `pods`. available is, per resource of
// allocatable, allocatable - allocated - allocating clamped at zero.
ResourceSummary summarizeResources(const std::vector<api::Node>& nodes,
                                   const std::vector<api::Pod>& pods);

}  // namespace flotilla::controllers::cluster
