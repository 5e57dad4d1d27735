// Defaulting of flotilla.io kinds (docs/design.md §3; the table is in docs/api-reference.md). Only
// fields whose absence has one fixed meaning are filled in; "every group available" (maxGroups) and
// "no limit" (maxClusters, maxReplicas) stay absent, because a number written here would freeze a
// value that depends on the fleet.
#include "api/validation.h"

namespace flotilla::api {
namespace {

void defaultString(std::string& field, const char* value) {
  if (field.empty()) field = value;
}

// What a placement's absent fields mean whatever the kind. replicaScheduling.type is not one of
// them in a policy: a policy's absent type means the selected kind's default (Divided, Duplicated
// for a StatefulSet: docs/operator.md "Kinds"), which the binding records (setDefaults(Placement&,
// kind default) in the binding controller).
void defaultPlacement(Placement& placement, const char* type) {
  if (!placement.replicaScheduling) placement.replicaScheduling.emplace();
  ReplicaScheduling& rs = *placement.replicaScheduling;
  // (Weights or dynamic weights say Divided whatever the kind's default: they divide.)
  if (type)
    defaultString(rs.type, !rs.weights.empty() || !rs.dynamicWeight.empty() ? "Divided" : type);
  if (rs.type != "Duplicated") defaultString(rs.division, "Weighted");
  if (!rs.avoidDisruption) rs.avoidDisruption = true;
  for (auto& c : placement.spreadConstraints) {
    if (!c.minGroups) c.minGroups = 1;
  }
}

template <class Policy>
void defaultPolicy(Policy& policy) {
  defaultPlacement(policy.spec.placement, nullptr);
  if (policy.spec.autoMigration) {
    defaultString(policy.spec.autoMigration->podUnschedulableFor, "1m");
    defaultString(policy.spec.autoMigration->capacityTTL, "5m");
  }
  // Failover is always on: moving replicas off a dead cluster is the point of a fleet.
  if (!policy.spec.failover) policy.spec.failover.emplace();
  defaultString(policy.spec.failover->clusterNotReadyFor, "60s");
  defaultString(policy.spec.failover->failback, "Rebalance");
}

}  // namespace

void setDefaults(Placement& placement, const char* type) { defaultPlacement(placement, type); }

void setDefaults(PropagationPolicy& policy) { defaultPolicy(policy); }
void setDefaults(ClusterPropagationPolicy& policy) { defaultPolicy(policy); }

void setDefaults(FederatedCluster& cluster) {
  defaultString(cluster.spec.secretRef.namespace_, kSystemNamespace);
}

void setDefaults(FederatedDeployment&) {}  // the template is the user's, verbatim

void setDefaults(ResourceBinding& binding) { setDefaults(binding.spec.placement); }
void setDefaults(ClusterResourceBinding& binding) { setDefaults(binding.spec.placement); }

// A namespaced template lives in its FederatedObject's namespace.
void setDefaults(FederatedObject& object) {
  auto* metadata = object.spec.template_.if_contains("metadata");
  if (metadata && metadata->is_object() && !object.metadata.namespace_.empty() &&
      !metadata->as_object().contains("namespace"))
    metadata->as_object()["namespace"] = object.metadata.namespace_;
}
void setDefaults(ClusterFederatedObject&) {}  // the template is the user's, verbatim

void setDefaults(SchedulingProfile& profile) {
  for (auto& plugin : profile.spec.plugins.score.enabled) {
    if (!plugin.weight) plugin.weight = 1;
  }
}

void setDefaults(OverridePolicy&) {}
void setDefaults(ClusterOverridePolicy&) {}

void setDefaults(SchedulerExtender& extender) {
  if (!extender.spec.weight) extender.spec.weight = 1;
  defaultString(extender.spec.httpTimeout, "5s");
}

}  // namespace flotilla::api
