#include "controllers/override/policy_source.h"

#include "api/unstructured.h"

namespace flotilla::controllers::override {

namespace json = boost::json;
namespace u = api::unstructured;

PolicySet CachedOverridePolicies::forNamespace(const std::string& ns) const {
  PolicySet out;
  // A policy that does not decode was not admitted by the webhooks (written around them); it
  // changes nothing rather than stopping every sync.
  for (const auto& object : clusterPolicies_.store().list())
    if (auto p = decodedCluster_.get(object)) out.clusterPolicies.push_back(std::move(*p));
  if (!ns.empty())
    for (const auto& object : policies_.store().byIndex(kube::kNamespaceIndex, ns))
      if (auto p = decoded_.get(object)) out.policies.push_back(std::move(*p));
  return out;
}

policy::Workload federatedWorkload(const json::object& federated) {
  const std::string ns = u::stringAt(federated, {"metadata", "namespace"});
  const auto* tmpl = u::findObject(federated, {"spec", "template"});
  policy::Workload w;
  if (tmpl && !u::stringAt(*tmpl, {"kind"}).empty()) {
    w = policy::workloadOf(*tmpl);
  } else {
    // A FederatedDeployment's template has the Deployment's metadata and spec only.
    w.apiVersion = "apps/v1";
    w.kind = "Deployment";
    w.name = u::stringAt(federated, {"metadata", "name"});
  }
  w.ns = ns;
  w.labels.clear();
  if (const auto* labels = u::findObject(federated, {"metadata", "labels"}))
    for (const auto& [k, v] : *labels)
      if (v.is_string()) w.labels.emplace(k, v.as_string());
  return w;
}

std::vector<std::string> selectedKeys(const kube::SharedInformer& informer,
                                      const api::OverridePolicySpec& spec,
                                      const std::string& policyNamespace) {
  std::vector<std::string> out;
  const auto objects = policyNamespace.empty()
                           ? informer.store().list()
                           : informer.store().byIndex(kube::kNamespaceIndex, policyNamespace);
  for (const auto& object : objects)
    if (selects(spec, federatedWorkload(*object), policyNamespace))
      out.push_back(kube::objectKey(*object));
  return out;
}

}  // namespace flotilla::controllers::override
