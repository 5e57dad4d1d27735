#include "controllers/federate/federate_controller.h"

#include "controllers/common/await.h"
#include "controllers/common/log.h"
#include "controllers/common/policies.h"
#include "controllers/common/typed.h"
#include "controllers/federate/federate.h"

namespace flotilla::controllers::federate {

namespace {
constexpr const char* kName = "federate";
}

FederateController::FederateController(kube::RestClient& host,
                                       boost::asio::any_io_executor executor, Informers informers,
                                       kube::EventRecorder& events,
                                       policy::ReservedNamespaces reserved)
    : host_(host),
      executor_(std::move(executor)),
      informers_(informers),
      events_(events),
      reserved_(std::move(reserved)) {}

void FederateController::watch(kube::Controller& controller, kube::SharedInformer& deployments,
                               kube::SharedInformer& federatedDeployments,
                               kube::SharedInformer& policies,
                               kube::SharedInformer& clusterPolicies) {
  // Status writes of the host Deployment (the status controller's) do not matter here.
  controller.watch(
      deployments, kube::mapToSelf(),
      kube::anyOf({kube::generationChanged(), kube::labelsChanged(), kube::annotationsChanged()}));
  // The FederatedDeployment has the Deployment's name: a change or deletion of it by anyone
  // brings the Deployment back for a check. Its creation (this controller's) does not: the
  // reconcile that created it has nothing left to do, and at start-up the Deployments' own list
  // brings each one.
  controller.watch(federatedDeployments, kube::mapToSelf(),
                   kube::skipCreates(kube::anyOf({kube::generationChanged(), kube::labelsChanged(),
                                                  kube::annotationsChanged()})));
  controller.watch(policies, mapPolicyToObjects(informers_.deployments));
  controller.watch(clusterPolicies, mapPolicyToObjects(informers_.deployments));
}

api::Result<kube::ReconcileResult> FederateController::reconcile(const std::string& key) {
  const auto cached = informers_.deployments.store().get(key);
  if (!cached) return kube::ReconcileResult{};  // gone: the garbage collector removes what it owned
  auto deployment = fromObject<api::Deployment>(cached);
  if (!deployment) {
    log::error(kName, key, "cannot decode the Deployment: " + deployment.error().message);
    return kube::ReconcileResult{};
  }
  std::optional<api::FederatedDeployment> existing;
  if (auto fd = informers_.federatedDeployments.store().get(key)) {
    auto decoded = fromObject<api::FederatedDeployment>(fd);
    if (!decoded) {
      log::error(kName, key, "cannot decode the FederatedDeployment: " + decoded.error().message);
      return kube::ReconcileResult{};
    }
    existing = std::move(*decoded);
  }
  const auto set = policiesFor(deployment->metadata.namespace_, informers_.policies,
                               informers_.clusterPolicies, decodedPolicies_);
  const auto resolution =
      policy::resolvePolicy(workloadOf(*deployment), set.policies, set.clusterPolicies, reserved_);
  const bool claimedExists =
      existing && claimedPolicyExists(existing->metadata.annotations, informers_.policies,
                                      informers_.clusterPolicies);
  const auto decision =
      decideFederated(*deployment, existing ? &*existing : nullptr, resolution, claimedExists);
  const auto& ns = deployment->metadata.namespace_;
  const auto& name = deployment->metadata.name;
  if (!decision.refusal.empty()) {
    events_.event(involved(*deployment), "Warning", "PolicyNotApplicable", decision.refusal);
  }
  switch (decision.action) {
    case Action::kNone:
      break;
    case Action::kCreate: {
      auto object = toObject(decision.desired);
      object.erase("status");
      auto created = await(executor_, host_.create(resources::kFederatedDeployments, ns, object));
      if (!created) return created.error();
      const auto& policyKey = decision.desired.metadata.annotations.count(kPolicyAnnotation)
                                  ? decision.desired.metadata.annotations.at(kPolicyAnnotation)
                                  : std::string("none");
      events_.event(involved(*deployment), "Normal", "Federated",
                    "created FederatedDeployment " + key + " (policy " + policyKey + ")");
      log::info(kName, key, "created FederatedDeployment");
      break;
    }
    case Action::kUpdate: {
      auto object = toObject(decision.desired);
      object.erase("status");
      auto updated = await(executor_, host_.update(resources::kFederatedDeployments, object));
      if (!updated) return retryOnConflict(updated.error());
      log::info(kName, key, "updated FederatedDeployment");
      break;
    }
    case Action::kDelete: {
      kube::DeleteOptions options;
      options.preconditionUid = existing->metadata.uid;
      auto removed =
          await(executor_, host_.remove(resources::kFederatedDeployments, ns, name, options));
      if (!removed && removed.error().code != 404) return removed.error();
      events_.event(
          involved(*deployment), "Normal", "Unfederated",
          "no policy governs this Deployment any more; removed FederatedDeployment " + key);
      log::info(kName, key, "removed FederatedDeployment");
      break;
    }
    case Action::kConflict:
      events_.event(involved(*deployment), "Warning", "FederationConflict", decision.message);
      log::warn(kName, key, decision.message);
      break;
  }
  return kube::ReconcileResult{};
}

}  // namespace flotilla::controllers::federate
