// Validation of spec.placement (policies and bindings) and of policies themselves.
#include <set>

#include "api/validation.h"
#include "api/validation_util.h"

namespace flotilla::api {
namespace {

using validation::Errors;
// Weights beyond this buy no precision and would overflow the planner's weight x replicas products.
constexpr int64_t kMaxWeight = 1'000'000;
using validation::idx;

void validateSpread(const std::vector<SpreadConstraint>& constraints, const std::string& path,
                    Errors& errors) {
  std::set<std::string> seen;
  bool byCluster = false;
  bool byOtherField = false;
  for (size_t i = 0; i < constraints.size(); ++i) {
    const SpreadConstraint& c = constraints[i];
    const std::string field = idx(path, i);
    if (!c.spreadByField.empty() && !c.spreadByLabel.empty()) {
      errors.add(field, "spreadByField and spreadByLabel cannot both be set");
    } else if (c.spreadByField.empty() && c.spreadByLabel.empty()) {
      errors.add(field, "Required value: one of spreadByField or spreadByLabel");
    } else if (!c.spreadByField.empty()) {
      errors.oneOf(field + ".spreadByField", c.spreadByField, enums::kSpreadByField);
      byCluster = byCluster || c.spreadByField == "cluster";
      byOtherField = byOtherField || c.spreadByField != "cluster";
    } else if (!isQualifiedName(c.spreadByLabel)) {
      errors.add(field + ".spreadByLabel",
                 "Invalid value: \"" + c.spreadByLabel + "\": must be a label key");
    }
    const std::string group =
        c.spreadByField.empty() ? "label:" + c.spreadByLabel : c.spreadByField;
    if (!seen.insert(group).second) errors.add(field, "Duplicate value: \"" + group + "\"");
    if (c.minGroups) errors.minimum(field + ".minGroups", *c.minGroups, 1);
    if (c.maxGroups) {
      errors.minimum(field + ".maxGroups", *c.maxGroups, 1);
      if (*c.maxGroups < c.minGroups.value_or(1)) {
        errors.add(field + ".maxGroups", "must be >= minGroups");
      }
    }
  }
  // Spreading over regions, zones or providers still has to say how many clusters to use.
  if (byOtherField && !byCluster) {
    errors.add(path,
               "a constraint with spreadByField: cluster is required when spreading by region, "
               "zone or provider");
  }
}

void validateTopologySpread(const std::vector<TopologySpreadConstraint>& constraints,
                            const std::string& path, Errors& errors) {
  std::set<std::pair<std::string, std::string>> seen;
  for (size_t i = 0; i < constraints.size(); ++i) {
    const auto& c = constraints[i];
    const std::string field = idx(path, i);
    if (c.topologyKey.empty()) {
      errors.required(field + ".topologyKey");
    } else if (!enums::contains(enums::kFieldSelectorKey, c.topologyKey) &&
               !isQualifiedName(c.topologyKey)) {
      errors.add(field + ".topologyKey",
                 "Invalid value: \"" + c.topologyKey +
                     "\": must be region, zone, provider or a cluster label key");
    }
    errors.minimum(field + ".maxSkew", c.maxSkew, 1);
    if (c.whenUnsatisfiable.empty()) {
      errors.required(field + ".whenUnsatisfiable");
    } else {
      errors.oneOf(field + ".whenUnsatisfiable", c.whenUnsatisfiable, enums::kWhenUnsatisfiable);
    }
    if (!seen.insert({c.topologyKey, c.whenUnsatisfiable}).second) {
      errors.add(field,
                 "Duplicate value: {\"" + c.topologyKey + "\", \"" + c.whenUnsatisfiable + "\"}");
    }
  }
}

void validateReplicaScheduling(const ReplicaScheduling& rs, const std::string& path,
                               Errors& errors) {
  errors.oneOfOrEmpty(path + ".type", rs.type, enums::kReplicaSchedulingType);
  errors.oneOfOrEmpty(path + ".division", rs.division, enums::kReplicaDivision);
  errors.oneOfOrEmpty(path + ".dynamicWeight", rs.dynamicWeight, enums::kDynamicWeight);
  if (rs.type == "Duplicated" && !rs.weights.empty()) {
    errors.add(path + ".weights", "may not be specified when type is Duplicated");
  }
  if (!rs.weights.empty() && !rs.dynamicWeight.empty()) {
    errors.add(path + ".dynamicWeight", "may not be specified together with weights");
  }
  for (size_t i = 0; i < rs.weights.size(); ++i) {
    const ClusterPreference& w = rs.weights[i];
    const std::string field = idx(path + ".weights", i);
    if (w.targetCluster.clusterNames.empty() && !w.targetCluster.labelSelector) {
      errors.add(field + ".targetCluster", "Required value: clusterNames or labelSelector");
    }
    for (size_t n = 0; n < w.targetCluster.clusterNames.size(); ++n) {
      const std::string& name = w.targetCluster.clusterNames[n];
      if (name != "*") errors.dns1123Label(idx(field + ".targetCluster.clusterNames", n), name);
    }
    if (w.targetCluster.labelSelector) {
      errors.append(validateLabelSelector(*w.targetCluster.labelSelector,
                                          field + ".targetCluster.labelSelector"));
    }
    errors.minimum(field + ".weight", w.weight, 0);
    if (w.weight > kMaxWeight) {
      errors.add(field + ".weight", "Invalid value: " + std::to_string(w.weight) +
                                        ": must be less than or equal to " +
                                        std::to_string(kMaxWeight));
    }
    errors.minimum(field + ".minReplicas", w.minReplicas, 0);
    if (w.maxReplicas) {
      errors.minimum(field + ".maxReplicas", *w.maxReplicas, 0);
      if (*w.maxReplicas < w.minReplicas)
        errors.add(field + ".maxReplicas", "must be >= minReplicas");
    }
  }
}

template <class Policy>
FieldErrors validatePolicy(const Policy& policy, validation::Scope scope) {
  Errors errors;
  validation::validateObjectMeta(policy.metadata, scope, false, errors);
  const PropagationPolicySpec& spec = policy.spec;
  validation::validateResourceSelectors(spec.resourceSelectors, policy.metadata.namespace_, scope,
                                        errors);
  if (!spec.conflictResolution.empty())
    errors.oneOf("spec.conflictResolution", spec.conflictResolution, enums::kConflictResolution);
  if (!spec.dependencies.empty())
    errors.oneOf("spec.dependencies", spec.dependencies, enums::kDependencies);
  if (!spec.schedulingProfile.empty()) {
    errors.dns1123Subdomain("spec.schedulingProfile", spec.schedulingProfile);
  }
  errors.append(validatePlacement(spec.placement, "spec.placement"));
  if (spec.autoMigration) {
    errors.duration("spec.autoMigration.podUnschedulableFor",
                    spec.autoMigration->podUnschedulableFor, false);
    errors.duration("spec.autoMigration.capacityTTL", spec.autoMigration->capacityTTL, true);
  }
  if (spec.failover) {
    errors.duration("spec.failover.clusterNotReadyFor", spec.failover->clusterNotReadyFor, false);
    errors.oneOfOrEmpty("spec.failover.failback", spec.failover->failback, enums::kFailback);
  }
  return errors.take();
}

}  // namespace

FieldErrors validatePlacement(const Placement& p, const std::string& path) {
  Errors errors;
  if (p.clusterAffinity)
    validation::validateAffinity(*p.clusterAffinity, path + ".clusterAffinity", errors);
  for (size_t i = 0; i < p.clusterTolerations.size(); ++i) {
    errors.append(
        validateToleration(p.clusterTolerations[i], idx(path + ".clusterTolerations", i)));
  }
  validateSpread(p.spreadConstraints, path + ".spreadConstraints", errors);
  validateTopologySpread(p.topologySpreadConstraints, path + ".topologySpreadConstraints", errors);
  if (p.maxClusters) errors.minimum(path + ".maxClusters", *p.maxClusters, 0);
  if (p.replicaScheduling) {
    validateReplicaScheduling(*p.replicaScheduling, path + ".replicaScheduling", errors);
  }
  return errors.take();
}

FieldErrors validate(const PropagationPolicy& policy) {
  return validatePolicy(policy, validation::Scope::kNamespaced);
}

FieldErrors validate(const ClusterPropagationPolicy& policy) {
  return validatePolicy(policy, validation::Scope::kCluster);
}

namespace validation {

void validateResourceSelectors(const std::vector<ResourceSelector>& selectors,
                               const std::string& policyNamespace, Scope scope, Errors& errors) {
  if (selectors.empty()) errors.required("spec.resourceSelectors");
  for (size_t i = 0; i < selectors.size(); ++i) {
    const ResourceSelector& s = selectors[i];
    const std::string field = idx("spec.resourceSelectors", i);
    if (s.apiVersion.empty()) errors.required(field + ".apiVersion");
    if (s.kind.empty()) errors.required(field + ".kind");
    if (!s.name.empty()) errors.dns1123Subdomain(field + ".name", s.name);
    if (s.labelSelector)
      errors.append(validateLabelSelector(*s.labelSelector, field + ".labelSelector"));
    if (!s.namespace_.empty()) {
      errors.dns1123Label(field + ".namespace", s.namespace_);
      // A namespaced policy governs only its own namespace.
      if (scope == Scope::kNamespaced && !policyNamespace.empty() &&
          s.namespace_ != policyNamespace) {
        errors.add(field + ".namespace", "Invalid value: \"" + s.namespace_ +
                                             "\": must be the policy's namespace \"" +
                                             policyNamespace + "\"");
      }
    }
  }
}

void validateAffinity(const ClusterAffinity& a, const std::string& path, Errors& errors) {
  for (size_t i = 0; i < a.clusterNames.size(); ++i) {
    errors.dns1123Label(idx(path + ".clusterNames", i), a.clusterNames[i]);
  }
  for (size_t i = 0; i < a.exclude.size(); ++i) {
    errors.dns1123Label(idx(path + ".exclude", i), a.exclude[i]);
  }
  if (a.labelSelector)
    errors.append(validateLabelSelector(*a.labelSelector, path + ".labelSelector"));
  if (a.fieldSelector) {
    const auto& exprs = a.fieldSelector->matchExpressions;
    for (size_t i = 0; i < exprs.size(); ++i) {
      const std::string field = idx(path + ".fieldSelector.matchExpressions", i);
      errors.oneOf(field + ".key", exprs[i].key, enums::kFieldSelectorKey);
      errors.oneOf(field + ".operator", exprs[i].operator_, enums::kFieldSelectorOperator);
      if (exprs[i].values.empty()) errors.add(field + ".values", "Required value");
    }
  }
}

}  // namespace validation

}  // namespace flotilla::api
