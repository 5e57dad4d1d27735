#include "controllers/status/status_controller.h"

#include "controllers/common/await.h"
#include "controllers/common/log.h"
#include "controllers/common/typed.h"
#include "controllers/status/aggregate.h"

namespace flotilla::controllers::status {

namespace json = boost::json;

namespace {
constexpr const char* kName = "status";

// True when `fd` was made from the host Deployment `d` (the federate controller's owner
// reference).
bool controlledBy(const api::FederatedDeployment& fd, const api::Deployment& d) {
  for (const auto& ref : fd.metadata.ownerReferences) {
    if (ref.kind == "Deployment" && ref.uid == d.metadata.uid && ref.controller.value_or(false))
      return true;
  }
  return false;
}
}  // namespace

StatusController::StatusController(kube::RestClient& host, boost::asio::any_io_executor executor,
                                   Informers informers, cluster::MemberRegistry& members,
                                   std::function<api::Clock::time_point()> wallClock)
    : host_(host),
      executor_(std::move(executor)),
      informers_(informers),
      members_(members),
      wallClock_(std::move(wallClock)) {}

void StatusController::watch(kube::Controller& controller,
                             kube::SharedInformer& federatedDeployments,
                             kube::SharedInformer& bindings, kube::SharedInformer& deployments) {
  controller.watch(federatedDeployments, kube::mapToSelf(), kube::generationChanged());
  // Every binding change matters: spec.clusters (scheduler) and the sync controller's status.
  controller.watch(bindings);
  // A scale or template change of the host Deployment (not our own status writes).
  controller.watch(deployments, kube::mapToSelf(), kube::generationChanged());
}

api::Result<kube::ReconcileResult> StatusController::reconcile(const std::string& key) {
  const auto fdObject = informers_.federatedDeployments.store().get(key);
  if (!fdObject) return kube::ReconcileResult{};
  auto fd = fromObject<api::FederatedDeployment>(fdObject);
  if (!fd) {
    log::error(kName, key, "cannot decode the FederatedDeployment: " + fd.error().message);
    return kube::ReconcileResult{};
  }
  if (fd->metadata.deletionTimestamp) return kube::ReconcileResult{};
  std::optional<api::ResourceBinding> rb;
  if (auto o = informers_.bindings.store().get(key)) {
    if (auto decoded = fromObject<api::ResourceBinding>(o)) rb = std::move(*decoded);
  }
  std::optional<api::Deployment> host;
  json::object hostObject;
  if (auto o = informers_.deployments.store().get(key)) {
    if (auto decoded = fromObject<api::Deployment>(o); decoded && controlledBy(*fd, *decoded)) {
      host = std::move(*decoded);
      hostObject = *o;
    }
  }
  std::map<std::string, api::Deployment> members;
  for (const auto& cluster : members_.names()) {
    auto member = members_.get(cluster);
    if (!member) continue;
    for (const auto& o : member->deployments().store().byIndex(cluster::kBindingIndex, key)) {
      if (auto d = fromObject<api::Deployment>(o)) members[cluster] = std::move(*d);
    }
  }
  const std::string now = api::formatRfc3339(wallClock_());
  const auto result = aggregate(*fd, rb ? &*rb : nullptr, members, host ? &*host : nullptr, now);

  // Each status only when it changed (the FederatedDeployment's first: READY is what users read).
  json::object fdJson = *fdObject;
  const json::value fdStatus = api::encode(result.federated);
  if (!sameStatus(fdJson, fdStatus)) {
    fdJson["status"] = fdStatus;
    auto written = await(executor_, host_.updateStatus(resources::kFederatedDeployments, fdJson));
    if (!written) return retryOnConflict(written.error());
  }
  if (rb) {
    api::ResourceBindingStatus next = rb->status;
    next.aggregatedStatus = result.bindings;
    const json::value after = api::encode(next);
    json::object rbJson = toObject(*rb);
    if (!sameStatus(rbJson, after)) {
      rbJson["status"] = after;
      auto written = await(executor_, host_.updateStatus(resources::kResourceBindings, rbJson));
      if (!written) return retryOnConflict(written.error());
    }
  }
  if (host && result.host) {
    api::Deployment next = *host;
    next.status = *result.host;
    // Compare through the typed status: the cached object may carry fields we do not model.
    if (api::encode(next) != api::encode(*host)) {
      auto object = toObject(next);
      auto written = await(executor_, host_.updateStatus(resources::kDeployments, object));
      if (!written) return retryOnConflict(written.error());
    }
  }
  return kube::ReconcileResult{};
}

}  // namespace flotilla::controllers::status
