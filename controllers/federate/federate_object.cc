#include "controllers/federate/federate_object.h"

#include <algorithm>
#include <boost/json/value.hpp>
#include <cctype>
#include <cstdio>

#include "api/json_codec.h"
#include "api/unstructured.h"
#include "api/validation.h"
#include "controllers/common/finalizers.h"
#include "controllers/common/managed.h"
#include "controllers/federate/intent.h"
#include "interpreter/dependencies.h"

namespace flotilla::controllers::federate {
namespace json = boost::json;
namespace u = api::unstructured;

namespace {

std::map<std::string, std::string> stringMap(const json::object& o, u::Path path) {
  std::map<std::string, std::string> out;
  if (const json::object* m = u::findObject(o, path)) {
    for (const auto& [k, v] : *m)
      if (v.is_string()) out.emplace(std::string(k), std::string(v.get_string()));
  }
  return out;
}

bool controlledBy(const api::FederatedObject& fo, const std::string& uid) {
  return std::any_of(
      fo.metadata.ownerReferences.begin(), fo.metadata.ownerReferences.end(),
      [&](const api::OwnerReference& r) { return r.controller.value_or(false) && r.uid == uid; });
}

// Flotilla's own labels and annotations stay on the host: they name host policies. But
// flotilla.io/followers, which names what the object needs (docs/design.md §12), read from the
// template as from any other reference.
void dropFlotillaKeys(json::object& tmpl) {
  for (const char* field : {"labels", "annotations"}) {
    json::object* m = u::findObject(tmpl, {"metadata", field});
    if (m == nullptr) continue;
    for (auto it = m->begin(); it != m->end();) {
      if (it->key().starts_with("flotilla.io/") && it->key() != interpreter::kFollowersAnnotation)
        it = m->erase(it);
      else
        ++it;
    }
    if (m->empty()) tmpl["metadata"].as_object().erase(field);
  }
}

// Sets what the source dictates on `fo`, leaving everything else (overrides, status,
// resourceVersion, other annotations, finalizers) as it is.
void apply(api::FederatedObject& fo, const json::object& source, const std::string& policyValue,
           const interpreter::Interpreter& interpreter) {
  const std::string apiVersion = u::stringAt(source, {"apiVersion"});
  const std::string kind = u::stringAt(source, {"kind"});
  const std::string name = u::stringAt(source, {"metadata", "name"});
  const std::string ns = u::stringAt(source, {"metadata", "namespace"});
  fo.kind = ns.empty() ? "ClusterFederatedObject" : "FederatedObject";
  fo.metadata.name = federatedName(name, kind, u::groupOf(apiVersion));
  fo.metadata.namespace_ = ns;
  // All labels, flotilla.io/ ones included: the binding controller selects by them.
  fo.metadata.labels = stringMap(source, {"metadata", "labels"});
  // The opt-out stays visible to the binding controller (the template drops flotilla.io/ keys).
  const auto annotations = stringMap(source, {"metadata", "annotations"});
  if (auto it = annotations.find(interpreter::kFollowAnnotation);
      it != annotations.end() && it->second == "false")
    fo.metadata.annotations[interpreter::kFollowAnnotation] = "false";
  else
    fo.metadata.annotations.erase(interpreter::kFollowAnnotation);
  if (policyValue.empty())
    fo.metadata.annotations.erase(kPolicyAnnotation);  // a follower no policy governs
  else
    fo.metadata.annotations[kPolicyAnnotation] = policyValue;
  fo.metadata.annotations[kSourceGenerationAnnotation] =
      std::to_string(u::intAt(source, {"metadata", "generation"}).value_or(0));
  fo.metadata.ownerReferences = {{.apiVersion = apiVersion,
                                  .kind = kind,
                                  .name = name,
                                  .uid = u::stringAt(source, {"metadata", "uid"}),
                                  .controller = true,
                                  .blockOwnerDeletion = true}};
  json::object tmpl = interpreter.memberTemplate(source);
  dropFlotillaKeys(tmpl);
  fo.spec.template_ = std::move(tmpl);
  if (!hasFinalizer(fo.metadata, kCleanupFinalizer))
    fo.metadata.finalizers.push_back(kCleanupFinalizer);
}

}  // namespace

namespace {

// FNV-1a: a stable hash (std::hash may differ between builds), as 8 hex digits.
}  // namespace

ObjectDecision decideFederatedObject(const json::object& source,
                                     const api::FederatedObject* existing,
                                     const policy::Resolution& resolution, bool claimedPolicyExists,
                                     const interpreter::Interpreter& interpreter, bool followed) {
  ObjectDecision out;
  // Garbage collection removes the federated object through its owner reference.
  if (u::find(source, {"metadata", "deletionTimestamp"}) != nullptr) return out;

  const std::string uid = u::stringAt(source, {"metadata", "uid"});
  const bool owned = existing && controlledBy(*existing, uid);
  const std::string* claimed = nullptr;
  if (existing) {
    auto it = existing->metadata.annotations.find(kPolicyAnnotation);
    if (it != existing->metadata.annotations.end()) claimed = &it->second;
  }
  Intent intent = intentOf(resolution, owned, claimed, claimedPolicyExists);
  out.refusal = intent.refusal;
  const auto never = api::neverPropagated(u::stringAt(source, {"apiVersion"}),
                                          u::stringAt(source, {"kind"}), &source);
  if (never) {
    intent.wanted = false;
    intent.message = u::stringAt(source, {"kind"}) + " " +
                     u::stringAt(source, {"metadata", "name"}) + " is never propagated: " + *never;
  } else if (!intent.wanted && followed && !resolution.refused) {
    intent.wanted = true;  // no policy of its own: it goes where its workloads are
    intent.policyValue.clear();
  }

  // Being deleted (its finalizer is cleaning the members): nothing to write until it is gone.
  if (existing && existing->metadata.deletionTimestamp) return out;

  const std::string sourceText = u::stringAt(source, {"kind"}) + " " +
                                 u::stringAt(source, {"metadata", "namespace"}) + "/" +
                                 u::stringAt(source, {"metadata", "name"});
  decideWrite(
      out, existing, owned, intent,
      [&] {
        return existing->kind + " " + existing->metadata.name +
               " exists and is not controlled by " + sourceText + "; leaving it alone";
      },
      [&](api::FederatedObject& fo) { apply(fo, source, intent.policyValue, interpreter); });
  return out;
}

}  // namespace flotilla::controllers::federate
