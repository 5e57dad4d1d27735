// Validation of workload kinds: FederatedDeployment, ResourceBinding, and the native Deployment
// fields Flotilla reads.
#include <set>

#include "api/validation.h"
#include "api/validation_util.h"

namespace flotilla::api {
namespace {

using validation::Errors;
using validation::idx;

void validateDeploymentSpec(const DeploymentSpec& spec, const std::string& path, Errors& errors) {
  if (spec.replicas) errors.minimum(path + ".replicas", *spec.replicas, 0);
  if (spec.selector) errors.append(validateLabelSelector(*spec.selector, path + ".selector"));
  const auto& containers = spec.template_.spec.containers;
  for (size_t i = 0; i < containers.size(); ++i) {
    const std::string field = idx(path + ".template.spec.containers", i);
    if (containers[i].name.empty()) errors.required(field + ".name");
    for (const auto& [name, q] : containers[i].resources.requests) {
      if (q.sign() < 0) {
        errors.add(field + ".resources.requests[" + name + "]",
                   "Invalid value: \"" + q.str() + "\": must be greater than or equal to 0");
      }
    }
  }
}

}  // namespace

FieldErrors validate(const FederatedDeployment& workload) {
  Errors errors;
  validation::validateObjectMeta(workload.metadata, validation::Scope::kNamespaced, false, errors);
  validateDeploymentSpec(workload.spec.template_.spec, "spec.template.spec", errors);
  std::set<std::string> clusters;
  for (size_t i = 0; i < workload.spec.overrides.size(); ++i) {
    const ClusterOverride& o = workload.spec.overrides[i];
    const std::string field = idx("spec.overrides", i);
    if (o.clusterName.empty()) {
      errors.required(field + ".clusterName");
    } else {
      errors.dns1123Label(field + ".clusterName", o.clusterName);
    }
    if (!clusters.insert(o.clusterName).second) {
      errors.add(field + ".clusterName", "Duplicate value: \"" + o.clusterName + "\"");
    }
    for (size_t p = 0; p < o.patches.size(); ++p) {
      const JsonPatchOperation& op = o.patches[p];
      const std::string pf = idx(field + ".patches", p);
      errors.oneOf(pf + ".op", op.op, enums::kJsonPatchOp);
      if (op.path.empty() || op.path[0] != '/') {
        errors.add(pf + ".path", "Invalid value: \"" + op.path +
                                     "\": must be a JSON pointer such as "
                                     "/spec/replicas");
      }
      if ((op.op == "move" || op.op == "copy") && (op.from.empty() || op.from[0] != '/')) {
        errors.add(pf + ".from", "Required value: a JSON pointer for move and copy");
      }
    }
  }
  return errors.take();
}

FieldErrors validate(const ResourceBinding& binding) {
  Errors errors;
  validation::validateObjectMeta(binding.metadata, validation::Scope::kNamespaced, false, errors);
  const auto& spec = binding.spec;
  if (spec.resource.apiVersion.empty()) errors.required("spec.resource.apiVersion");
  if (spec.resource.kind.empty()) errors.required("spec.resource.kind");
  if (spec.resource.name.empty()) errors.required("spec.resource.name");
  errors.minimum("spec.replicas", spec.replicas, 0);
  for (const auto& [name, q] : spec.replicaRequirements.resourceRequest) {
    if (q.sign() < 0) {
      errors.add("spec.replicaRequirements.resourceRequest[" + name + "]",
                 "Invalid value: \"" + q.str() + "\": must be greater than or equal to 0");
    }
  }
  for (size_t i = 0; i < spec.replicaRequirements.tolerations.size(); ++i) {
    errors.append(validateToleration(spec.replicaRequirements.tolerations[i],
                                     idx("spec.replicaRequirements.tolerations", i)));
  }
  if (!spec.policy.kind.empty())
    errors.oneOf("spec.policy.kind", spec.policy.kind, enums::kPolicyKind);
  errors.append(validatePlacement(spec.placement, "spec.placement"));
  std::set<std::string> seen;
  for (size_t i = 0; i < spec.clusters.size(); ++i) {
    const std::string field = idx("spec.clusters", i);
    errors.dns1123Label(field + ".name", spec.clusters[i].name);
    errors.minimum(field + ".replicas", spec.clusters[i].replicas, 0);
    if (!seen.insert(spec.clusters[i].name).second) {
      errors.add(field + ".name", "Duplicate value: \"" + spec.clusters[i].name + "\"");
    }
  }
  errors.oneOfOrEmpty("status.lastScheduleType", binding.status.lastScheduleType,
                      enums::kScheduleType);
  return errors.take();
}

FieldErrors validate(const Deployment& deployment) {
  Errors errors;
  validation::validateObjectMeta(deployment.metadata, validation::Scope::kNamespaced, false,
                                 errors);
  validateDeploymentSpec(deployment.spec, "spec", errors);
  return errors.take();
}

}  // namespace flotilla::api
