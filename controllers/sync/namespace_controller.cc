#include "controllers/sync/namespace_controller.h"

#include "api/unstructured.h"
#include "controllers/common/await.h"
#include "controllers/common/log.h"
#include "controllers/common/managed.h"
#include "controllers/common/typed.h"
#include "controllers/dependencies/follower_index.h"
#include "controllers/sync/member_object.h"

namespace flotilla::controllers::sync {

namespace json = boost::json;
namespace u = api::unstructured;

namespace {
constexpr const char* kNamespaceLog = "namespaces";

const kube::ResourceId kConfigMapsOnMember{"", "v1", "configmaps", true, "ConfigMap"};
const kube::ResourceId kServicesOnMember{"", "v1", "services", true, "Service"};
const kube::ResourceId kAccountsOnMember{"", "v1", "serviceaccounts", true, "ServiceAccount"};
const kube::ResourceId kClaimsOnMember{"", "v1", "persistentvolumeclaims", true,
                                       "PersistentVolumeClaim"};

// What every namespace holds without anyone asking (kube-controller-manager makes them).
bool systemObject(const kube::ResourceId& resource, const json::object& o) {
  const std::string name = u::stringAt(o, {"metadata", "name"});
  if (resource.resource == "configmaps") return name == "kube-root-ca.crt";
  if (resource.resource == "serviceaccounts") return name == "default";
  if (resource.resource == "secrets")
    return u::stringAt(o, {"type"}) == "kubernetes.io/service-account-token";
  return false;
}

enum class Contents { kEmpty, kLeaving, kOccupied };

// What the member namespace still holds, among the kinds Flotilla may read there: only
// Flotilla's objects and what every namespace holds (kEmpty), something on its way out (a pod
// terminating, one of Flotilla's objects being deleted: kLeaving), or anything else, or a kind it
// cannot list (kOccupied: the namespace is never deleted under someone's objects).
Contents contentsOf(MemberConnection& member, const std::string& ns) {
  Contents out = Contents::kEmpty;
  for (const auto* resource :
       {&resources::kPods, &resources::kDeployments, &kConfigMapsOnMember, &resources::kSecrets,
        &kServicesOnMember, &kAccountsOnMember, &kClaimsOnMember}) {
    auto list = await(member.executor(), member.client().list(*resource, ns, {}));
    if (!list) return Contents::kOccupied;
    for (const auto& o : list->items) {
      const bool leaving = u::find(o, {"metadata", "deletionTimestamp"}) != nullptr;
      const bool ours = u::stringAt(o, {"metadata", "labels", kManagedByLabel}) == kManagedByValue;
      if (systemObject(*resource, o)) continue;
      if (resource == &resources::kPods) {
        // A pod is Flotilla's when a Flotilla Deployment made it; either way it must be gone.
        if (!leaving) return Contents::kOccupied;
        out = Contents::kLeaving;
        continue;
      }
      if (!ours) return Contents::kOccupied;
      out = Contents::kLeaving;  // Flotilla's, not removed yet
    }
  }
  return out;
}

}  // namespace

NamespaceController::NamespaceController(kube::SharedInformer& bindings, MemberRegistry& members)
    : bindings_(bindings), members_(members) {
  bindings.addIndex(kInUseIndex, [](const json::object& binding) {
    const std::string ns = u::stringAt(binding, {"metadata", "namespace"});
    std::vector<std::string> out;
    for (const auto& cluster : dependencies::clustersInUse(binding))
      out.push_back(ns + "/" + cluster);
    return out;
  });
}

void NamespaceController::watch(kube::Controller& controller, kube::SharedInformer& bindings) {
  controller.watch(
      bindings,
      [](const kube::ObjectPtr& o) {
        return std::vector<std::string>{u::stringAt(*o, {"metadata", "namespace"})};
      },
      dependencies::leaderPlacementChanged());
}

api::Result<kube::ReconcileResult> NamespaceController::reconcile(const std::string& ns) {
  if (ns.empty()) return kube::ReconcileResult{};
  bool retry = false;
  for (const auto& cluster : members_.names()) {
    if (bindings_.store().countInIndex(kInUseIndex, ns + "/" + cluster) > 0) continue;
    auto member = members_.get(cluster);
    if (!member || !member->synced()) {
      retry = true;  // what is there is not known yet
      continue;
    }
    // Replicas a move still holds there (the binding no longer names the cluster).
    const auto held = member->deployments().store().byIndex(kube::kNamespaceIndex, ns);
    if (!held.empty()) continue;
    auto current = await(member->executor(), member->client().get(resources::kNamespaces, "", ns));
    if (!current) {
      if (current.error().code != 404) retry = true;
      continue;
    }
    if (!flotillaNamespace(*current) ||
        u::stringAt(*current, {"metadata", "annotations", kCreatedNamespaceAnnotation}) != "true" ||
        u::find(*current, {"metadata", "deletionTimestamp"}) != nullptr)
      continue;
    // Never under someone else's objects; Flotilla's own are waited for.
    switch (contentsOf(*member, ns)) {
      case Contents::kEmpty:
        break;
      case Contents::kLeaving:
        retry = true;
        continue;
      case Contents::kOccupied:
        continue;
    }
    kube::DeleteOptions options;
    options.preconditionUid = u::stringAt(*current, {"metadata", "uid"});
    auto gone =
        await(member->executor(), member->client().remove(resources::kNamespaces, "", ns, options));
    if (!gone && gone.error().code != 404 && gone.error().code != 409) {
      log::warn(kNamespaceLog, ns, "removing it from " + cluster + ": " + gone.error().message);
      retry = true;
      continue;
    }
    log::info(kNamespaceLog, ns,
              "removed from " + cluster + ": Flotilla created it and nothing of the host is there");
  }
  if (retry) return kube::ReconcileResult{false, std::chrono::seconds(5)};
  return kube::ReconcileResult{};
}

}  // namespace flotilla::controllers::sync
