// The sync of any kind but Deployments (docs/design.md §11): per FederatedObject and its
// ResourceBinding, the member copy on every target cluster through the kind's interpreter
// (server-side apply, field manager "flotilla"), removal from clusters no longer targeted,
// conflicts reported and never touched unless the policy adopts them, the federated object's
// per-cluster status and health, the host source's aggregated status, and the cleanup finalizer.
// Member copies are watched per kind (MemberConnection::objects) and read live only where the
// cache cannot answer; a copy whose cache is not synced yet and that is not healthy is read again
// every healthPoll.
#include <algorithm>
#include <set>

#include "api/conditions.h"
#include "api/json_codec.h"
#include "api/unstructured.h"
#include "controllers/common/await.h"
#include "controllers/common/cluster_events.h"
#include "controllers/common/finalizers.h"
#include "controllers/common/log.h"
#include "controllers/common/managed.h"
#include "controllers/common/status_write.h"
#include "controllers/common/typed.h"
#include "controllers/dependencies/leaders.h"
#include "controllers/scheduler/placement_status.h"
#include "controllers/sync/dependency_gate.h"
#include "controllers/sync/member_namespace.h"
#include "controllers/sync/member_object.h"
#include "controllers/sync/sync_controller.h"

namespace flotilla::controllers::sync {

namespace json = boost::json;
namespace u = api::unstructured;
using namespace std::chrono;

namespace {

constexpr const char* kObjectSync = "sync";

std::string memberUid(const json::object& o) { return u::stringAt(o, {"metadata", "uid"}); }

bool beingDeleted(const json::object& o) {
  return u::find(o, {"metadata", "deletionTimestamp"}) != nullptr;
}

// A member's answer to "is this kind served here": a custom resource waits for its CRD.
bool notServed(const api::Error& e) { return e.code == 404; }

}  // namespace

void SyncController::watchObjects(kube::Controller& controller,
                                  kube::SharedInformer& federatedObjects) {
  // The template (generation), overrides, annotations, labels (the source's: what
  // OverridePolicies select) and deletion.
  controller.watch(federatedObjects, kube::mapToSelf(),
                   kube::Predicate{nullptr,
                                   [](const kube::ObjectPtr& a, const kube::ObjectPtr& b) {
                                     return kube::generationChanged().update(a, b) ||
                                            kube::annotationsChanged().update(a, b) ||
                                            kube::labelsChanged().update(a, b) ||
                                            beingDeleted(*a) != beingDeleted(*b);
                                   },
                                   nullptr});
}

void SyncController::watchClusterObjects(kube::Controller& controller,
                                         kube::SharedInformer& clusterFederatedObjects,
                                         kube::SharedInformer& clusterBindings,
                                         kube::SharedInformer& clusters) {
  watchObjects(controller, clusterFederatedObjects);
  controller.watch(clusterBindings, kube::mapToSelf(), kube::generationChanged());
  // A CRD established on a cluster its custom resources wait for (docs/design.md §12).
  if (options_.followers)
    controller.watch(clusterBindings, mapFollowerToLeaders(), followerAppliedChanged());
  watchClusterReadiness(controller, clusters, clusterBindings);
}

ClusterState SyncController::syncObjectCluster(const api::FederatedObject& fo,
                                               const interpreter::Interpreter& interpreter,
                                               const std::string& key,
                                               const interpreter::Share& share, bool adoptAllowed,
                                               bool autoscaled, bool finished,
                                               const override::PolicySet& overrides, Retry* retry,
                                               std::optional<json::object>* liveOut) {
  const std::string& cluster = share.cluster;
  ClusterState out{cluster, propagation::kOK, "", {}, true};
  auto fail = [&](const char* state, std::string message) {
    out.propagation = state;
    out.message = std::move(message);
    return out;
  };
  if (auto problem = readyProblem(cluster); !problem.empty()) {
    retry->soon = true;
    return fail(propagation::kClusterNotReady, problem);
  }
  auto member = members_.get(cluster);
  if (!member || !member->synced()) {
    retry->soon = true;
    return fail(kUndecided, "no connection to " + cluster + " yet");
  }
  const auto& t = fo.spec.template_;
  const std::string apiVersion = u::stringAt(t, {"apiVersion"});
  const std::string kind = u::stringAt(t, {"kind"});
  const std::string ns = fo.kind == "ClusterFederatedObject" ? "" : fo.metadata.namespace_;
  const std::string name = u::stringAt(t, {"metadata", "name"});
  auto& client = member->client();
  // The member's own discovery: the resource name is the member's, and a custom resource whose
  // CRD is not established there waits (PendingCreate) instead of failing.
  auto resource = await(member->executor(), client.resourceFor(apiVersion, kind));
  if (!resource) {
    if (notServed(resource.error())) {
      retry->soon = true;
      return fail(propagation::kPendingCreate,
                  cluster + " does not serve " + kind + " " + apiVersion +
                      " yet (a custom resource waits for its CustomResourceDefinition)");
    }
    (unreachable(resource.error()) ? retry->soon : retry->backoff) = true;
    return fail(unreachable(resource.error()) ? propagation::kClusterNotReady
                                              : propagation::kCreationFailed,
                resource.error().message);
  }
  // Flotilla's copies are watched (MemberConnection::objects): a synced cache answers without a
  // request. What it does not hold (an object Flotilla did not make, or none) is read live, and so
  // is a cached copy that looks out of date, before anything is written over it.
  auto watched = member->objects(*resource);
  const bool cacheSynced = watched && watched->watching();
  if (!cacheSynced) retry->poll = true;  // no event will say when its health changes
  std::optional<json::object> live;
  bool fromCache = false;
  if (cacheSynced) {
    if (auto cachedCopy = watched->store().get(ns.empty() ? name : ns + "/" + name)) {
      live = *cachedCopy;
      fromCache = true;
    }
  }
  // The member's copy read live; an error is the propagation state and message to report.
  auto readLive = [&]() -> std::optional<std::pair<const char*, std::string>> {
    live.reset();
    fromCache = false;
    auto got = await(member->executor(), client.get(*resource, ns, name));
    if (got) {
      live = std::move(*got);
      (*live)["apiVersion"] = apiVersion;
      (*live)["kind"] = kind;
    } else if (got.error().code != 404) {
      const bool down = unreachable(got.error());
      (down ? retry->soon : retry->backoff) = true;
      return std::pair{down ? propagation::kClusterNotReady : propagation::kCreationFailed,
                       got.error().message};
    }
    return std::nullopt;
  };
  if (!live) {
    if (auto problem = readLive()) return fail(problem->first, problem->second);
  }
  // A copy that finished its work there and is gone since (a Job's ttlSecondsAfterFinished, or
  // deleted by hand) is not made again: that would run the work again.
  if (!live && finished) {
    out.health = {interpreter::Health::kHealthy, ""};
    out.message = "its part finished here and its copy is gone since: not run again";
    return out;
  }
  api::Result<json::object> desired = json::object{};
  MemberPlan plan;
  std::string limited;  // what the division could not do here (a StatefulSet's ordinals)
  const auto rules = overrideRules(overrides, cluster);
  if (!rules) return fail(propagation::kUpdateFailed, rules.error().message);
  override::OverrideResult overridden;
  while (true) {
    desired = desiredMemberObject(fo, interpreter, key, cluster, &share, options_.hostId,
                                  live && adopted(*live), &limited, *rules, &overridden);
    if (!desired) return fail(propagation::kUpdateFailed, desired.error().message);
    out.appliedOverrides = overridden.applied;
    out.skippedOverrides = overridden.skipped;
    if (live && managedFor(*live, key, options_.hostId)) {
      interpreter.retain(*desired, *live);
      // An HPA on that member scales it: its replicas are the member's.
      if (autoscaled) keepScaledReplicas(*desired, *live);
    }
    plan = planMember({.targeted = true,
                       .desired = &*desired,
                       .live = live ? &*live : nullptr,
                       .bindingKey = key,
                       .hostId = options_.hostId,
                       .adoptAllowed = adoptAllowed,
                       .notAdopted = interpreter.notAdopted(),
                       .keptWhenUnfollowed = interpreter.keptWhenUnfollowed()});
    if (plan.step != MemberStep::kApply || !fromCache) break;
    if (auto problem = readLive()) return fail(problem->first, problem->second);
  }
  switch (plan.step) {
    case MemberStep::kConflict:
      // Not ours, so not in the cache of Flotilla's copies: no event says when it goes away.
      retry->poll = true;
      out.health = interpreter.health(nullptr);
      return fail(propagation::kConflict, plan.message);
    case MemberStep::kNone:
    case MemberStep::kDelete:  // (never planned for a target)
    case MemberStep::kRelease:
      out.health = interpreter.health(live ? &*live : nullptr);
      out.message = std::move(limited);
      *liveOut = std::move(live);
      return out;
    case MemberStep::kApply:
      break;
  }
  if (plan.adopt) {
    desired = desiredMemberObject(fo, interpreter, key, cluster, &share, options_.hostId, true,
                                  nullptr, *rules);
    if (!desired) return fail(propagation::kUpdateFailed, desired.error().message);
  }
  if (!ns.empty()) {
    const auto check = ensureMemberNamespace(host_, executor_, *member, ns, cluster, !live,
                                             kind + " " + ns + "/" + name);
    if (!check.ready) {
      retry->soon = retry->soon || check.retrySoon;
      retry->backoff = retry->backoff || check.retryBackoff;
      return fail(check.propagation.empty() ? kUndecided : check.propagation.c_str(),
                  check.message);
    }
  }
  kube::WriteOptions apply;
  apply.fieldManager = kFieldManager;
  apply.force = true;  // Flotilla owns what it applies (a kubectl edit on the member is reverted)
  auto applied = await(member->executor(), client.apply(*resource, *desired, apply));
  if (!applied) {
    if (unreachable(applied.error())) {
      retry->soon = true;
      return fail(propagation::kClusterNotReady, applied.error().message);
    }
    retry->backoff = true;
    return fail(live ? propagation::kUpdateFailed : propagation::kCreationFailed,
                applied.error().message);
  }
  log::info(kObjectSync, key,
            std::string(plan.adopt ? "adopted"
                        : live     ? "updated"
                                   : "created") +
                " " + kind + " " + (ns.empty() ? name : ns + "/" + name) + " on " + cluster);
  // What the user should know of this copy, said once, when it is written: the division could
  // not do everything here, or the same work now runs on several clusters.
  if (!limited.empty()) events_.event(involved(fo), "Warning", "DivisionLimited", limited);
  if (const std::string twice = interpreter.duplicatedWarning(fo.spec.template_);
      !live && !twice.empty() && share.placement.size() > 1)
    events_.event(involved(fo), "Warning", "DuplicatedRuns",
                  "on " + std::to_string(share.placement.size()) + " clusters: " + twice);
  (*applied)["apiVersion"] = apiVersion;
  (*applied)["kind"] = kind;
  out.message = std::move(limited);
  out.health = interpreter.health(&*applied);
  *liveOut = std::move(*applied);
  return out;
}

std::optional<std::string> SyncController::release(MemberConnection& member,
                                                   const kube::ResourceId& resource,
                                                   const json::object& live, const std::string& key,
                                                   const std::string& cluster, const char* why) {
  const std::string ns = u::stringAt(live, {"metadata", "namespace"});
  const std::string name = u::stringAt(live, {"metadata", "name"});
  auto patched =
      await(member.executor(), member.client().patch(resource, ns, name, kube::PatchType::kMerge,
                                                     releasePatch(live, key, options_.hostId)));
  if (!patched && patched.error().code != 404) return patched.error().message;
  if (patched)
    log::info(kObjectSync, key,
              "left " + resource.kind + " " + (ns.empty() ? name : ns + "/" + name) + " on " +
                  cluster + " when no workload needed it any more (" + why +
                  "); no longer Flotilla's there");
  return std::nullopt;
}

api::Result<kube::ReconcileResult> SyncController::reconcileObject(const std::string& key,
                                                                   const kube::ObjectPtr& cached) {
  auto decoded = fromObject<api::FederatedObject>(cached);
  if (!decoded) {
    log::error(kObjectSync, key, "cannot decode the FederatedObject: " + decoded.error().message);
    return kube::ReconcileResult{};
  }
  api::FederatedObject& fo = *decoded;
  const bool clusterScoped = clusterScopedKey(key);
  fo.kind = clusterScoped ? "ClusterFederatedObject" : "FederatedObject";
  // A FederatedObject's copy lives in its own namespace, whatever its template says (the webhook
  // defaults and checks it; one written without the webhooks may not).
  const std::string ns = fo.metadata.namespace_;
  if (!clusterScoped) u::ensureObject(fo.spec.template_, {"metadata"})["namespace"] = ns;
  const kube::ResourceId& foResource =
      clusterScoped ? resources::kClusterFederatedObjects : resources::kFederatedObjects;
  const kube::ResourceId& bindingResource = bindingResourceOf(key);
  const kube::SharedInformer* bindings =
      clusterScoped ? informers_.clusterBindings : &informers_.bindings;
  const auto& t = fo.spec.template_;
  const std::string apiVersion = u::stringAt(t, {"apiVersion"});
  const std::string kind = u::stringAt(t, {"kind"});
  const std::string name = u::stringAt(t, {"metadata", "name"});
  const auto interpreter = interpreter::Registry::builtIn().of(apiVersion, kind);

  if (fo.metadata.deletionTimestamp) {
    // A follower deleted on the host stays on the clusters where a workload still needs it
    // (docs/design.md §12; the workload's binding says DependenciesReady=False, Missing); its
    // binding's requirements shrink as the workloads leave, which brings it back here.
    // Where its binding recorded its leaders, and where they are now (the index: a binding
    // written a moment ago, or one not in the cache, must not decide that no one needs it).
    std::map<std::string, std::set<std::string>> neededBy;
    // (A cluster-scoped follower's leaders are in many namespaces.)
    auto leaderName = [&](const api::BindingRequirement& r) {
      return ns.empty() ? r.namespace_ + "/" + r.name : r.name;
    };
    if (const auto rbCached = bindings ? bindings->store().get(key) : nullptr) {
      if (auto rb = fromObject<api::ResourceBinding>(rbCached)) {
        for (const auto& r : rb->spec.requiredBy)
          for (const auto& c : r.clusters) neededBy[c].insert(leaderName(r));
      }
    }
    const auto follow = fo.metadata.annotations.find(interpreter::kFollowAnnotation);
    const bool optedOut = follow != fo.metadata.annotations.end() && follow->second == "false";
    if (options_.followers && !optedOut) {
      if (!options_.followers->ready(ns))
        return kube::ReconcileResult{false, std::chrono::seconds(1)};  // not known yet
      for (const auto& r : options_.followers->requiredBy({apiVersion, kind, ns, name, false}))
        for (const auto& c : r.clusters) neededBy[c].insert(leaderName(r));
    }
    std::map<std::string, std::string> neededOn;
    for (const auto& [cluster, leaders] : neededBy)
      for (const auto& leader : leaders)
        neededOn[cluster] += (neededOn[cluster].empty() ? "" : ", ") + leader;
    // Made again on the host: the copies still needed stay for the new federated object (same
    // binding key), which takes them over once this one is gone.
    bool remade = false;
    if (options_.sourceOf && !fo.metadata.ownerReferences.empty()) {
      const auto source = options_.sourceOf(ObjectKey{apiVersion, kind, ns, name});
      remade = source &&
               u::stringAt(*source, {"metadata", "uid"}) != fo.metadata.ownerReferences.front().uid;
    }
    // A kind kept on members is released, not deleted, unless its source is known to be gone
    // from the host (deleted there: the user's intent, as on the host). Not watched any more,
    // or not listed yet, is not known to be gone.
    bool keptUnfollowed = false;
    if (interpreter.keptWhenUnfollowed()) {
      const ObjectKey source{apiVersion, kind, ns, name};
      const bool knownGone = options_.sourceWatched && options_.sourceWatched(source) &&
                             options_.sourceOf && !options_.sourceOf(source);
      keptUnfollowed = !knownGone;
    }
    auto removeFrom = [&](MemberConnection& member,
                          const std::string& cluster) -> std::optional<std::string> {
      if (auto it = neededOn.find(cluster); it != neededOn.end()) {
        if (remade) return std::nullopt;
        return "still needed there by " + it->second;
      }
      auto resource = await(member.executor(), member.client().resourceFor(apiVersion, kind));
      if (!resource) {
        if (notServed(resource.error())) return std::nullopt;  // nothing of that kind there
        return resource.error().message;
      }
      kube::ListOptions selector;
      selector.labelSelector = bindingSelector(key);
      auto live = await(member.executor(), member.client().list(*resource, ns, selector));
      if (!live) return live.error().message;
      std::optional<std::string> problem;
      for (auto o : live->items) {
        o["apiVersion"] = apiVersion;  // list items come without them
        o["kind"] = kind;
        // Only the copy of this object (its own name), and only Flotilla's, never an adopted one.
        if (u::stringAt(o, {"metadata", "name"}) != name) continue;
        if (!managedFor(o, key, options_.hostId) || adopted(o)) continue;
        // A kind kept on members is left there (its deletion would take more with it) unless
        // it was deleted on the host.
        if (keptUnfollowed) {
          if (auto failed =
                  release(member, *resource, o, key, cluster, interpreter.keptWhenUnfollowed()))
            problem = std::move(failed);
          continue;
        }
        kube::DeleteOptions options;
        options.preconditionUid = memberUid(o);
        auto gone = await(member.executor(), member.client().remove(*resource, ns, name, options));
        if (!gone && gone.error().code != 404) {
          problem = gone.error().message;
        } else {
          log::info(kObjectSync, key,
                    "deleted " + kind + " " + name + " on " + cluster +
                        (neededOn.empty() ? " (no workload needs it)" : "") +
                        (remade ? " (made again on the host)" : ""));
        }
      }
      return problem;
    };
    return cleanupMembers(fo.metadata, involved(fo), "copies", foResource, removeFrom);
  }
  const auto rbObject = bindings ? bindings->store().get(key) : nullptr;
  if (!rbObject) return kube::ReconcileResult{};
  auto rb = fromObject<api::ResourceBinding>(rbObject);
  if (!rb) {
    log::error(kObjectSync, key, "cannot decode the ResourceBinding: " + rb.error().message);
    return kube::ReconcileResult{};
  }
  if (rb->metadata.deletionTimestamp) return kube::ReconcileResult{};
  // Another object's binding of the same name (the binding controller reports the conflict).
  const bool ours =
      std::any_of(rb->metadata.ownerReferences.begin(), rb->metadata.ownerReferences.end(),
                  [&](const api::OwnerReference& r) {
                    return r.controller.value_or(false) && r.uid == fo.metadata.uid;
                  });
  if (!ours) return kube::ReconcileResult{};
  // The cleanup finalizer before anything is put on a member (the federate controller creates
  // its own with it; one a user wrote gets it here).
  if (!hasFinalizer(fo.metadata, kCleanupFinalizer)) {
    auto added = await(executor_, host_.updateWithRetry(foResource, fo.metadata.namespace_,
                                                        fo.metadata.name, [](json::object& o) {
                                                          return addFinalizer(o, kCleanupFinalizer);
                                                        }));
    if (!added) return retryOnConflict(added.error());
    return kube::ReconcileResult{};  // the update brings it back
  }
  const bool adoptAllowed = rb->spec.conflictResolution == "Adopt";
  // A kind whose copies finish (a Job): where its part finished (the binding recorded it
  // Healthy), or everywhere once the host's object is final (Complete or Failed), a missing copy
  // is not made again.
  std::set<std::string> finishedOn;
  bool hostFinished = false;
  if (interpreter.finishes()) {
    for (const auto& item : rb->status.aggregatedStatus)
      if (item.health == "Healthy") finishedOn.insert(item.clusterName);
    if (options_.sourceOf)
      if (const auto source = options_.sourceOf(ObjectKey{apiVersion, kind, ns, name})) {
        const auto health = interpreter.health(&*source).health;
        hostFinished =
            health == interpreter::Health::kHealthy || health == interpreter::Health::kUnhealthy;
      }
  }
  const bool divided = !rb->spec.placement.replicaScheduling ||
                       rb->spec.placement.replicaScheduling->type != "Duplicated";
  auto kubernetesVersion = [&](const std::string& cluster) {
    const auto fc = informers_.clusters.store().get(cluster);
    return fc ? u::stringAt(*fc, {"status", "kubernetesVersion"}) : std::string();
  };

  // What each cluster may hold (sync_plan.h): a following cache of Flotilla's copies that holds
  // none says nothing of ours is there (only a cache already started: a kind is not watched on
  // members it was never propagated to).
  // A follower goes to its leaders' clusters too (spec.requiredBy); one no policy governs has
  // no scheduler, and its requirements are always current (docs/design.md §12).
  const auto targets = dependencies::targetsOf(*rb);
  // (No requirements left: its copies are removed from every cluster.)
  const bool followerOnly = rb->spec.policy.name.empty();
  SyncPlanInput input{targets, followerOnly || placementCurrent(*rb), std::nullopt, false, {}};
  std::set<std::string> seen;
  auto observe = [&](const std::string& cluster, bool target) {
    ClusterObservation c{cluster};
    auto member = members_.get(cluster);
    if (!member || !member->synced()) return c;
    c.connected = true;
    c.ready = readyProblem(cluster).empty();
    if (target || !c.ready) return c;  // (what a target holds is read when it is synced)
    auto resource = await(member->executor(), member->client().resourceFor(apiVersion, kind));
    if (!resource) {
      c.holds = false;  // the kind is not served there (or cannot be asked): nothing to remove
    } else if (auto watched = member->watchedObjects(*resource); watched && watched->watching()) {
      c.holds = watched->store().get(ns.empty() ? name : ns + "/" + name) != nullptr;
    }
    return c;
  };
  for (const auto& target : targets)
    if (seen.insert(target.name).second) input.clusters.push_back(observe(target.name, true));
  if (input.placementCurrent) {  // (only then is anything removed)
    for (const auto& cluster : members_.names())
      if (seen.insert(cluster).second) input.clusters.push_back(observe(cluster, false));
  }
  const SyncPlan plan = planSync(input);
  const override::PolicySet overrides = overridesSelecting(*cached);

  Retry retry;
  std::vector<ClusterState> states;
  std::vector<std::optional<json::object>> lives;
  // Its followers first on a cluster it is not on yet (docs/design.md §12).
  const auto gate =
      gateOf(*rbObject, {options_.followers, &informers_.bindings, informers_.clusterBindings,
                         options_.sourceOf, options_.missingGrace, options_.wallClock()});
  for (const auto& action : plan.actions) {
    if (action.step != SyncStep::kRemove && gate && gate->blocked.count(action.cluster)) {
      states.push_back({action.cluster,
                        gate->status == "Unknown" ? kUndecided : propagation::kPendingCreate,
                        std::string(kWaitingForDependencies) + gate->message,
                        {},
                        true});
      lives.push_back(std::nullopt);
      retry.soon = true;
      continue;
    }
    if (action.step != SyncStep::kRemove) {  // (kinds without make-before-break never hold)
      std::optional<json::object> live;
      interpreter::Share share{.cluster = action.cluster,
                               .replicas = action.replicas,
                               .divided = divided,
                               .placement = targets,
                               .kubernetesVersion = kubernetesVersion(action.cluster)};
      states.push_back(syncObjectCluster(fo, interpreter, key, share, adoptAllowed,
                                         gate && gate->autoscaledOn.count(action.cluster),
                                         hostFinished || finishedOn.count(action.cluster) > 0,
                                         overrides, &retry, &live));
      lives.push_back(std::move(live));
      continue;
    }
    // No longer targeted: remove the copy Flotilla made for this binding, and only that.
    const std::string& cluster = action.cluster;
    auto member = members_.get(cluster);
    if (!member) continue;
    auto resource = await(member->executor(), member->client().resourceFor(apiVersion, kind));
    if (!resource) continue;  // (observed as served a moment ago)
    auto got = await(member->executor(), member->client().get(*resource, ns, name));
    if (!got) {
      if (got.error().code != 404) {
        retry.backoff = true;
        states.push_back({cluster, propagation::kDeletionFailed, got.error().message, {}, false});
      }
      continue;
    }
    (*got)["apiVersion"] = apiVersion;
    (*got)["kind"] = kind;
    const auto step = planMember({.targeted = false,
                                  .desired = nullptr,
                                  .live = &*got,
                                  .bindingKey = key,
                                  .hostId = options_.hostId,
                                  .adoptAllowed = adoptAllowed,
                                  .keptWhenUnfollowed = interpreter.keptWhenUnfollowed()});
    if (step.step == MemberStep::kRelease) {
      if (auto problem = release(*member, *resource, *got, key, cluster, step.message.c_str())) {
        retry.soon = true;
        states.push_back({cluster, propagation::kDeletionFailed, *problem, {}, false});
      }
      continue;
    }
    if (step.step != MemberStep::kDelete) continue;
    kube::DeleteOptions options;
    options.preconditionUid = memberUid(*got);
    auto gone = await(member->executor(), member->client().remove(*resource, ns, name, options));
    if (!gone && gone.error().code != 404) {
      retry.soon = true;
      states.push_back({cluster, propagation::kDeletionFailed, gone.error().message, {}, false});
    } else {
      log::info(kObjectSync, key,
                "removed " + kind + " " + name + " from " + cluster + " (no longer targeted)");
    }
  }
  PassOutcome pass{.soon = retry.soon, .backoff = retry.backoff};
  for (const auto& s : states) {
    pass.undecided = pass.undecided || s.propagation == kUndecided;
    // A copy whose kind is watched on its member brings this object back when it changes; one
    // that is not (its cache still listing) is read again until it is healthy.
    pass.pollUnhealthy = pass.pollUnhealthy || (retry.poll && s.target &&
                                                s.health.health != interpreter::Health::kHealthy);
  }
  pass.undecided = pass.undecided || replicasKeptUntilKnown(gate);
  if (pass.undecided) {
    auto carried = writeFirstPlacementOnly(bindingResource, *rbObject);
    if (!carried) return retryOnConflict(carried.error());
    return toResult(requeueAfter(pass, retryTimes()));
  }
  const auto now = options_.wallClock();
  const std::string nowText = api::formatRfc3339(now);
  std::vector<ClusterOutcome> outcomes;
  for (const auto& s : states) {
    outcomes.push_back({s.cluster, s.propagation, s.message, s.target});
    if (s.propagation == propagation::kOK) outcomes.back().note = s.message;
    if ((interpreter.followersWaitUntilHealthy() || interpreter.finishes()) &&
        s.propagation == propagation::kOK)
      outcomes.back().health = std::string(interpreter::toString(s.health.health));
  }
  // A new workload whose followers are being applied: nothing to say yet (dependency_gate.h).
  if (deferWaitingStatus(*rbObject, gate, outcomes,
                         {.missingGrace = options_.missingGrace, .now = now})) {
    auto carried = writeFirstPlacementOnly(bindingResource, *rbObject);  // (the scheduler's word)
    if (!carried) return retryOnConflict(carried.error());
    return toResult(requeueAfter(pass, retryTimes()));
  }

  // Events for clusters whose state turned into a failure (a cluster waiting is not one).
  {
    std::map<std::string, std::string> was;
    for (const auto& c : fo.status.clusters) was[c.name] = c.propagation;
    for (const auto& s : states) {
      if (s.propagation == propagation::kOK || waitingForDependencies(s) ||
          was[s.cluster] == s.propagation)
        continue;
      events_.event(involved(fo), "Warning", s.propagation, s.cluster + ": " + s.message);
      log::warn(kObjectSync, key, s.cluster + ": " + s.propagation + ": " + s.message);
    }
  }
  // The binding's per-cluster propagation and FullyApplied, as for a Deployment.
  bool missing = false;
  auto written = writeStatus(
      host_, executor_, bindingResource, *rbObject, [&](json::object& object) -> api::Result<bool> {
        return applyPassStatus(object, rb->metadata.generation, outcomes, nowText, "",
                               !input.placementCurrent, gate, &missing);
      });
  if (!written) return retryOnConflict(written.error());
  if (missing) events_.event(involved(*rb), "Warning", "DependencyMissing", gate->message);
  // What the host's source shows of the fleet, where the kind aggregates a status (a Service's
  // load balancers, a StatefulSet's replicas), and the federated object's PROGRESS from it.
  const auto source =
      options_.sourceOf ? options_.sourceOf(ObjectKey{apiVersion, kind, ns, name}) : nullptr;
  std::optional<json::object> hostStatus;
  if (source) {
    std::vector<interpreter::MemberObject> members;
    for (size_t i = 0; i < states.size() && i < lives.size(); ++i)
      members.push_back({states[i].cluster, lives[i] ? &*lives[i] : nullptr});
    hostStatus = interpreter.aggregateStatus(*source, members);
  }
  const std::string progress =
      source && hostStatus ? interpreter.progress(*source, *hostStatus) : "";
  // The federated object's status.
  auto foWritten = writeStatus(host_, executor_, foResource, *cached,
                               [&](json::object& object) -> api::Result<bool> {
                                 auto current = fromObject<api::FederatedObject>(object);
                                 if (!current) return current.error();
                                 auto next = objectStatus(*current, states, nowText);
                                 next.progress = progress;
                                 const json::value status = api::encode(next);
                                 if (sameStatus(object, status)) return false;
                                 object["status"] = status;
                                 return true;
                               });
  if (!foWritten) return retryOnConflict(foWritten.error());
  // The host source's status.
  if (source && hostStatus && !sameStatus(*source, json::value(*hostStatus))) {
    auto hostResource = await(executor_, host_.resourceFor(apiVersion, kind));
    if (hostResource) {
      json::object updated = *source;
      updated["apiVersion"] = apiVersion;
      updated["kind"] = kind;
      updated["status"] = std::move(*hostStatus);
      auto w = await(executor_, host_.updateStatus(*hostResource, updated));
      // Not allowed to write it (an install without the status rule): the members are synced
      // all the same; retrying would not change the answer.
      if (!w && w.error().code == 403)
        log::warn(kObjectSync, key, "cannot write the host's status: " + w.error().message);
      else if (!w)
        return retryOnConflict(w.error());
    }
  }
  return toResult(requeueAfter(pass, retryTimes()));
}

}  // namespace flotilla::controllers::sync
