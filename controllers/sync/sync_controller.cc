#include "controllers/sync/sync_controller.h"

#include <algorithm>
#include <set>

#include "api/conditions.h"
#include "api/unstructured.h"
#include "controllers/common/await.h"
#include "controllers/common/cluster_events.h"
#include "controllers/common/finalizers.h"
#include "controllers/common/log.h"
#include "controllers/common/managed.h"
#include "controllers/common/status_write.h"
#include "controllers/common/typed.h"
#include "controllers/scheduler/placement_status.h"
#include "controllers/sync/dependency_gate.h"
#include "controllers/sync/member_namespace.h"
#include "controllers/sync/member_object.h"
#include "controllers/sync/move.h"
#include "controllers/sync/sync_plan.h"

namespace flotilla::controllers::sync {

namespace json = boost::json;
using namespace std::chrono;

namespace {

constexpr const char* kName = "sync";

std::string uidOf(const json::object& o) {
  const auto* meta = o.if_contains("metadata");
  const auto* uid = meta && meta->is_object() ? meta->as_object().if_contains("uid") : nullptr;
  return uid && uid->is_string() ? std::string(uid->as_string()) : "";
}

// The scheduler's status describes the binding's current spec (Scheduled=True for its generation),
// read from the cached object as it is.
// Read from the JSON directly: it runs for every binding update event.
bool placementCurrentIn(const json::object& o) {
  auto field = [](const json::object& in, const char* name) -> const json::value* {
    return in.if_contains(name);
  };
  const auto* meta = field(o, "metadata");
  const auto* status = field(o, "status");
  if (!meta || !meta->is_object() || !status || !status->is_object()) return false;
  const auto* generation = field(meta->as_object(), "generation");
  const auto* observed = field(status->as_object(), "schedulerObservedGeneration");
  if (!generation || !generation->is_int64() || !observed || !observed->is_int64() ||
      observed->as_int64() < generation->as_int64())
    return false;
  const auto* conditions = field(status->as_object(), "conditions");
  if (!conditions || !conditions->is_array()) return false;
  for (const auto& c : conditions->as_array()) {
    if (!c.is_object()) continue;
    const auto* type = field(c.as_object(), "type");
    const auto* value = field(c.as_object(), "status");
    if (type && type->is_string() && type->as_string() == "Scheduled")
      return value && value->is_string() && value->as_string() == "True";
  }
  return false;
}

// An object a member sent may lack metadata (outside data): that is "not being deleted".
// The uid of an object's controlling owner ("" when none).
std::string controllerUid(const json::object& o) {
  const auto* refs = api::unstructured::findArray(o, {"metadata", "ownerReferences"});
  if (!refs) return "";
  for (const auto& r : *refs) {
    if (!r.is_object()) continue;
    const auto* controller = r.as_object().if_contains("controller");
    if (controller && controller->is_bool() && controller->as_bool())
      return api::unstructured::stringAt(r.as_object(), {"uid"});
  }
  return "";
}

bool deleting(const json::object& o) {
  const auto* meta = o.if_contains("metadata");
  return meta && meta->is_object() && meta->as_object().contains("deletionTimestamp");
}

}  // namespace

SyncController::SyncController(kube::RestClient& host, boost::asio::any_io_executor executor,
                               Informers informers, MemberRegistry& members,
                               kube::EventRecorder& events, SyncControllerOptions options)
    : host_(host),
      executor_(std::move(executor)),
      informers_(informers),
      members_(members),
      events_(events),
      options_(std::move(options)) {}

void SyncController::watch(kube::Controller& controller, kube::SharedInformer& federatedDeployments,
                           kube::SharedInformer& bindings, kube::SharedInformer& clusters) {
  // The template (generation), overrides and deletion of the FederatedDeployment; its labels
  // (the source's: what OverridePolicies select).
  controller.watch(federatedDeployments, kube::mapToSelf(),
                   kube::Predicate{nullptr,
                                   [](const kube::ObjectPtr& a, const kube::ObjectPtr& b) {
                                     return kube::generationChanged().update(a, b) ||
                                            kube::annotationsChanged().update(a, b) ||
                                            kube::labelsChanged().update(a, b) ||
                                            deleting(*a) != deleting(*b);
                                   },
                                   nullptr});
  // A follower applied on a cluster its leader waits for (docs/design.md §12).
  if (options_.followers)
    controller.watch(bindings, mapFollowerToLeaders(), followerAppliedChanged());
  // spec.clusters (the scheduler's result), and the scheduler's status saying that placement is
  // current: only then are clusters left out of it cleaned (a status write lost and repaired
  // later comes without a generation change). Our own status writes do not matter.
  controller.watch(bindings, kube::mapToSelf(),
                   kube::Predicate{nullptr,
                                   [](const kube::ObjectPtr& a, const kube::ObjectPtr& b) {
                                     return kube::generationChanged().update(a, b) ||
                                            placementCurrentIn(*a) != placementCurrentIn(*b);
                                   },
                                   nullptr});
  // A cluster whose readiness changed: retry (or report) the bindings placed on it. Status
  // writes that only move resources do not matter here.
  watchClusterReadiness(controller, clusters, bindings);
  // ... and the bindings that still have a Deployment there although they no longer target it
  // (replicas failed over while it was away): a returning member does not keep running them.
  controller.watch(
      clusters,
      [this](const kube::ObjectPtr& fc) {
        std::vector<std::string> keys;
        auto member = members_.get(kube::objectKey(*fc));
        if (!member) return keys;
        for (const auto& o : member->deployments().store().list())
          if (auto key = managingBinding(*o, options_.hostId); !key.empty())
            keys.push_back(std::move(key));
        return keys;
      },
      kube::Predicate{nullptr,
                      [](const kube::ObjectPtr& a, const kube::ObjectPtr& b) {
                        return readyStatus(*a) != readyStatus(*b);
                      },
                      nullptr});
}

void SyncController::rememberDeleted(const std::string& cluster, const std::string& key,
                                     const std::string& uid) {
  std::lock_guard lock(deletedMutex_);
  // Caches lag by milliseconds: entries older than a minute are of no use (and of bindings or
  // clusters that are gone, never looked up again).
  const auto now = std::chrono::steady_clock::now();
  for (auto it = deleted_.begin(); it != deleted_.end();)
    it = now - it->second.second > std::chrono::minutes(1) ? deleted_.erase(it) : std::next(it);
  deleted_[cluster + "/" + key] = {uid, now};
}

bool SyncController::deletedYet(const std::string& cluster, const std::string& key,
                                const std::string& uid) {
  std::lock_guard lock(deletedMutex_);
  auto it = deleted_.find(cluster + "/" + key);
  if (it == deleted_.end()) return false;
  if (it->second.first == uid) return true;
  deleted_.erase(it);  // the cache has moved on (a new object, or none)
  return false;
}

bool SyncController::downLongerThanGrace(const api::FederatedCluster& fc) const {
  const auto* ready = api::findCondition(fc.status.conditions, "Ready");
  if (!ready || ready->status == "True") return false;
  const auto since = api::parseRfc3339(ready->lastTransitionTime);
  return since && options_.wallClock() - *since >= options_.failoverGrace;
}

std::string SyncController::readyProblem(const std::string& cluster) const {
  const auto fc = informers_.clusters.store().get(cluster);
  if (!fc) return "cluster " + cluster + " is not registered";
  // Read in place rather than decoded: this is asked for every cluster a binding is or was on,
  // on every reconcile; decoding FederatedClusters with their resource summaries was most of the
  // operator's CPU at 100 members.
  // Leaving the fleet: its finalizer is removing what Flotilla put there; nothing new goes in.
  if (const auto* meta = fc->if_contains("metadata"); meta && meta->is_object()) {
    const auto* deleting = meta->as_object().if_contains("deletionTimestamp");
    if (deleting && !deleting->is_null()) return "cluster " + cluster + " is being removed";
  }
  const auto* ready = readyCondition(*fc);
  if (!ready) return "cluster " + cluster + " has not been probed yet";
  auto text = [&](std::string_view field) {
    const auto* v = ready->if_contains(field);
    return v && v->is_string() ? std::string(v->as_string()) : std::string();
  };
  // The reason only: this goes into the per-cluster status of workloads in tenants' namespaces,
  // and the cluster's message names its credentials Secret, endpoint and TLS details
  // (docs/security.md, L2); `kubectl get fc` shows those to whoever may read clusters.
  if (text("status") != "True") {
    const std::string reason = text("reason");
    return "cluster " + cluster + " is not ready" + (reason.empty() ? "" : " (" + reason + ")");
  }
  return "";
}

override::PolicySet SyncController::overridesSelecting(const json::object& federated) const {
  if (!options_.overrides) return {};
  const auto workload = override::federatedWorkload(federated);
  return override::selecting(options_.overrides->forNamespace(workload.ns), workload);
}

api::Result<std::vector<override::RuleRef>> SyncController::overrideRules(
    const override::PolicySet& selected, const std::string& cluster) {
  if (selected.empty()) return std::vector<override::RuleRef>{};
  // (Sending the copy without the rules would revert them there without a word.)
  const auto fc = informers_.clusters.store().get(cluster);
  if (!fc)
    return api::Error{api::reason::kNotFound,
                      404,
                      "cluster " + cluster +
                          " is not registered: its OverridePolicy rules cannot "
                          "be resolved",
                      {}};
  auto decoded = decodedClusters_.get(fc);
  if (!decoded)
    return api::Error{api::reason::kInvalid,
                      422,
                      "cluster " + cluster + " cannot be read for its OverridePolicy rules: " +
                          decoded.error().message,
                      {}};
  return override::rulesFor(selected, **decoded);
}

void SyncController::watchOverrides(kube::Controller& controller,
                                    kube::SharedInformer& overridePolicies,
                                    kube::SharedInformer& clusterOverridePolicies,
                                    kube::SharedInformer& clusters) {
  // (The bindings' index by cluster is kept by watch() and watchClusterObjects().)
  controller.watch(
      clusters,
      [this](const kube::ObjectPtr& fc) {
        std::vector<std::string> keys;
        for (const auto* bindings : {&informers_.bindings, informers_.clusterBindings})
          if (bindings)
            for (const auto& rb :
                 bindings->store().byIndex(kBindingsByClusterIndex, kube::objectKey(*fc)))
              keys.push_back(kube::objectKey(*rb));
        return keys;
      },
      kube::Predicate{nullptr,
                      [](const kube::ObjectPtr& a, const kube::ObjectPtr& b) {
                        return kube::labelsChanged().update(a, b) ||
                               kube::generationChanged().update(a, b);
                      },
                      nullptr});
  // What a policy reaches: FederatedDeployments and FederatedObjects (an OverridePolicy's in its
  // namespace), and ClusterFederatedObjects (a ClusterOverridePolicy's only).
  auto keysOf = [this](const api::OverridePolicySpec& spec, const std::string& ns) {
    std::vector<std::string> keys =
        override::selectedKeys(informers_.federatedDeployments, spec, ns);
    for (const auto* informer :
         {informers_.federatedObjects, ns.empty() ? informers_.clusterFederatedObjects : nullptr})
      if (informer)
        for (auto& k : override::selectedKeys(*informer, spec, ns)) keys.push_back(std::move(k));
    return keys;
  };
  // A policy's rules are its spec (generation), and its deletion stops them.
  const kube::Predicate changed{
      nullptr,
      [](const kube::ObjectPtr& a, const kube::ObjectPtr& b) {
        return kube::generationChanged().update(a, b) ||
               (api::unstructured::find(*a, {"metadata", "deletionTimestamp"}) == nullptr) !=
                   (api::unstructured::find(*b, {"metadata", "deletionTimestamp"}) == nullptr);
      },
      nullptr};
  controller.watchBoth(
      overridePolicies,
      [keysOf](const kube::ObjectPtr& o) -> std::vector<std::string> {
        auto p = fromObject<api::OverridePolicy>(o);
        if (!p) return {};
        return keysOf(p->spec, p->metadata.namespace_);
      },
      changed);
  controller.watchBoth(
      clusterOverridePolicies,
      [keysOf](const kube::ObjectPtr& o) -> std::vector<std::string> {
        auto p = fromObject<api::ClusterOverridePolicy>(o);
        if (!p) return {};
        return keysOf(p->spec, "");
      },
      changed);
}

ClusterOutcome SyncController::syncCluster(const api::FederatedDeployment& fd,
                                           const std::string& key, const std::string& cluster,
                                           int32_t replicas, bool autoscaled,
                                           const override::PolicySet& overrides, Retry* retry) {
  ClusterOutcome out{cluster, propagation::kOK, "", true};
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
    // A Ready cluster the operator has not connected to yet (it just started): nothing is known
    // to be wrong, so nothing is reported; the reconcile is retried.
    retry->soon = true;
    return fail(kUndecided, "no connection to " + cluster + " yet");
  }
  const auto rules = overrideRules(overrides, cluster);
  if (!rules) return fail(propagation::kUpdateFailed, rules.error().message);
  override::OverrideResult overridden;
  auto desired =
      desiredMemberDeployment(fd, key, cluster, replicas, options_.hostId, *rules, &overridden);
  if (!desired) return fail(propagation::kUpdateFailed, desired.error().message);
  // Overriders that do not apply here are said in the cluster's entry (docs/design.md §14).
  for (const auto& skipped : overridden.skipped)
    out.note += (out.note.empty() ? "override skipped: " : "; ") + skipped;

  const auto& ns = fd.metadata.namespace_;
  const auto& name = fd.metadata.name;
  auto& client = member->client();
  std::optional<json::object> live;
  if (auto cached = member->deployments().store().get(key)) live = *cached;
  if (!live) {
    // Not among the objects Flotilla manages there: is there one of that name that it does not?
    auto got = await(member->executor(), client.get(resources::kDeployments, ns, name));
    if (got) {
      live = std::move(*got);
    } else if (got.error().code != 404) {
      if (unreachable(got.error())) {
        retry->soon = true;
        return fail(propagation::kClusterNotReady, got.error().message);
      }
      retry->backoff = true;
      return fail(propagation::kCreationFailed, got.error().message);
    } else {
      // The namespace first (docs/security.md, H3; member_namespace.h).
      const auto check =
          ensureMemberNamespace(host_, executor_, *member, ns, cluster, true, "Deployment " + key);
      if (!check.ready) {
        retry->soon = retry->soon || check.retrySoon;
        retry->backoff = retry->backoff || check.retryBackoff;
        return fail(check.propagation.empty() ? kUndecided : check.propagation.c_str(),
                    check.message);
      }
    }
  }
  // An object of that name Flotilla does not manage (or manages for another binding or host) is
  // a Conflict: never touched (object_plan.h, the rule of every kind). Nothing reports when it
  // goes (it is not in the cache of Flotilla's copies), so it is looked at again every
  // healthPoll.
  const auto plan = planMember(
      {.targeted = true,
       .desired = &*desired,
       .live = live ? &*live : nullptr,
       .bindingKey = key,
       .hostId = options_.hostId,
       .notAdopted = interpreter::Registry::builtIn().of("apps/v1", "Deployment").notAdopted()});
  if (plan.step == MemberStep::kConflict) {
    retry->poll = true;
    return fail(propagation::kConflict,
                "Deployment " + key + " on " + cluster + ": " + plan.message);
  }
  // An HPA on that member scales it: its replicas are the member's (keepScaledReplicas).
  if (autoscaled && live) keepScaledReplicas(*desired, *live);
  std::string drift;
  if (live) {
    drift = difference(json::value(*live), json::value(*desired));
    if (drift.empty()) return out;
    // About to write over it with the replicas the cache showed: the HPA may have scaled it
    // since. Read them fresh.
    if (autoscaled) {
      if (auto fresh = await(member->executor(), client.get(resources::kDeployments, ns, name))) {
        keepScaledReplicas(*desired, *fresh);
        drift = difference(json::value(*fresh), json::value(*desired));
        if (drift.empty()) return out;
      }
    }
    // Changing a Deployment that is already there: its namespace must still be one Flotilla may
    // use. Its marks alone do not say so: a member user who owns a namespace of the workload's
    // name could have made a Deployment marked as Flotilla's there (docs/security.md, H3).
    const auto check =
        ensureMemberNamespace(host_, executor_, *member, ns, cluster, false, "Deployment " + key);
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
  auto applied = await(member->executor(), client.apply(resources::kDeployments, *desired, apply));
  if (!applied) {
    if (unreachable(applied.error())) {
      retry->soon = true;
      return fail(propagation::kClusterNotReady, applied.error().message);
    }
    retry->backoff = true;
    return fail(live ? propagation::kUpdateFailed : propagation::kCreationFailed,
                applied.error().message);
  }
  log::info(kName, key,
            std::string(live ? "updated" : "created") + " the Deployment on " + cluster +
                (drift.empty() ? "" : " (" + drift + " differed)"));
  return out;
}

api::Result<kube::ReconcileResult> SyncController::cleanupMembers(
    const api::ObjectMeta& meta, const json::object& involvedObject, const std::string& what,
    const kube::ResourceId& ownerResource, const RemoveFromMember& removeFrom) {
  if (!hasFinalizer(meta, kCleanupFinalizer)) return kube::ReconcileResult{};
  const bool skip = meta.annotations.count(kSkipMemberCleanupAnnotation) &&
                    meta.annotations.at(kSkipMemberCleanupAnnotation) == "true";
  std::string waiting;
  std::string abandoned;  // members down for longer than the failover grace
  if (!skip) {
    // Every cluster of the fleet (not only those connected now: just after a restart the
    // registry may still be empty), asked live (the cache may not have seen a create that just
    // happened). A cluster being removed from the fleet is cleaned by its own finalizer.
    for (const auto& fcObject : informers_.clusters.store().list()) {
      const std::string cluster = kube::objectKey(*fcObject);
      auto fc = fromObject<api::FederatedCluster>(fcObject);
      if (!fc || fc->metadata.deletionTimestamp) continue;
      auto member = members_.get(cluster);
      if (!member || !readyProblem(cluster).empty()) {
        // Retried until it is back, the failover grace has passed, or the user sets
        // flotilla.io/skip-member-cleanup. Without the grace one dead cluster — even one no
        // policy selects — would hold up the deletion of every workload of the fleet forever.
        if (downLongerThanGrace(*fc)) {
          abandoned += (abandoned.empty() ? "" : ", ") + cluster;
        } else {
          waiting += (waiting.empty() ? "" : ", ") + cluster;
        }
        continue;
      }
      if (auto problem = removeFrom(*member, cluster))
        waiting += (waiting.empty() ? "" : ", ") + cluster + " (" + *problem + ")";
    }
  }
  if (!waiting.empty()) {
    events_.event(involvedObject, "Warning", "CleanupPending",
                  "waiting to remove the member " + what + " on " + waiting);
    return kube::ReconcileResult{false, duration_cast<nanoseconds>(options_.retryNotReady)};
  }
  if (!abandoned.empty()) {
    events_.event(involvedObject, "Warning", "CleanupSkipped",
                  "not Ready for longer than the failover grace, member " + what +
                      " left behind on " + abandoned);
  }
  auto removed = await(
      executor_,
      host_.updateWithRetry(ownerResource, meta.namespace_, meta.name,
                            [](json::object& o) { return removeFinalizer(o, kCleanupFinalizer); }));
  if (!removed && removed.error().code != 404) return removed.error();
  return kube::ReconcileResult{};
}

api::Result<kube::ReconcileResult> SyncController::cleanup(const api::FederatedDeployment& fd,
                                                           const std::string& key) {
  auto removeFrom = [&](MemberConnection& member,
                        const std::string& cluster) -> std::optional<std::string> {
    kube::ListOptions selector;
    selector.labelSelector = bindingSelector(key);
    auto live = await(member.executor(), member.client().list(resources::kDeployments,
                                                              fd.metadata.namespace_, selector));
    if (!live) return live.error().message;
    std::optional<std::string> problem;
    for (const auto& o : live->items) {
      if (!managedFor(o, key, options_.hostId)) continue;
      kube::DeleteOptions options;
      options.preconditionUid = uidOf(o);
      auto gone = await(member.executor(),
                        member.client().remove(resources::kDeployments, fd.metadata.namespace_,
                                               fd.metadata.name, options));
      // 404: already gone. A 409 is not taken as gone: a failed uid precondition (the object
      // was replaced) and a storage conflict look alike, and the next pass lists again.
      if (!gone && gone.error().code != 404) {
        problem = gone.error().message;
      } else {
        log::info(kName, key, "deleted the Deployment on " + cluster);
      }
    }
    return problem;
  };
  return cleanupMembers(fd.metadata, involved(fd), "Deployments", resources::kFederatedDeployments,
                        removeFrom);
}

api::Result<kube::ReconcileResult> SyncController::reconcile(const std::string& key) {
  const auto fdObject = informers_.federatedDeployments.store().get(key);
  const auto* objects =
      clusterScopedKey(key) ? informers_.clusterFederatedObjects : informers_.federatedObjects;
  if (auto foObject = objects ? objects->store().get(key) : nullptr) {
    // A FederatedDeployment and a FederatedObject of one name (a Deployment "web-service" and a
    // Service "web") share a binding name: the binding's controller says whose it is, and a
    // FederatedDeployment being deleted is cleaned up first whoever it is.
    const auto* bindings =
        clusterScopedKey(key) ? informers_.clusterBindings : &informers_.bindings;
    const auto rbObject = bindings ? bindings->store().get(key) : nullptr;
    const bool fdDeleting = fdObject && deleting(*fdObject);
    if (!fdDeleting &&
        (!fdObject || deleting(*foObject) ||
         (rbObject &&
          controllerUid(*rbObject) == api::unstructured::stringAt(*foObject, {"metadata", "uid"}))))
      return reconcileObject(key, foObject);
  }
  std::optional<api::FederatedDeployment> fd;
  if (fdObject) {
    auto decoded = fromObject<api::FederatedDeployment>(fdObject);
    if (!decoded) {
      log::error(kName, key, "cannot decode the FederatedDeployment: " + decoded.error().message);
      return kube::ReconcileResult{};
    }
    fd = std::move(*decoded);
  }
  if (fd && fd->metadata.deletionTimestamp) return cleanup(*fd, key);
  const auto rbObject = informers_.bindings.store().get(key);
  if (!fd || !rbObject) return kube::ReconcileResult{};
  auto rb = fromObject<api::ResourceBinding>(rbObject);
  if (!rb) {
    log::error(kName, key, "cannot decode the ResourceBinding: " + rb.error().message);
    return kube::ReconcileResult{};
  }
  if (rb->metadata.deletionTimestamp) return kube::ReconcileResult{};
  // Another object's binding of the same name (the binding controller reports the conflict).
  if (controllerUid(*rbObject) != fd->metadata.uid) return kube::ReconcileResult{};

  // A FederatedDeployment written by a user gets the cleanup finalizer before anything is put on
  // a member (the federate controller creates its own with it).
  if (!hasFinalizer(fd->metadata, kCleanupFinalizer)) {
    auto added = await(
        executor_, host_.updateWithRetry(
                       resources::kFederatedDeployments, fd->metadata.namespace_, fd->metadata.name,
                       [](json::object& o) { return addFinalizer(o, kCleanupFinalizer); }));
    if (!added) return retryOnConflict(added.error());
    return kube::ReconcileResult{};  // the update brings it back
  }
  // What each cluster holds, from the member Deployments cached for this binding; the plan
  // (sync_plan.h) says what to apply, hold and remove.
  SyncPlanInput input{rb->spec.clusters,
                      placementCurrent(*rb),
                      moveTimeLeft(*rb, options_.gracefulMoveTimeout, options_.wallClock()),
                      true,
                      {}};
  std::map<std::string, std::vector<kube::ObjectPtr>> owned;
  auto observe = [&](const std::string& cluster) {
    ClusterObservation c{cluster};
    auto member = members_.get(cluster);
    if (!member || !member->synced()) return c;
    c.connected = true;
    c.ready = readyProblem(cluster).empty();
    owned[cluster] = member->deployments().store().byIndex(kBindingIndex, key);
    // (Only a synced cache says nothing is there: a fresh connection's is still empty.)
    c.holds = !owned[cluster].empty();
    auto live = member->deployments().store().get(key);
    if (!live) deletedYet(cluster, key, "");  // gone from the cache: forget the deletion
    if (live && managedFor(*live, key, options_.hostId) &&
        !deletedYet(cluster, key, uidOf(*live))) {
      if (auto d = fromObject<api::Deployment>(live)) {
        c.liveReplicas = d->spec.replicas.value_or(1);
        c.available = d->status.availableReplicas;
      }
    }
    return c;
  };
  std::set<std::string> seen;
  for (const auto& t : rb->spec.clusters)
    if (seen.insert(t.name).second) input.clusters.push_back(observe(t.name));
  if (input.placementCurrent) {  // (only then is anything held or removed elsewhere)
    for (const auto& cluster : members_.names())
      if (seen.insert(cluster).second) input.clusters.push_back(observe(cluster));
  }
  const SyncPlan plan = planSync(input);
  // Its followers first on a cluster it is not on yet (docs/design.md §12).
  const auto gate =
      gateOf(*rbObject, {options_.followers, &informers_.bindings, informers_.clusterBindings,
                         options_.sourceOf, options_.missingGrace, options_.wallClock()});

  const override::PolicySet overrides = overridesSelecting(*fdObject);
  Retry retry;
  std::vector<ClusterOutcome> outcomes;
  for (const auto& action : plan.actions) {
    switch (action.step) {
      case SyncStep::kApply:
        if (gate && gate->blocked.count(action.cluster)) {
          // (Unknown while the caches sync: undecided, looked at again in a second, nothing
          // written.)
          outcomes.push_back({action.cluster,
                              gate->status == "Unknown" ? kUndecided : propagation::kPendingCreate,
                              std::string(kWaitingForDependencies) + gate->message, true});
          retry.soon = true;  // (their bindings' status brings it back sooner)
          break;
        }
        outcomes.push_back(syncCluster(*fd, key, action.cluster, action.replicas,
                                       gate && gate->autoscaledOn.count(action.cluster), overrides,
                                       &retry));
        break;
      case SyncStep::kHold: {
        // Not a target any more, but its replicas are needed until the move completes.
        auto outcome =
            syncCluster(*fd, key, action.cluster, action.replicas,
                        gate && gate->autoscaledOn.count(action.cluster), overrides, &retry);
        outcome.target = false;
        if (outcome.propagation == propagation::kOK) {
          outcome.held = true;
          outcome.message =
              "holds " + std::to_string(action.replicas) + " replicas until the move completes";
        }
        outcomes.push_back(outcome);
        break;
      }
      case SyncStep::kRemove: {
        // Remove what Flotilla put there for this binding, and only that.
        auto member = members_.get(action.cluster);
        if (!member) break;
        for (const auto& o : owned[action.cluster]) {
          if (!managedFor(*o, key, options_.hostId)) continue;
          kube::DeleteOptions options;
          options.preconditionUid = uidOf(*o);
          auto gone =
              await(member->executor(),
                    member->client().remove(resources::kDeployments, fd->metadata.namespace_,
                                            fd->metadata.name, options));
          if (!gone && gone.error().code != 404) {  // 409: listed again next time (see cleanup)
            retry.soon = true;
            outcomes.push_back(
                {action.cluster, propagation::kDeletionFailed, gone.error().message, false});
          } else {
            rememberDeleted(action.cluster, key, uidOf(*o));
            log::info(kName, key,
                      "removed the Deployment from " + action.cluster + " (no longer targeted)");
            outcomes.push_back({action.cluster, propagation::kOK, "", false});
          }
        }
        break;
      }
    }
  }
  PassOutcome pass{.soon = retry.soon,
                   .backoff = retry.backoff,
                   .pollUnhealthy = retry.poll,
                   .moving = plan.move.moving(),
                   .moveLeft = input.moveLeft};
  for (const auto& o : outcomes) pass.undecided = pass.undecided || o.propagation == kUndecided;
  pass.undecided = pass.undecided || replicasKeptUntilKnown(gate);
  // Undecided, or a new workload whose followers are being applied: nothing to say yet
  // (dependency_gate.h) but the scheduler's word.
  if (pass.undecided ||
      deferWaitingStatus(*rbObject, gate, outcomes,
                         {.missingGrace = options_.missingGrace, .now = options_.wallClock()})) {
    auto carried = writeFirstPlacementOnly(resources::kResourceBindings, *rbObject);
    if (!carried) return retryOnConflict(carried.error());
    return toResult(requeueAfter(pass, retryTimes()));
  }
  const std::string nowText = api::formatRfc3339(options_.wallClock());
  const std::string& moving = plan.moving;
  // Events for clusters whose state turned into a failure (a cluster waiting is not one).
  {
    std::map<std::string, std::string> was;
    for (const auto& item : rb->status.aggregatedStatus) was[item.clusterName] = item.propagation;
    for (const auto& o : outcomes) {
      if (o.propagation == propagation::kOK || waitingForDependencies(o) ||
          was[o.cluster] == o.propagation)
        continue;
      events_.event(involved(*rb), "Warning", o.propagation, o.cluster + ": " + o.message);
      log::warn(kName, key, o.cluster + ": " + o.propagation + ": " + o.message);
    }
  }
  // The sync controller's fields, applied again to a fresh binding if another writer (scheduler,
  // status controller) got there first.
  bool missing = false;
  auto written =
      writeStatus(host_, executor_, resources::kResourceBindings, toObject(*rb),
                  [&](json::object& object) -> api::Result<bool> {
                    return applyPassStatus(object, rb->metadata.generation, outcomes, nowText,
                                           moving, !input.placementCurrent, gate, &missing);
                  });
  if (!written) return retryOnConflict(written.error());
  if (missing) events_.event(involved(*rb), "Warning", "DependencyMissing", gate->message);
  // Member status events bring a moving binding back as the new replicas become available (the
  // operator routes them here while FullyApplied says MoveInProgress); the requeue is the
  // backstop.
  if (pass.moving) log::info(kName, key, "make-before-break: " + moving);
  return toResult(requeueAfter(pass, retryTimes()));
}

api::Result<bool> SyncController::applyPassStatus(
    json::object& object, int64_t generation, const std::vector<ClusterOutcome>& outcomes,
    const std::string& now, const std::string& moving, bool keepUnobserved,
    const std::optional<dependencies::LeaderGate>& gate, bool* missing) const {
  auto current = fromObject<api::ResourceBinding>(object);
  if (!current) return current.error();
  // (The newer generation's event brings this binding back.)
  if (current->metadata.generation != generation) return false;
  auto next = syncStatus(*current, outcomes, now, moving, keepUnobserved);
  // A first placement's status rides along: one write, not the scheduler's and this one.
  scheduler::carryFirstPlacement(*current, options_.wallClock(), next);
  *missing = dependencies::updateDependenciesReady(next, gate, generation, now);
  const json::value status = api::encode(next);
  if (sameStatus(object, status)) return false;
  object["status"] = status;
  return true;
}

api::Result<bool> SyncController::writeFirstPlacementOnly(const kube::ResourceId& resource,
                                                          const json::object& binding) {
  if (auto rb = fromObject<api::ResourceBinding>(binding);
      !rb || !scheduler::firstPlacementStatus(*rb, options_.wallClock()))
    return false;
  auto written = writeStatus(
      host_, executor_, resource, binding, [&](json::object& object) -> api::Result<bool> {
        auto current = fromObject<api::ResourceBinding>(object);
        if (!current) return current.error();
        api::ResourceBindingStatus next = current->status;
        if (!scheduler::carryFirstPlacement(*current, options_.wallClock(), next)) return false;
        object["status"] = api::encode(next);
        return true;
      });
  if (!written) return written.error();
  return true;
}

}  // namespace flotilla::controllers::sync
