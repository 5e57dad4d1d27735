#include "controllers/federate/object_controller.h"

#include <algorithm>

#include "api/json_codec.h"
#include "api/names.h"
#include "controllers/common/await.h"
#include "controllers/common/log.h"
#include "controllers/common/managed.h"
#include "controllers/common/typed.h"
#include "controllers/federate/federate_object.h"
#include "controllers/federate/source_kinds.h"
#include "interpreter/dependencies.h"

namespace flotilla::controllers::federate {

namespace json = boost::json;

namespace {
constexpr const char* kFederateObject = "federate-object";

// The source a federated object stands for, from its template: the key to reconcile.
kube::MapFunc mapToSource() {
  return [](const kube::ObjectPtr& o) -> std::vector<std::string> {
    const auto* spec = o->if_contains("spec");
    const auto* t = spec && spec->is_object() ? spec->as_object().if_contains("template") : nullptr;
    if (!t || !t->is_object()) return {};
    const ObjectKey key = ObjectKey::of(t->as_object());
    if (key.kind.empty() || key.name.empty()) return {};
    return {key.str()};
  };
}

// The event's subject: the source as the host knows it.
json::object involvedSource(const ObjectKey& key, const json::object& source) {
  json::object o;
  o["apiVersion"] = key.apiVersion;
  o["kind"] = key.kind;
  if (const auto* meta = source.if_contains("metadata")) o["metadata"] = *meta;
  return o;
}

}  // namespace

FederateObjectController::FederateObjectController(
    kube::RestClient& host, boost::asio::any_io_executor executor, ObjectInformers informers,
    SourceInformers& sources, kube::EventRecorder& events, ObjectControllerOptions options)
    : host_(host),
      executor_(std::move(executor)),
      informers_(informers),
      sources_(sources),
      events_(events),
      options_(std::move(options)) {}

kube::MapFunc FederateObjectController::mapPolicyToSources() const {
  return [this](const kube::ObjectPtr& policy) {
    std::vector<std::string> keys{kKindsKey};
    std::string ns;
    if (const auto* meta = policy->if_contains("metadata"); meta && meta->is_object()) {
      if (const auto* n = meta->as_object().if_contains("namespace"); n && n->is_string())
        ns = std::string(n->as_string());
    }
    for (const auto& [kind, informer] : sources_.all()) {
      const auto list = ns.empty() ? informer->store().list()
                                   : informer->store().byIndex(kube::kNamespaceIndex, ns);
      for (const auto& o : list) {
        ObjectKey key = ObjectKey::of(*o);
        key.apiVersion = kind.apiVersion;
        key.kind = kind.kind;
        keys.push_back(key.str());
      }
    }
    return keys;
  };
}

void FederateObjectController::watch(kube::Controller& controller,
                                     kube::SharedInformer& federatedObjects,
                                     kube::SharedInformer& clusterFederatedObjects,
                                     kube::SharedInformer& policies,
                                     kube::SharedInformer& clusterPolicies) {
  // A change or deletion of a federated object by anyone brings its source back for a check;
  // status writes do not.
  const auto changed =
      kube::anyOf({kube::generationChanged(), kube::labelsChanged(), kube::annotationsChanged()});
  controller.watch(federatedObjects, mapToSource(), changed);
  controller.watch(clusterFederatedObjects, mapToSource(), changed);
  // The last federated object of a kind gone: the kind may no longer need watching.
  controller.watch(
      federatedObjects, [](const kube::ObjectPtr&) { return std::vector<std::string>{kKindsKey}; },
      kube::Predicate{[](const kube::ObjectPtr&) { return false; },
                      [](const kube::ObjectPtr&, const kube::ObjectPtr&) { return false; },
                      nullptr});
  controller.watch(
      clusterFederatedObjects,
      [](const kube::ObjectPtr&) { return std::vector<std::string>{kKindsKey}; },
      kube::Predicate{[](const kube::ObjectPtr&) { return false; },
                      [](const kube::ObjectPtr&, const kube::ObjectPtr&) { return false; },
                      nullptr});
  controller.watch(policies, mapPolicyToSources());
  controller.watch(clusterPolicies, mapPolicyToSources());
}

void FederateObjectController::watchLeaders(kube::Controller& controller,
                                            kube::SharedInformer& bindings,
                                            kube::SharedInformer& federatedDeployments,
                                            kube::SharedInformer& federatedObjects) {
  const dependencies::FollowerIndex* index = options_.followers;
  if (!index) return;
  controller.watchBoth(
      bindings, [index](const kube::ObjectPtr& o) { return index->followerSourcesOf(*o); },
      dependencies::leaderPlacementChanged());
  controller.watchBoth(
      federatedDeployments,
      [index](const kube::ObjectPtr& o) { return index->keysNeededByDeployment(*o); },
      kube::generationChanged());
  controller.watchBoth(
      federatedObjects, [index](const kube::ObjectPtr& o) { return index->keysNeededByObject(*o); },
      kube::generationChanged());
}

api::Result<kube::ReconcileResult> FederateObjectController::reconcileKinds() {
  std::vector<api::PropagationPolicy> policies;
  for (const auto& o : informers_.policies.store().list())
    if (auto p = fromObject<api::PropagationPolicy>(o)) policies.push_back(std::move(*p));
  std::vector<api::ClusterPropagationPolicy> clusterPolicies;
  for (const auto& o : informers_.clusterPolicies.store().list())
    if (auto p = fromObject<api::ClusterPropagationPolicy>(o))
      clusterPolicies.push_back(std::move(*p));
  auto kinds = kindsNamed(policies, clusterPolicies);
  if (options_.followers) {
    // What workloads use is watched where policies that let it follow them select workloads:
    // a PropagationPolicy's namespace, every namespace for a ClusterPropagationPolicy.
    for (const auto& [apiVersion, kind] : dependencies::kFollowerKinds) {
      for (const auto& p : policies)
        if (p.spec.dependencies != "Ignore") kinds[{apiVersion, kind}].add(p.metadata.namespace_);
      for (const auto& p : clusterPolicies)
        if (p.spec.dependencies != "Ignore") kinds[{apiVersion, kind}].add("");
    }
    // A custom resource needs its CRD: CRDs are watched (host-wide: cluster-scoped) while a policy
    // that lets dependencies follow names a kind of a group Kubernetes does not serve.
    auto namesCustom = [](const std::vector<api::ResourceSelector>& selectors) {
      return std::any_of(selectors.begin(), selectors.end(), [](const api::ResourceSelector& s) {
        const auto slash = s.apiVersion.find('/');
        return slash != std::string::npos && !api::builtInGroup(s.apiVersion.substr(0, slash));
      });
    };
    bool custom = false;
    for (const auto& p : policies)
      custom = custom || (p.spec.dependencies != "Ignore" && namesCustom(p.spec.resourceSelectors));
    for (const auto& p : clusterPolicies)
      custom = custom || (p.spec.dependencies != "Ignore" && namesCustom(p.spec.resourceSelectors));
    if (custom) kinds[{dependencies::kCrdKind.first, dependencies::kCrdKind.second}].add("");
  }
  // A kind no policy names any more stays watched while federated objects of it remain: their
  // sources are reconciled once more, which unfederates them (the informer stops when the last
  // one is gone).
  // (In the federated object's namespace: a FederatedObject's copy lives there.)
  for (const auto* informer : {&informers_.federatedObjects, &informers_.clusterFederatedObjects}) {
    for (const auto& o : informer->store().list()) {
      const auto* spec = o->if_contains("spec");
      const auto* t =
          spec && spec->is_object() ? spec->as_object().if_contains("template") : nullptr;
      if (!t || !t->is_object()) continue;
      const ObjectKey key = ObjectKey::of(t->as_object());
      if (key.apiVersion.empty() || key.kind.empty()) continue;
      kinds[{key.apiVersion, key.kind}].add(ObjectKey::of(*o).ns);
    }
  }
  const auto result = sources_.sync(kinds);
  for (const auto& k : result.started) log::info(kFederateObject, kKindsKey, "watching " + k);
  for (const auto& k : result.stopped)
    log::info(kFederateObject, kKindsKey, "no policy names " + k + " any more; not watching it");
  if (!result.unserved.empty()) {
    for (const auto& k : result.unserved)
      log::warn(kFederateObject, kKindsKey, "not served yet: " + k);
    return kube::ReconcileResult{false, options_.unservedRetry};
  }
  return kube::ReconcileResult{};
}

api::Result<kube::ReconcileResult> FederateObjectController::reconcile(const std::string& text) {
  if (text == kKindsKey) return reconcileKinds();
  const auto key = ObjectKey::parse(text);
  if (!key) {
    log::error(kFederateObject, text, "not an object key");
    return kube::ReconcileResult{};
  }
  const auto informer = sources_.get({key->apiVersion, key->kind}, key->ns);
  // No informer: no policy names the kind any more. Its federated objects are left to a policy
  // that names it again or to their owners' deletion; nothing is known about the source here.
  if (!informer) return kube::ReconcileResult{};
  const auto cached = informer->store().get(key->cacheKey());
  if (!cached) return kube::ReconcileResult{};  // gone: the garbage collector removes what it owned
  json::object source = *cached;
  source["apiVersion"] = key->apiVersion;  // list items come without them
  source["kind"] = key->kind;

  const bool clusterScoped = key->ns.empty();
  const auto& foInformer =
      clusterScoped ? informers_.clusterFederatedObjects : informers_.federatedObjects;
  const std::string foName = federatedName(key->name, key->kind, key->group());
  const std::string foKey = clusterScoped ? foName : key->ns + "/" + foName;
  std::optional<api::FederatedObject> existing;
  if (auto fo = foInformer.store().get(foKey)) {
    auto decoded = fromObject<api::FederatedObject>(fo);
    if (!decoded) {
      log::error(kFederateObject, text,
                 "cannot decode the federated object: " + decoded.error().message);
      return kube::ReconcileResult{};
    }
    existing = std::move(*decoded);
  }
  const auto set =
      policiesFor(key->ns, informers_.policies, informers_.clusterPolicies, decodedPolicies_);
  const auto resolution = policy::resolvePolicy(workloadOf(source), set.policies,
                                                set.clusterPolicies, options_.reserved);
  const bool claimedExists =
      existing && claimedPolicyExists(existing->metadata.annotations, informers_.policies,
                                      informers_.clusterPolicies);
  const auto interpreter = interpreter::Registry::builtIn().of(key->apiVersion, key->kind);
  // A workload needs it (docs/design.md §12): an object not opted out (a cluster-scoped one: the
  // CRD of custom resources). Until the follower caches have synced, a federated object stays.
  bool followed = false;
  bool unsure = false;
  if (options_.followers && interpreter::mayFollow(source)) {
    unsure = !options_.followers->ready(key->ns);
    followed = unsure ? existing.has_value()
                      : !options_.followers
                             ->requiredBy({key->apiVersion, key->kind, key->ns, key->name, false})
                             .empty();
  }
  const auto decision = decideFederatedObject(source, existing ? &*existing : nullptr, resolution,
                                              claimedExists, interpreter, followed);
  const auto subject = involvedSource(*key, source);
  if (!decision.refusal.empty())
    events_.event(subject, "Warning", "PolicyNotApplicable", decision.refusal);
  const auto& resource =
      clusterScoped ? resources::kClusterFederatedObjects : resources::kFederatedObjects;
  auto encoded = [&] {
    auto object = toObject(decision.desired);
    object["kind"] = resource.kind;
    object.erase("status");
    return object;
  };
  switch (decision.action) {
    case Action::kNone:
      break;
    case Action::kCreate: {
      auto created = await(executor_, host_.create(resource, key->ns, encoded()));
      if (!created) return created.error();
      const auto it = decision.desired.metadata.annotations.find(kPolicyAnnotation);
      events_.event(subject, "Normal", "Federated",
                    "created " + resource.kind + " " + foKey + " (policy " +
                        (it == decision.desired.metadata.annotations.end() ? "none" : it->second) +
                        ")");
      log::info(kFederateObject, text, "created " + resource.kind + " " + foKey);
      break;
    }
    case Action::kUpdate: {
      auto updated = await(executor_, host_.update(resource, encoded()));
      if (!updated) return retryOnConflict(updated.error());
      log::info(kFederateObject, text, "updated " + resource.kind + " " + foKey);
      break;
    }
    case Action::kDelete: {
      kube::DeleteOptions options;
      options.preconditionUid = existing->metadata.uid;
      auto removed = await(executor_, host_.remove(resource, key->ns, foName, options));
      if (!removed && removed.error().code != 404) return removed.error();
      events_.event(subject, "Normal", "Unfederated",
                    decision.message.empty()
                        ? "removed " + resource.kind + " " + foKey
                        : decision.message + "; removed " + resource.kind + " " + foKey);
      log::info(kFederateObject, text, "removed " + resource.kind + " " + foKey);
      break;
    }
    case Action::kConflict:
      events_.event(subject, "Warning", "FederationConflict", decision.message);
      log::warn(kFederateObject, text, decision.message);
      break;
  }
  if (unsure) return kube::ReconcileResult{false, std::chrono::seconds(1)};
  return kube::ReconcileResult{};
}

}  // namespace flotilla::controllers::federate
