#include "controllers/override/resolve.h"

#include <algorithm>

#include "api/label_selector.h"
#include "scheduler/framework/cluster_fields.h"

namespace flotilla::controllers::override {

std::string policyId(const api::ClusterOverridePolicy& policy) {
  return "cop/" + policy.metadata.name;
}

std::string policyId(const api::OverridePolicy& policy) {
  return "op/" + policy.metadata.namespace_ + "/" + policy.metadata.name;
}

bool clusterSelected(const api::ClusterAffinity& affinity, const api::FederatedCluster& cluster) {
  std::optional<api::Selector> labels;
  if (affinity.labelSelector) {
    auto compiled = api::Selector::fromLabelSelector(*affinity.labelSelector);
    if (!compiled) return false;  // (admission refuses it; one stored before selects nothing)
    labels = std::move(*compiled);
  }
  return scheduler::affinitySelects(affinity, cluster, labels ? &*labels : nullptr);
}

bool selects(const api::OverridePolicySpec& spec, const policy::Workload& object,
             const std::string& policyNamespace) {
  return std::any_of(spec.resourceSelectors.begin(), spec.resourceSelectors.end(),
                     [&](const api::ResourceSelector& s) {
                       return policy::selectorMatch(s, object, policyNamespace).has_value();
                     });
}

namespace {

template <class Policy>
void keepSelecting(const std::vector<std::shared_ptr<const Policy>>& from,
                   const policy::Workload& object, bool namespaced,
                   std::vector<std::shared_ptr<const Policy>>& out) {
  for (const auto& p : from) {
    if (!p || p->metadata.deletionTimestamp) continue;
    if (namespaced && p->metadata.namespace_ != object.ns) continue;
    if (selects(p->spec, object, namespaced ? p->metadata.namespace_ : "")) out.push_back(p);
  }
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a->metadata.name < b->metadata.name; });
}

template <class Policy>
void addRules(const Policy& policy, const api::FederatedCluster& cluster,
              std::vector<RuleRef>& out) {
  for (size_t i = 0; i < policy.spec.rules.size(); ++i) {
    const auto& rule = policy.spec.rules[i];
    if (rule.targetCluster && !clusterSelected(*rule.targetCluster, cluster)) continue;
    out.push_back({policyId(policy), i, &rule});
  }
}

// A policy the caller owns, shared without ownership.
template <class Policy>
std::shared_ptr<const Policy> borrowed(const Policy& p) {
  return std::shared_ptr<const Policy>(std::shared_ptr<const Policy>(), &p);
}

}  // namespace

PolicySet selecting(const PolicySet& set, const policy::Workload& object) {
  PolicySet out;
  keepSelecting(set.clusterPolicies, object, false, out.clusterPolicies);
  // (A cluster-scoped object has no OverridePolicies: they are namespaced.)
  if (!object.ns.empty()) keepSelecting(set.policies, object, true, out.policies);
  return out;
}

std::vector<RuleRef> rulesFor(const PolicySet& selected, const api::FederatedCluster& cluster) {
  std::vector<RuleRef> out;
  for (const auto& p : selected.clusterPolicies) addRules(*p, cluster, out);
  for (const auto& p : selected.policies) addRules(*p, cluster, out);
  return out;
}

std::vector<RuleRef> rulesFor(const policy::Workload& object, const api::FederatedCluster& cluster,
                              const std::vector<api::ClusterOverridePolicy>& clusterPolicies,
                              const std::vector<api::OverridePolicy>& policies) {
  PolicySet set;
  for (const auto& p : clusterPolicies) set.clusterPolicies.push_back(borrowed(p));
  for (const auto& p : policies) set.policies.push_back(borrowed(p));
  return rulesFor(selecting(set, object), cluster);
}

}  // namespace flotilla::controllers::override
