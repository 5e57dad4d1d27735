#include "controllers/common/policies.h"

#include "controllers/common/managed.h"
#include "controllers/common/typed.h"

namespace flotilla::controllers {

PolicySet policiesFor(const std::string& ns, const kube::SharedInformer& policies,
                      const kube::SharedInformer& clusterPolicies, PolicyDecodeCache& decoded) {
  PolicySet set;
  for (const auto& o : policies.store().byIndex(kube::kNamespaceIndex, ns)) {
    if (auto p = decoded.policies.get(o)) set.policies.push_back(**p);
  }
  for (const auto& o : clusterPolicies.store().list()) {
    if (auto p = decoded.clusterPolicies.get(o)) set.clusterPolicies.push_back(**p);
  }
  return set;
}

bool policyExists(const policy::PolicyKey& key, const kube::SharedInformer& policies,
                  const kube::SharedInformer& clusterPolicies) {
  const bool cluster = key.kind == "ClusterPropagationPolicy";
  const auto object = cluster ? clusterPolicies.store().get(key.name)
                              : policies.store().get(key.ns + "/" + key.name);
  if (!object) return false;
  const auto* meta = object->if_contains("metadata");
  return !(meta && meta->is_object() && meta->as_object().contains("deletionTimestamp"));
}

bool claimedPolicyExists(const std::map<std::string, std::string>& annotations,
                         const kube::SharedInformer& policies,
                         const kube::SharedInformer& clusterPolicies) {
  auto it = annotations.find(kPolicyAnnotation);
  if (it == annotations.end()) return false;
  auto claimed = policy::PolicyKey::parse(it->second);
  return claimed && policyExists(*claimed, policies, clusterPolicies);
}

kube::MapFunc mapPolicyToObjects(const kube::SharedInformer& objects) {
  return [&objects](const kube::ObjectPtr& policy) {
    std::vector<std::string> keys;
    std::string ns;
    if (const auto* meta = policy->if_contains("metadata"); meta && meta->is_object()) {
      if (const auto* n = meta->as_object().if_contains("namespace"); n && n->is_string())
        ns = std::string(n->as_string());
    }
    const auto list =
        ns.empty() ? objects.store().list() : objects.store().byIndex(kube::kNamespaceIndex, ns);
    keys.reserve(list.size());
    for (const auto& o : list) keys.push_back(kube::objectKey(*o));
    return keys;
  };
}

}  // namespace flotilla::controllers
