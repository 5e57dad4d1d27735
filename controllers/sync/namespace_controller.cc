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
}

NamespaceController::NamespaceController(const kube::SharedInformer& bindings,
                                         MemberRegistry& members)
    : bindings_(bindings), members_(members) {}

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
  const auto inUse =
      dependencies::clustersInUse(bindings_.store().byIndex(kube::kNamespaceIndex, ns));
  bool retry = false;
  for (const auto& cluster : members_.names()) {
    if (inUse.count(cluster)) continue;
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
