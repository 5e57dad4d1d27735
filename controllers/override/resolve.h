// Which OverridePolicy and ClusterOverridePolicy rules apply to an object on one cluster, in the
// order they apply (docs/design.md §14): ClusterOverridePolicies first, then the object's
// namespace's OverridePolicies (applied later, so the namespaced one wins a conflict); within
// each, by name; a policy's rules in list order. A policy selects the object as a
// PropagationPolicy's resourceSelectors would (an OverridePolicy only in its own namespace); a
// rule applies to the clusters its targetCluster selects, as a placement's clusterAffinity
// (absent: every cluster). Pure, tested by tables (resolve_test.cc).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "api/override_types.h"
#include "controllers/override/overriders.h"
#include "controllers/policy/resolve.h"

namespace flotilla::controllers::override {

// "cop/NAME", "op/NAMESPACE/NAME": how member objects and statuses name a policy.
std::string policyId(const api::ClusterOverridePolicy& policy);
std::string policyId(const api::OverridePolicy& policy);

// The policies that may change objects of one namespace: every ClusterOverridePolicy and that
// namespace's OverridePolicies (shared: a reconcile keeps them while it uses their rules).
struct PolicySet {
  std::vector<std::shared_ptr<const api::ClusterOverridePolicy>> clusterPolicies;
  std::vector<std::shared_ptr<const api::OverridePolicy>> policies;
  bool empty() const { return clusterPolicies.empty() && policies.empty(); }
};

// Whether a policy's resourceSelectors select `object` (an OverridePolicy's only in
// `policyNamespace`, its own).
bool selects(const api::OverridePolicySpec& spec, const policy::Workload& object,
             const std::string& policyNamespace);

// The policies of `set` that select `object` and are not being deleted, in the order they apply:
// ClusterOverridePolicies by name, then the OverridePolicies of the object's namespace by name.
// Independent of the cluster: a sync asks once per object, then rulesFor per cluster.
PolicySet selecting(const PolicySet& set, const policy::Workload& object);

// The rules of `selected` (selecting's answer) whose targetCluster selects `cluster`, in order;
// each points into `selected`'s policies.
std::vector<RuleRef> rulesFor(const PolicySet& selected, const api::FederatedCluster& cluster);

// Whether `affinity` selects `cluster` (its names, exclusions, labels and fields).
bool clusterSelected(const api::ClusterAffinity& affinity, const api::FederatedCluster& cluster);

// The rules for `object` on `cluster`, in order; each points into the policies passed in
// (selecting, then rulesFor).
std::vector<RuleRef> rulesFor(const policy::Workload& object, const api::FederatedCluster& cluster,
                              const std::vector<api::ClusterOverridePolicy>& clusterPolicies,
                              const std::vector<api::OverridePolicy>& policies);

}  // namespace flotilla::controllers::override
