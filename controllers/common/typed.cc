#include "controllers/common/typed.h"

namespace flotilla::controllers {

namespace resources {
const kube::ResourceId kFederatedClusters{"flotilla.io", "v1alpha1", "federatedclusters", false,
                                          "FederatedCluster"};
const kube::ResourceId kPropagationPolicies{"flotilla.io", "v1alpha1", "propagationpolicies", true,
                                            "PropagationPolicy"};
const kube::ResourceId kClusterPropagationPolicies{
    "flotilla.io", "v1alpha1", "clusterpropagationpolicies", false, "ClusterPropagationPolicy"};
const kube::ResourceId kOverridePolicies{"flotilla.io", "v1alpha1", "overridepolicies", true,
                                         "OverridePolicy"};
const kube::ResourceId kClusterOverridePolicies{
    "flotilla.io", "v1alpha1", "clusteroverridepolicies", false, "ClusterOverridePolicy"};
const kube::ResourceId kFederatedDeployments{"flotilla.io", "v1alpha1", "federateddeployments",
                                             true, "FederatedDeployment"};
const kube::ResourceId kResourceBindings{"flotilla.io", "v1alpha1", "resourcebindings", true,
                                         "ResourceBinding"};
const kube::ResourceId kFederatedObjects{"flotilla.io", "v1alpha1", "federatedobjects", true,
                                         "FederatedObject"};
const kube::ResourceId kClusterFederatedObjects{
    "flotilla.io", "v1alpha1", "clusterfederatedobjects", false, "ClusterFederatedObject"};
const kube::ResourceId kClusterResourceBindings{
    "flotilla.io", "v1alpha1", "clusterresourcebindings", false, "ClusterResourceBinding"};
const kube::ResourceId kSchedulingProfiles{"flotilla.io", "v1alpha1", "schedulingprofiles", false,
                                           "SchedulingProfile"};
const kube::ResourceId kSchedulerExtenders{"flotilla.io", "v1alpha1", "schedulerextenders", false,
                                           "SchedulerExtender"};
const kube::ResourceId kDeployments{"apps", "v1", "deployments", true, "Deployment"};
const kube::ResourceId kSecrets{"", "v1", "secrets", true, "Secret"};
const kube::ResourceId kNodes{"", "v1", "nodes", false, "Node"};
const kube::ResourceId kPods{"", "v1", "pods", true, "Pod"};
const kube::ResourceId kReplicaSets{"apps", "v1", "replicasets", true, "ReplicaSet"};
const kube::ResourceId kNamespaces{"", "v1", "namespaces", false, "Namespace"};
}  // namespace resources

api::Result<kube::ReconcileResult> retryOnConflict(const api::Error& error) {
  if (error.code == 409 && error.reason == api::reason::kConflict)
    return kube::ReconcileResult{true, std::chrono::nanoseconds(0)};
  return error;
}

bool sameStatus(const boost::json::object& object, const boost::json::value& status) {
  static const boost::json::value kEmpty = boost::json::object{};
  const auto* current = object.if_contains("status");
  const auto& a = current && !current->is_null() ? *current : kEmpty;
  const auto& b = status.is_null() ? kEmpty : status;
  return a == b;
}

bool hasStatus(const boost::json::object& object) {
  const auto* status = object.if_contains("status");
  return status && status->is_object() && !status->as_object().empty();
}

}  // namespace flotilla::controllers
