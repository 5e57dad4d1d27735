// The admission chain of one write (ApiServer::admit): mutating webhooks, the CRD schema, then
// validating webhooks, as kube-apiserver orders them.
#include "sim/server/admission.h"
#include "sim/server/defaults.h"
#include "sim/server/internal.h"

namespace flotilla::sim {
namespace json = boost::json;
using namespace internal;

namespace {

const char* kValidatingConfigs = "admissionregistration.k8s.io/validatingwebhookconfigurations";
const char* kMutatingConfigs = "admissionregistration.k8s.io/mutatingwebhookconfigurations";

}  // namespace

api::Result<void> ApiServer::admit(const ResourceInfo& r, const char* operation,
                                   json::object* object, const json::object* old, Request& req) {
  // Webhook configurations themselves are never sent to webhooks (a broken webhook could
  // otherwise lock everyone out of fixing it), as in kube-apiserver.
  const bool configurationObject = r.group == "admissionregistration.k8s.io";
  auto mutating = configurationObject ? Store::Listed{} : store_.list(kMutatingConfigs, "");
  auto validating = configurationObject ? Store::Listed{} : store_.list(kValidatingConfigs, "");

  AdmissionAttributes attributes;
  attributes.operation = operation;
  attributes.group = r.group;
  attributes.version = r.version;
  attributes.resource = r.resource;
  attributes.subresource = req.path.subresource;
  attributes.kind = r.kind;
  attributes.namespaced = r.namespaced;
  attributes.ns = r.namespaced ? req.path.namespace_ : "";
  attributes.name = object ? metaString(*object, "name") : req.path.name;
  attributes.dryRun = req.dryRun;
  attributes.username = req.user.name;
  attributes.uid = req.user.uid;
  attributes.groups = req.user.groups;
  if (object) attributes.object = *object;
  if (old) attributes.oldObject = *old;

  std::map<std::string, std::string> namespaceLabels;
  if (!mutating.items.empty() || !validating.items.empty()) {
    std::optional<json::object> ns;
    if (r.namespaced) {
      if (auto found = store_.get({"/namespaces", "", req.path.namespace_})) ns = std::move(*found);
    } else if (r.resource == "namespaces" && r.group.empty()) {
      ns = object ? *object : (old ? *old : json::object{});
    }
    if (ns) {
      const auto* m = ns->if_contains("metadata");
      const auto* labels = m && m->is_object() ? m->as_object().if_contains("labels") : nullptr;
      if (labels && labels->is_object())
        for (const auto& [k, v] : labels->as_object())
          if (v.is_string()) namespaceLabels[std::string(k)] = std::string(v.as_string());
    }
  }

  if (!mutating.items.empty()) {
    auto hooks = matchingWebhooks(mutating.items, true, attributes, namespaceLabels);
    if (auto ran =
            runWebhooks(*options_.webhookCaller, hooks, attributes, req.warnings, req.errorDetails);
        !ran)
      return ran.error();
    if (object && attributes.object) *object = *attributes.object;
    // What mutating webhooks wrote is decoded again, defaults included, as kube-apiserver does.
    if (object && !hooks.empty() && req.path.subresource.empty() && !r.custom) {
      applyDefaults(r.group, r.resource, *object);
      attributes.object = *object;
    }
  }
  if (object && req.path.subresource.empty()) {
    if (auto allowed = checkEscalation(r, *object, req); !allowed) return allowed.error();
    if (auto admitted = admitCustom(r, *object, req); !admitted) return admitted.error();
    attributes.object = *object;  // validating webhooks see the defaulted, pruned object
  }
  if (!validating.items.empty()) {
    auto hooks = matchingWebhooks(validating.items, false, attributes, namespaceLabels);
    if (auto ran =
            runWebhooks(*options_.webhookCaller, hooks, attributes, req.warnings, req.errorDetails);
        !ran)
      return ran.error();
  }
  return {};
}

}  // namespace flotilla::sim
