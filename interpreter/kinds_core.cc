// Core kinds a workload reads: ConfigMap, Secret, ServiceAccount, PersistentVolumeClaim, and the
// Namespace they live in (docs/design.md §3.8).
#include <boost/json/array.hpp>
#include <boost/json/value.hpp>
#include <set>
#include <string>

#include "api/unstructured.h"
#include "interpreter/interpreter.h"

namespace flotilla::interpreter {
namespace json = boost::json;
namespace u = api::unstructured;

namespace {

// Annotations the PV controller and the scheduler write on a claim while binding it: they name
// the host's volume, provisioner and node, none of which exists on a member.
constexpr const char* kClaimBindingAnnotations[] = {
    "pv.kubernetes.io/bind-completed",
    "pv.kubernetes.io/bound-by-controller",
    "volume.beta.kubernetes.io/storage-provisioner",
    "volume.kubernetes.io/storage-provisioner",
    "volume.kubernetes.io/selected-node",
};

void pruneClaim(json::object& pvc) {
  u::erase(pvc, {"spec", "volumeName"});  // the host's PersistentVolume
  if (json::object* annotations = u::findObject(pvc, {"metadata", "annotations"}))
    for (const char* key : kClaimBindingAnnotations) annotations->erase(key);
}

HealthReport claimHealth(const json::object& pvc) {
  const std::string phase = u::stringAt(pvc, {"status", "phase"});
  if (phase == "Bound") return {Health::kHealthy, ""};
  if (phase == "Lost") return {Health::kUnhealthy, "the claim lost its volume"};
  return {Health::kProgressing, phase.empty() ? "not bound yet" : "phase " + phase};
}

// The host claim shows Bound only when every member's is; otherwise the first member phase that
// is not (Lost before Pending), so a user sees what holds the workload back.
std::optional<json::object> claimStatus(const json::object&,
                                        const std::vector<MemberObject>& members) {
  std::string phase;
  for (const auto& m : members) {
    const std::string p =
        m.object ? u::stringAt(*m.object, {"status", "phase"}, "Pending") : "Pending";
    if (p == "Lost" || phase.empty() || (phase == "Bound" && p != "Bound")) phase = p;
  }
  if (phase.empty()) return std::nullopt;
  return json::object{{"phase", phase}};
}

HealthReport namespaceHealth(const json::object& ns) {
  const std::string phase = u::stringAt(ns, {"status", "phase"}, "Active");
  if (phase == "Active") return {Health::kHealthy, ""};
  return {Health::kProgressing, "phase " + phase};
}

bool tokenOf(const json::value& ref, const std::string& prefix) {
  const json::object* o = ref.if_object();
  return o && u::stringAt(*o, {"name"}).rfind(prefix, 0) == 0;
}

// A ServiceAccount's `secrets` list names token Secrets each cluster mints for itself (before
// Kubernetes 1.24, and for accounts that still ask for one, "<account>-token-<suffix>"): the
// member's token entries are kept beside the user's entries, which follow the host.
void retainServiceAccountSecrets(json::object& desired, const json::object& live) {
  const json::array* memberSecrets = u::findArray(live, {"secrets"});
  if (memberSecrets == nullptr) return;
  const std::string prefix = u::stringAt(desired, {"metadata", "name"}) + "-token-";
  json::array merged;
  if (const json::array* own = u::findArray(desired, {"secrets"})) merged = *own;
  for (const auto& s : *memberSecrets)
    if (tokenOf(s, prefix)) merged.push_back(s);
  if (!merged.empty()) desired["secrets"] = std::move(merged);
}

void pruneServiceAccount(json::object& sa) {
  // The host's own token Secrets (named "<account>-token-<suffix>") mean nothing on a member; other
  // entries are the user's.
  auto* secrets = sa.if_contains("secrets");
  if (secrets == nullptr || !secrets->is_array()) return;
  const std::string prefix = u::stringAt(sa, {"metadata", "name"}) + "-token-";
  json::array kept;
  for (const auto& s : secrets->as_array())
    if (!tokenOf(s, prefix)) kept.push_back(s);
  if (kept.empty())
    sa.erase("secrets");
  else
    *secrets = std::move(kept);
}

}  // namespace

void addCoreKinds(Registry& registry) {
  registry.add(KindEntry{.group = "", .kind = "ConfigMap"});
  registry.add(KindEntry{.group = "", .kind = "Secret"});
  registry.add(KindEntry{.group = "",
                         .kind = "ServiceAccount",
                         .prune = pruneServiceAccount,
                         .retain = retainServiceAccountSecrets});
  registry.add(KindEntry{.group = "",
                         .kind = "PersistentVolumeClaim",
                         .prune = pruneClaim,
                         .health = claimHealth,
                         .aggregateStatus = claimStatus});
  registry.add(KindEntry{.group = "",
                         .kind = "Namespace",
                         // The namespace controller's finalizer, set by each cluster's API server.
                         .prune =
                             [](json::object& ns) {
                               u::erase(ns, {"spec", "finalizers"});
                             },
                         .health = namespaceHealth});
}

}  // namespace flotilla::interpreter
