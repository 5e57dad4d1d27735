// Which kinds the host is watched for (docs/design.md §11): only those some PropagationPolicy or
// ClusterPropagationPolicy names, so memory and watches stay proportional to what is propagated.
#pragma once

#include <set>
#include <vector>

#include "api/flotilla_types.h"
#include "controllers/common/object_key.h"

namespace flotilla::controllers::federate {

// The (apiVersion, kind) pairs the policies' resourceSelectors name, less those another path
// handles or that are never propagated: apps/v1 Deployments (FederatedDeployments), Flotilla's own
// kinds, Events, Leases, Nodes, ... (api::neverPropagated). Two versions of one group and kind
// are watched once, in the preferred one (GA over beta over alpha, the highest first). Policies
// being deleted still count:
// their objects keep their placement until the policy is gone.
std::set<KindKey> kindsNamed(const std::vector<api::PropagationPolicy>& policies,
                             const std::vector<api::ClusterPropagationPolicy>& clusterPolicies);

}  // namespace flotilla::controllers::federate
