#include "sim/server/resources.h"

#include <algorithm>
#include <boost/json.hpp>
#include <mutex>

namespace flotilla::sim {
namespace json = boost::json;

namespace {

ResourceInfo builtin(std::string group, std::string version, std::string resource, std::string kind,
                     bool namespaced, std::vector<std::string> shortNames = {},
                     bool status = false) {
  ResourceInfo r;
  r.group = std::move(group);
  r.version = std::move(version);
  r.resource = std::move(resource);
  r.kind = std::move(kind);
  r.listKind = r.kind + "List";
  r.singular = r.kind;
  std::transform(r.singular.begin(), r.singular.end(), r.singular.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  r.namespaced = namespaced;
  r.shortNames = std::move(shortNames);
  r.statusSubresource = status;
  return r;
}

}  // namespace

ResourceRegistry::ResourceRegistry() {
  std::vector<ResourceInfo> list = {
      builtin("", "v1", "namespaces", "Namespace", false, {"ns"}, true),
      builtin("", "v1", "configmaps", "ConfigMap", true, {"cm"}),
      builtin("", "v1", "secrets", "Secret", true),
      builtin("", "v1", "events", "Event", true, {"ev"}),
      builtin("", "v1", "nodes", "Node", false, {"no"}, true),
      builtin("", "v1", "pods", "Pod", true, {"po"}, true),
      builtin("", "v1", "services", "Service", true, {"svc"}, true),
      builtin("", "v1", "serviceaccounts", "ServiceAccount", true, {"sa"}),
      builtin("", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", true, {"pvc"}, true),
      builtin("apps", "v1", "deployments", "Deployment", true, {"deploy"}, true),
      builtin("apps", "v1", "replicasets", "ReplicaSet", true, {"rs"}, true),
      builtin("apps", "v1", "statefulsets", "StatefulSet", true, {"sts"}, true),
      builtin("apps", "v1", "daemonsets", "DaemonSet", true, {"ds"}, true),
      builtin("apps", "v1", "controllerrevisions", "ControllerRevision", true),
      builtin("batch", "v1", "jobs", "Job", true, {}, true),
      builtin("batch", "v1", "cronjobs", "CronJob", true, {"cj"}, true),
      builtin("autoscaling", "v2", "horizontalpodautoscalers", "HorizontalPodAutoscaler", true,
              {"hpa"}, true),
      builtin("networking.k8s.io", "v1", "ingresses", "Ingress", true, {"ing"}, true),
      builtin("coordination.k8s.io", "v1", "leases", "Lease", true),
      builtin("policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", true, {"pdb"}, true),
      builtin("events.k8s.io", "v1", "events", "Event", true, {"ev"}),
      builtin("apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition",
              false, {"crd", "crds"}, true),
      builtin("rbac.authorization.k8s.io", "v1", "clusterrolebindings", "ClusterRoleBinding",
              false),
      builtin("rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", false),
      builtin("rbac.authorization.k8s.io", "v1", "rolebindings", "RoleBinding", true),
      builtin("rbac.authorization.k8s.io", "v1", "roles", "Role", true),
      builtin("authorization.k8s.io", "v1", "selfsubjectaccessreviews", "SelfSubjectAccessReview",
              false),
      builtin("authorization.k8s.io", "v1", "subjectaccessreviews", "SubjectAccessReview", false),
      builtin("admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations",
              "ValidatingWebhookConfiguration", false),
      builtin("admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations",
              "MutatingWebhookConfiguration", false),
  };
  for (auto& r : list) {
    // kube-apiserver's "all" category: pods, services, the apps workloads (not
    // controllerrevisions), jobs, cronjobs and horizontalpodautoscalers; not ingresses.
    if (r.resource == "pods" || r.resource == "deployments" || r.resource == "replicasets" ||
        r.resource == "services" || r.resource == "statefulsets" || r.resource == "daemonsets" ||
        r.resource == "jobs" || r.resource == "cronjobs" ||
        r.resource == "horizontalpodautoscalers")
      r.categories = {"all"};
    if (r.resource == "deployments" || r.resource == "replicasets" || r.resource == "statefulsets")
      r.scaleSubresource = true;
    if (r.group == "events.k8s.io") r.storage = "/events";  // with core/v1 Events (events.h)
    if (r.resource == "selfsubjectaccessreviews" || r.resource == "subjectaccessreviews")
      r.verbs = {"create"};
    builtins_.push_back(std::make_shared<const ResourceInfo>(std::move(r)));
  }
}

std::shared_ptr<const ResourceInfo> ResourceRegistry::find(const std::string& group,
                                                           const std::string& version,
                                                           const std::string& resource) const {
  std::shared_lock lock(mutex_);
  for (const auto& r : builtins_) {
    if (r->group == group && r->version == version && r->resource == resource) return r;
  }
  for (const auto& [crd, resources] : custom_) {
    for (const auto& r : resources) {
      if (r->group == group && r->version == version && r->resource == resource) return r;
    }
  }
  return nullptr;
}

std::shared_ptr<const ResourceInfo> ResourceRegistry::findKind(const std::string& groupVersion,
                                                               const std::string& kind) const {
  for (const auto& r : all()) {
    if (r->groupVersion() == groupVersion && r->kind == kind) return r;
  }
  return nullptr;
}

std::vector<std::shared_ptr<const ResourceInfo>> ResourceRegistry::all() const {
  std::shared_lock lock(mutex_);
  auto out = builtins_;
  for (const auto& [crd, resources] : custom_)
    out.insert(out.end(), resources.begin(), resources.end());
  return out;
}

std::vector<std::string> ResourceRegistry::groupVersions() const {
  std::vector<std::string> out;
  for (const auto& r : all()) {
    const std::string gv = r->groupVersion();
    if (std::find(out.begin(), out.end(), gv) == out.end()) out.push_back(gv);
  }
  return out;
}

void ResourceRegistry::setCustom(const std::string& crdName, std::vector<ResourceInfo> served) {
  std::vector<std::shared_ptr<const ResourceInfo>> resources;
  for (auto& r : served) resources.push_back(std::make_shared<const ResourceInfo>(std::move(r)));
  std::unique_lock lock(mutex_);
  custom_[crdName] = std::move(resources);
  ++generation_;
}

void ResourceRegistry::removeCustom(const std::string& crdName) {
  std::unique_lock lock(mutex_);
  custom_.erase(crdName);
  ++generation_;
}

namespace {

std::string stringAt(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

std::vector<std::string> stringsAt(const json::object& o, std::string_view key) {
  std::vector<std::string> out;
  if (const auto* v = o.if_contains(key); v && v->is_array()) {
    for (const auto& s : v->as_array())
      if (s.is_string()) out.emplace_back(s.as_string());
  }
  return out;
}

}  // namespace

std::vector<ResourceInfo> resourcesFromCrd(const json::object& crd, std::string& error) {
  std::vector<ResourceInfo> out;
  const auto* spec = crd.if_contains("spec");
  if (!spec || !spec->is_object()) {
    error = "spec is required";
    return out;
  }
  const auto& s = spec->as_object();
  const auto* names = s.if_contains("names");
  if (!names || !names->is_object()) {
    error = "spec.names is required";
    return out;
  }
  const auto& n = names->as_object();
  ResourceInfo base;
  base.group = stringAt(s, "group");
  base.resource = stringAt(n, "plural");
  base.kind = stringAt(n, "kind");
  base.singular = stringAt(n, "singular");
  base.listKind = stringAt(n, "listKind");
  if (base.listKind.empty()) base.listKind = base.kind + "List";
  if (base.singular.empty()) {
    base.singular = base.kind;
    std::transform(base.singular.begin(), base.singular.end(), base.singular.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  }
  base.shortNames = stringsAt(n, "shortNames");
  base.categories = stringsAt(n, "categories");
  base.namespaced = stringAt(s, "scope") != "Cluster";
  base.custom = true;
  if (base.group.empty() || base.resource.empty() || base.kind.empty()) {
    error = "spec.group, spec.names.plural and spec.names.kind are required";
    return out;
  }
  const auto* versions = s.if_contains("versions");
  if (!versions || !versions->is_array() || versions->as_array().empty()) {
    error = "spec.versions must list at least one version";
    return out;
  }
  for (const auto& v : versions->as_array()) {
    if (!v.is_object()) continue;
    const auto& version = v.as_object();
    const auto* served = version.if_contains("served");
    if (served && served->is_bool() && !served->as_bool()) continue;
    ResourceInfo r = base;
    r.version = stringAt(version, "name");
    if (const auto* sub = version.if_contains("subresources"); sub && sub->is_object()) {
      r.statusSubresource = sub->as_object().contains("status");
    }
    if (const auto* cols = version.if_contains("additionalPrinterColumns");
        cols && cols->is_array()) {
      for (const auto& c : cols->as_array()) {
        if (!c.is_object()) continue;
        const auto& col = c.as_object();
        PrinterColumn pc{stringAt(col, "name"), stringAt(col, "type"), stringAt(col, "jsonPath"),
                         stringAt(col, "description"), 0};
        if (const auto* p = col.if_contains("priority"); p && p->is_int64())
          pc.priority = static_cast<int>(p->as_int64());
        r.columns.push_back(std::move(pc));
      }
    }
    if (const auto* schema = version.if_contains("schema"); schema && schema->is_object()) {
      if (const auto* v3 = schema->as_object().if_contains("openAPIV3Schema");
          v3 && v3->is_object())
        r.schema = std::make_shared<const json::object>(v3->as_object());
    }
    out.push_back(std::move(r));
  }
  if (out.empty()) error = "no version is served";
  return out;
}

}  // namespace flotilla::sim
