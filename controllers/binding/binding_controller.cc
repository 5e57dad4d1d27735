#include "controllers/binding/binding_controller.h"

#include "api/unstructured.h"
#include "controllers/binding/binding.h"
#include "controllers/common/await.h"
#include "controllers/common/log.h"
#include "controllers/common/policies.h"
#include "controllers/common/typed.h"
#include "interpreter/dependencies.h"

namespace flotilla::controllers::binding {

namespace json = boost::json;

namespace {
constexpr const char* kName = "binding";
}  // namespace

kube::Predicate ownBindingChanged() {
  const kube::Predicate generation = kube::generationChanged();
  const kube::Predicate spec = kube::specChangedExcept({"clusters"});
  return kube::skipCreates(kube::Predicate{
      nullptr,
      [generation, spec](const kube::ObjectPtr& a, const kube::ObjectPtr& b) {
        if (!generation.update(a, b)) return false;
        if (spec.update(a, b)) return true;
        namespace u = api::unstructured;
        const auto* conditions = u::find(*b, {"status", "conditions"});
        if (!conditions || !conditions->is_array()) return false;
        for (const auto& c : conditions->as_array())
          if (c.is_object() && u::stringAt(c.as_object(), {"type"}) == kPolicyBoundCondition)
            return u::stringAt(c.as_object(), {"status"}) != "True";
        return false;
      },
      nullptr});
}

BindingController::BindingController(kube::RestClient& host, boost::asio::any_io_executor executor,
                                     Informers informers, kube::EventRecorder& events,
                                     std::function<api::Clock::time_point()> wallClock,
                                     policy::ReservedNamespaces reserved)
    : host_(host),
      executor_(std::move(executor)),
      informers_(informers),
      events_(events),
      wallClock_(std::move(wallClock)),
      reserved_(std::move(reserved)) {}

void BindingController::watch(kube::Controller& controller,
                              kube::SharedInformer& federatedDeployments,
                              kube::SharedInformer& bindings, kube::SharedInformer& policies,
                              kube::SharedInformer& clusterPolicies) {
  // Template and label changes matter; status writes (the status controller's) do not.
  controller.watch(federatedDeployments, kube::mapToSelf(),
                   kube::anyOf({kube::generationChanged(), kube::labelsChanged()}));
  // A binding changed or deleted by someone else is put back. Its creation (this controller's)
  // and the scheduler's writes (status, and spec.clusters, which is its own) bring no reconcile:
  // each would decode the workload and its policies to find nothing to do (docs/performance.md,
  // round 2). At start-up the FederatedDeployments' own list brings every binding's owner.
  controller.watch(bindings, kube::mapToOwner("FederatedDeployment", "flotilla.io"),
                   ownBindingChanged());
  controller.watch(policies, mapPolicyToObjects(informers_.federatedDeployments));
  controller.watch(clusterPolicies, mapPolicyToObjects(informers_.federatedDeployments));
}

void BindingController::watchObjects(kube::Controller& controller,
                                     kube::SharedInformer& federatedObjects,
                                     kube::SharedInformer& bindings, kube::SharedInformer& policies,
                                     kube::SharedInformer& clusterPolicies) {
  controller.watch(federatedObjects, kube::mapToSelf(),
                   kube::anyOf({kube::generationChanged(), kube::labelsChanged()}));
  controller.watch(bindings, kube::mapToOwner("FederatedObject", "flotilla.io"),
                   ownBindingChanged());
  controller.watch(policies, mapPolicyToObjects(federatedObjects));
  controller.watch(clusterPolicies, mapPolicyToObjects(federatedObjects));
}

void BindingController::watchFollowers(kube::Controller& controller, kube::SharedInformer& bindings,
                                       kube::SharedInformer& federatedDeployments,
                                       kube::SharedInformer& federatedObjects) {
  const dependencies::FollowerIndex* index = informers_.followers;
  if (!index) return;
  controller.watchBoth(
      bindings, [index](const kube::ObjectPtr& o) { return index->followerBindingsOf(*o); },
      dependencies::leaderPlacementChanged());
  controller.watchBoth(
      federatedDeployments,
      [index](const kube::ObjectPtr& o) {
        return dependencies::federatedKeys(index->keysNeededByDeployment(*o));
      },
      kube::generationChanged());
  controller.watchBoth(
      federatedObjects,
      [index](const kube::ObjectPtr& o) {
        return dependencies::federatedKeys(index->keysNeededByObject(*o));
      },
      kube::generationChanged());
}

void BindingController::watchClusterObjects(kube::Controller& controller,
                                            kube::SharedInformer& clusterFederatedObjects,
                                            kube::SharedInformer& clusterBindings,
                                            kube::SharedInformer& clusterPolicies) {
  controller.watch(clusterFederatedObjects, kube::mapToSelf(),
                   kube::anyOf({kube::generationChanged(), kube::labelsChanged()}));
  controller.watch(clusterBindings, kube::mapToOwner("ClusterFederatedObject", "flotilla.io"),
                   ownBindingChanged());
  controller.watch(clusterPolicies, mapPolicyToObjects(clusterFederatedObjects));
}

api::Result<kube::ReconcileResult> BindingController::reconcile(const std::string& key) {
  // A FederatedDeployment or a FederatedObject of that name. Both can exist (a Deployment
  // "web-service" and a Service "web"): the one that controls the binding keeps it, else the
  // FederatedDeployment; the other is told BindingConflict.
  std::optional<BindingSubject> subject;
  std::optional<api::FederatedDeployment> fd;
  std::optional<api::FederatedObject> fo;
  if (const auto cached = informers_.federatedDeployments.store().get(key)) {
    auto decoded = fromObject<api::FederatedDeployment>(cached);
    if (!decoded) {
      log::error(kName, key, "cannot decode the FederatedDeployment: " + decoded.error().message);
      return kube::ReconcileResult{};
    }
    fd = std::move(*decoded);
  }
  if (const auto* objects = clusterScopedKey(key) ? informers_.clusterFederatedObjects
                                                  : informers_.federatedObjects) {
    if (const auto object = objects->store().get(key)) {
      auto decoded = fromObject<api::FederatedObject>(object);
      if (!decoded) {
        log::error(kName, key, "cannot decode the federated object: " + decoded.error().message);
        return kube::ReconcileResult{};
      }
      fo = std::move(*decoded);
      fo->kind = clusterScopedKey(key) ? "ClusterFederatedObject" : "FederatedObject";
    }
  }
  const kube::SharedInformer* bindingCache =
      clusterScopedKey(key) ? informers_.clusterBindings : &informers_.bindings;
  bool objectOwnsBinding = false;
  if (fo && bindingCache) {
    if (auto rb = bindingCache->store().get(key)) {
      if (auto decoded = fromObject<api::ResourceBinding>(rb)) {
        for (const auto& r : decoded->metadata.ownerReferences)
          objectOwnsBinding =
              objectOwnsBinding || (r.controller.value_or(false) && r.uid == fo->metadata.uid);
      }
    }
  }
  if (fd && !objectOwnsBinding) {
    fo.reset();
    subject = subjectOf(*fd);
  } else if (fo) {
    fd.reset();
    subject = subjectOf(*fo);
  }
  if (!subject) return kube::ReconcileResult{};  // the binding goes with it (owner reference)
  const kube::SharedInformer* bindings =
      clusterScopedKey(key) ? informers_.clusterBindings : &informers_.bindings;
  if (!bindings) return kube::ReconcileResult{};
  const kube::ResourceId& bindingResource = bindingResourceOf(key);
  std::optional<api::ResourceBinding> existing;
  if (auto rb = bindings->store().get(key)) {
    auto decoded = fromObject<api::ResourceBinding>(rb);
    if (!decoded) {
      log::error(kName, key, "cannot decode the ResourceBinding: " + decoded.error().message);
      return kube::ReconcileResult{};
    }
    existing = std::move(*decoded);
  }
  const auto set = policiesFor(subject->owner.namespace_, informers_.policies,
                               informers_.clusterPolicies, decodedPolicies_);
  const auto resolution =
      policy::resolvePolicy(subject->workload, set.policies, set.clusterPolicies, reserved_);
  // An object not opted out (the federated object keeps the source's flotilla.io/follow)
  // follows the workloads that need it (a cluster-scoped one: custom resources' CRD).
  std::vector<api::BindingRequirement> requiredBy;
  bool unsure = false;
  if (fo && informers_.followers) {
    const auto optOut = fo->metadata.annotations.find(interpreter::kFollowAnnotation);
    if (optOut == fo->metadata.annotations.end() || optOut->second != "false") {
      const auto& r = subject->resource;
      // Until the namespace's follower caches have synced, what is recorded stays.
      if (!informers_.followers->ready(r.namespace_)) {
        requiredBy = existing ? existing->spec.requiredBy : requiredBy;
        unsure = true;  // looked at again once the caches have synced
      } else
        requiredBy = informers_.followers->requiredBy({r.apiVersion, r.kind, r.namespace_, r.name});
    }
  }
  const auto decision = decideBinding(*subject, resolution, existing ? &*existing : nullptr,
                                      api::formatRfc3339(wallClock_()), requiredBy);
  const auto& ns = subject->owner.namespace_;
  // Events about the federated object itself.
  const auto ownerRef = fd ? involved(*fd) : involved(*fo);
  json::object written;
  switch (decision.action) {
    case Action::kNone:
      break;
    case Action::kCreate: {
      auto object = toObject(decision.desired);
      object.erase("status");
      object["kind"] = bindingResource.kind;
      auto created = await(executor_, host_.create(bindingResource, ns, object));
      if (!created) return created.error();
      written = std::move(*created);
      auto createdBinding = decision.desired;  // the event needs the uid the server assigned
      if (auto meta = api::decode<api::ObjectMeta>(written["metadata"])) {
        createdBinding.metadata = std::move(*meta);
      }
      events_.event(involved(createdBinding), "Normal", "BindingCreated",
                    decision.desired.spec.policy.name.empty()
                        ? "bound " + key + " as a follower of " +
                              decision.desired.spec.requiredBy.front().name
                        : "bound " + key + " to " + decision.desired.spec.policy.kind + " " +
                              decision.desired.spec.policy.name);
      log::info(kName, key, "created " + bindingResource.kind);
      break;
    }
    case Action::kUpdate: {
      auto object = toObject(decision.desired);
      object.erase("status");
      object["kind"] = bindingResource.kind;
      auto updated = await(executor_, host_.update(bindingResource, object));
      if (!updated) return retryOnConflict(updated.error());
      written = std::move(*updated);
      log::info(kName, key, "updated " + bindingResource.kind);
      break;
    }
    case Action::kConflict:
      events_.event(ownerRef, "Warning", "BindingConflict", decision.eventMessage);
      log::warn(kName, key, decision.eventMessage);
      return kube::ReconcileResult{};
  }
  if (decision.statusChanged) {
    json::object target =
        written.empty() ? (existing ? toObject(*existing) : json::object{}) : std::move(written);
    if (!target.empty()) {
      target["status"] = api::encode(decision.desired.status);
      target["kind"] = bindingResource.kind;
      auto status = await(executor_, host_.updateStatus(bindingResource, target));
      if (!status) return retryOnConflict(status.error());
    }
  }
  if (!decision.eventReason.empty()) {
    if (existing || decision.action == Action::kCreate) {
      events_.event(involved(decision.desired), decision.eventType, decision.eventReason,
                    decision.eventMessage);
    } else {
      events_.event(ownerRef, decision.eventType, decision.eventReason, decision.eventMessage);
    }
  }
  if (unsure) return kube::ReconcileResult{false, std::chrono::seconds(1)};
  return kube::ReconcileResult{};
}

}  // namespace flotilla::controllers::binding
