// Which OverridePolicy and ClusterOverridePolicy rules apply to an object on one cluster, in the
// order they apply (docs/design.md §14): ClusterOverridePolicies first, then the object's
// namespace's OverridePolicies (applied later, so the namespaced one wins a conflict); within
// each, by name; a policy's rules in list order. A policy selects the object as a
// PropagationPolicy's resourceSelectors would (an OverridePolicy only in its own namespace); a
// rule applies to the clusters its targetCluster selects, as a placement's clusterAffinity
// (absent: every cluster). Pure, tested by tables (resolve_test.cc).
#pragma once

#include <string>
#include <vector>

#include "api/override_types.h"
#include "controllers/override/overriders.h"
#include "controllers/policy/resolve.h"

namespace flotilla::controllers::override {

// "cop/NAME", "op/NAMESPACE/NAME": how member objects and statuses name a policy.
std::string policyId(const api::ClusterOverridePolicy& policy);
std::string policyId(const api::OverridePolicy& policy);

// Whether `affinity` selects `cluster` (its names, exclusions, labels and fields).
bool clusterSelected(const api::ClusterAffinity& affinity, const api::FederatedCluster& cluster);

// The rules for `object` on `cluster`, in order; each points into the policies passed in.
std::vector<RuleRef> rulesFor(const policy::Workload& object, const api::FederatedCluster& cluster,
                              const std::vector<api::ClusterOverridePolicy>& clusterPolicies,
                              const std::vector<api::OverridePolicy>& policies);

}  // namespace flotilla::controllers::override
