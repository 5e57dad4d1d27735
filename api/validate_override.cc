// Validation of OverridePolicy and ClusterOverridePolicy (docs/design.md §14; the rules are in
// docs/api-reference.md).
#include <set>

#include "api/validation.h"
#include "api/validation_util.h"

namespace flotilla::api {
namespace {

using validation::Errors;
using validation::idx;

// What no override may change: the object's identity (a member object of another name or kind
// would be an object Flotilla does not track), and the replicas the scheduler divides.
constexpr std::string_view kForbiddenPaths[] = {"/metadata/name", "/metadata/namespace", "/kind",
                                                "/apiVersion", "/spec/replicas"};

bool forbidden(const std::string& path) {
  for (const auto p : kForbiddenPaths)
    if (path == p || (path.size() > p.size() && path.starts_with(p) && path[p.size()] == '/'))
      return true;
  // The prefixes: removing /metadata or /spec removes them too.
  return path == "/metadata" || path == "/spec" || path.empty() || path == "/";
}

void validateOverriders(const Overriders& o, const std::string& path, Errors& errors) {
  for (size_t i = 0; i < o.image.size(); ++i) {
    const auto& image = o.image[i];
    const std::string field = idx(path + ".image", i);
    errors.oneOf(field + ".component", image.component, enums::kImageComponent);
    errors.oneOf(field + ".operator", image.operator_, enums::kOverrideOperator);
    if (image.operator_ != "delete" && image.value.empty()) errors.required(field + ".value");
    if (image.operator_ == "delete" && image.component == "Repository")
      errors.add(field + ".operator", "Invalid value: \"delete\": a Repository cannot be deleted");
    for (size_t n = 0; n < image.containerNames.size(); ++n)
      errors.dns1123Label(idx(field + ".containerNames", n), image.containerNames[n]);
  }
  for (const auto& [name, list] : {std::pair{"command", &o.command}, std::pair{"args", &o.args}}) {
    for (size_t i = 0; i < list->size(); ++i) {
      const auto& c = (*list)[i];
      const std::string field = idx(path + "." + name, i);
      if (c.containerName.empty()) errors.required(field + ".containerName");
      errors.oneOf(field + ".operator", c.operator_, enums::kListOperator);
      if (c.operator_ != "delete" && c.value.empty()) errors.required(field + ".value");
    }
  }
  for (size_t i = 0; i < o.env.size(); ++i) {
    const auto& e = o.env[i];
    const std::string field = idx(path + ".env", i);
    if (e.containerName.empty()) errors.required(field + ".containerName");
    errors.oneOf(field + ".operator", e.operator_, enums::kOverrideOperator);
    if (e.value.empty()) errors.required(field + ".value");
    for (size_t v = 0; v < e.value.size(); ++v) {
      const auto* name = e.value[v].if_contains("name");
      if (name == nullptr || !name->is_string() || name->as_string().empty())
        errors.required(idx(field + ".value", v) + ".name");
    }
  }
  for (const auto& [name, list] :
       {std::pair{"labels", &o.labels}, std::pair{"annotations", &o.annotations}}) {
    for (size_t i = 0; i < list->size(); ++i) {
      const std::string field = idx(path + "." + name, i);
      errors.oneOf(field + ".operator", (*list)[i].operator_, enums::kOverrideOperator);
      if ((*list)[i].value.empty()) errors.required(field + ".value");
    }
  }
  for (size_t i = 0; i < o.jsonPatch.size(); ++i) {
    const auto& p = o.jsonPatch[i];
    const std::string field = idx(path + ".jsonPatch", i);
    errors.oneOf(field + ".op", p.op, enums::kOverridePatchOp);
    if (p.path.empty() || p.path[0] != '/') {
      errors.add(field + ".path", "Invalid value: \"" + p.path +
                                      "\": must be a JSON pointer such as /spec/template");
    } else if (forbidden(p.path)) {
      errors.add(field + ".path",
                 "Forbidden: " + p.path +
                     ": an override may not change an object's name, namespace, kind or "
                     "apiVersion, nor the replicas Flotilla divides");
    }
    if ((p.op == "add" || p.op == "replace") && p.value.is_null())
      errors.required(field + ".value");
  }
}

template <class Policy>
FieldErrors validateOverridePolicy(const Policy& policy, validation::Scope scope) {
  Errors errors;
  validation::validateObjectMeta(policy.metadata, scope, false, errors);
  validation::validateResourceSelectors(policy.spec.resourceSelectors, policy.metadata.namespace_,
                                        scope, errors);
  if (policy.spec.rules.empty()) errors.required("spec.rules");
  for (size_t i = 0; i < policy.spec.rules.size(); ++i) {
    const auto& rule = policy.spec.rules[i];
    const std::string field = idx("spec.rules", i);
    if (rule.targetCluster)
      validation::validateAffinity(*rule.targetCluster, field + ".targetCluster", errors);
    validateOverriders(rule.overriders, field + ".overriders", errors);
  }
  return errors.take();
}

}  // namespace

FieldErrors validate(const OverridePolicy& policy) {
  return validateOverridePolicy(policy, validation::Scope::kNamespaced);
}

FieldErrors validate(const ClusterOverridePolicy& policy) {
  return validateOverridePolicy(policy, validation::Scope::kCluster);
}

}  // namespace flotilla::api
