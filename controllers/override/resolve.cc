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

namespace {

bool selects(const api::OverridePolicySpec& spec, const policy::Workload& object,
             const std::string& policyNamespace) {
  return std::any_of(spec.resourceSelectors.begin(), spec.resourceSelectors.end(),
                     [&](const api::ResourceSelector& s) {
                       return policy::selectorMatch(s, object, policyNamespace).has_value();
                     });
}

template <class Policy>
std::vector<const Policy*> byName(const std::vector<Policy>& policies) {
  std::vector<const Policy*> out;
  for (const auto& p : policies) out.push_back(&p);
  std::sort(out.begin(), out.end(),
            [](const Policy* a, const Policy* b) { return a->metadata.name < b->metadata.name; });
  return out;
}

template <class Policy>
void addRules(const Policy& policy, const policy::Workload& object,
              const api::FederatedCluster& cluster, const std::string& policyNamespace,
              std::vector<RuleRef>& out) {
  if (policy.metadata.deletionTimestamp || !selects(policy.spec, object, policyNamespace)) return;
  for (size_t i = 0; i < policy.spec.rules.size(); ++i) {
    const auto& rule = policy.spec.rules[i];
    if (rule.targetCluster && !clusterSelected(*rule.targetCluster, cluster)) continue;
    out.push_back({policyId(policy), i, &rule});
  }
}

}  // namespace

std::vector<RuleRef> rulesFor(const policy::Workload& object, const api::FederatedCluster& cluster,
                              const std::vector<api::ClusterOverridePolicy>& clusterPolicies,
                              const std::vector<api::OverridePolicy>& policies) {
  std::vector<RuleRef> out;
  for (const auto* p : byName(clusterPolicies)) addRules(*p, object, cluster, "", out);
  for (const auto* p : byName(policies))
    if (p->metadata.namespace_ == object.ns)
      addRules(*p, object, cluster, p->metadata.namespace_, out);
  return out;
}

}  // namespace flotilla::controllers::override
