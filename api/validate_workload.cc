// Validation of workload kinds: FederatedDeployment, FederatedObject, ClusterFederatedObject,
// (Cluster)ResourceBinding, and the native Deployment fields Flotilla reads.
#include <set>

#include "api/unstructured.h"
#include "api/validation.h"
#include "api/validation_util.h"

namespace flotilla::api {
namespace u = unstructured;

std::optional<std::string> neverPropagated(std::string_view apiVersion, std::string_view kind,
                                           const boost::json::object* object) {
  const std::string_view group = u::groupOf(apiVersion);
  if (group == "flotilla.io") return "Flotilla's own kinds describe the fleet, not a workload";
  if (kind == "Event" && (group.empty() || group == "events.k8s.io"))
    return "Events belong to the cluster that recorded them";
  if (kind == "Lease" && group == "coordination.k8s.io")
    return "Leases elect leaders inside one cluster";
  if (kind == "Endpoints" && group.empty())
    return "Endpoints are computed by each cluster from its own pods";
  if (kind == "EndpointSlice" && group == "discovery.k8s.io")
    return "EndpointSlices are computed by each cluster from its own pods";
  if (kind == "Node" && group.empty()) return "Nodes belong to the cluster they run in";
  const std::string name =
      object != nullptr ? u::stringAt(*object, {"metadata", "name"}) : std::string();
  if (kind == "ConfigMap" && group.empty() && name == "kube-root-ca.crt")
    return "kube-root-ca.crt holds each cluster's own CA, published by its controller-manager";
  if (kind == "ServiceAccount" && group.empty() && name == "default")
    return "every namespace of every cluster has its own default ServiceAccount";
  if (kind == "Secret" && group.empty() && object != nullptr &&
      u::stringAt(*object, {"type"}) == "kubernetes.io/service-account-token")
    return "ServiceAccount token Secrets are minted by each cluster for its own ServiceAccounts";
  return std::nullopt;
}

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

void validateOverrides(const std::vector<ClusterOverride>& overrides, Errors& errors) {
  std::set<std::string> clusters;
  for (size_t i = 0; i < overrides.size(); ++i) {
    const ClusterOverride& o = overrides[i];
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
}

// A federated object's template: a whole object of any kind but Flotilla's own and the
// Deployment (whose federated form is FederatedDeployment). `ns`: the federated object's
// namespace ("" for a ClusterFederatedObject, whose template must be cluster-scoped).
void validateTemplate(const boost::json::object& tmpl, const std::string& ns, bool clusterScoped,
                      Errors& errors) {
  const boost::json::value* apiVersion = tmpl.if_contains("apiVersion");
  const boost::json::value* kind = tmpl.if_contains("kind");
  if (!apiVersion || !apiVersion->is_string() || apiVersion->as_string().empty())
    errors.required("spec.template.apiVersion");
  if (!kind || !kind->is_string() || kind->as_string().empty())
    errors.required("spec.template.kind");
  const boost::json::value* metadata = tmpl.if_contains("metadata");
  const boost::json::object* meta = metadata ? metadata->if_object() : nullptr;
  const boost::json::value* name = meta ? meta->if_contains("name") : nullptr;
  // Each kind has its own name rules (RBAC names may hold ':' and capitals), which the members'
  // API servers check; every kind's name is a path segment.
  if (!name || !name->is_string() || name->as_string().empty()) {
    errors.required("spec.template.metadata.name");
  } else if (const std::string_view n = name->as_string(); n == "." || n == ".." ||
                                                           n.find('/') != std::string_view::npos ||
                                                           n.find('%') != std::string_view::npos) {
    errors.add(
        "spec.template.metadata.name",
        "Invalid value: \"" + std::string(n) + "\": may not be '.' or '..' nor contain '/' or '%'");
  }
  const boost::json::value* tns = meta ? meta->if_contains("namespace") : nullptr;
  const std::string templateNs = tns && tns->is_string() ? std::string(tns->as_string()) : "";
  if (clusterScoped && !templateNs.empty()) {
    errors.add("spec.template.metadata.namespace",
               "Invalid value: \"" + templateNs +
                   "\": a ClusterFederatedObject holds a cluster-scoped object; a namespaced one "
                   "is a FederatedObject in its namespace");
  } else if (!clusterScoped && !templateNs.empty() && templateNs != ns) {
    errors.add("spec.template.metadata.namespace",
               "Invalid value: \"" + templateNs + "\": must be the FederatedObject's namespace \"" +
                   ns + "\"");
  }
  if (!apiVersion || !apiVersion->is_string() || !kind || !kind->is_string()) return;
  const std::string_view av = apiVersion->as_string();
  if (auto why = neverPropagated(av, kind->as_string(), &tmpl))
    errors.add("spec.template.kind", "Forbidden: never propagated: " + *why);
  if (u::groupOf(av) == "apps" && kind->as_string() == "Deployment")
    errors.add("spec.template.kind",
               "Forbidden: a Deployment's federated form is a FederatedDeployment");
}

void validateBindingSpec(const ResourceBindingSpec& spec, const ResourceBindingStatus& status,
                         Errors& errors);

}  // namespace

FieldErrors validate(const FederatedObject& object) {
  Errors errors;
  validation::validateObjectMeta(object.metadata, validation::Scope::kNamespaced, false, errors);
  validateTemplate(object.spec.template_, object.metadata.namespace_, false, errors);
  validateOverrides(object.spec.overrides, errors);
  return errors.take();
}

FieldErrors validate(const ClusterFederatedObject& object) {
  Errors errors;
  validation::validateObjectMeta(object.metadata, validation::Scope::kCluster, false, errors);
  validateTemplate(object.spec.template_, "", true, errors);
  validateOverrides(object.spec.overrides, errors);
  return errors.take();
}

FieldErrors validate(const FederatedDeployment& workload) {
  Errors errors;
  validation::validateObjectMeta(workload.metadata, validation::Scope::kNamespaced, false, errors);
  validateDeploymentSpec(workload.spec.template_.spec, "spec.template.spec", errors);
  validateOverrides(workload.spec.overrides, errors);
  return errors.take();
}

FieldErrors validate(const ResourceBinding& binding) {
  Errors errors;
  validation::validateObjectMeta(binding.metadata, validation::Scope::kNamespaced, false, errors);
  validateBindingSpec(binding.spec, binding.status, errors);
  return errors.take();
}

FieldErrors validate(const ClusterResourceBinding& binding) {
  Errors errors;
  validation::validateObjectMeta(binding.metadata, validation::Scope::kCluster, false, errors);
  validateBindingSpec(binding.spec, binding.status, errors);
  return errors.take();
}

namespace {
void validateBindingSpec(const ResourceBindingSpec& spec, const ResourceBindingStatus& status,
                         Errors& errors) {
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
  errors.oneOfOrEmpty("status.lastScheduleType", status.lastScheduleType, enums::kScheduleType);
}
}  // namespace

FieldErrors validate(const Deployment& deployment) {
  Errors errors;
  validation::validateObjectMeta(deployment.metadata, validation::Scope::kNamespaced, false,
                                 errors);
  validateDeploymentSpec(deployment.spec, "spec", errors);
  return errors.take();
}

}  // namespace flotilla::api
