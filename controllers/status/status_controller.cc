#include "controllers/status/status_controller.h"

#include <set>

#include "api/conditions.h"
#include "controllers/common/await.h"
#include "controllers/common/cluster_events.h"
#include "controllers/common/log.h"
#include "controllers/common/status_write.h"
#include "controllers/common/typed.h"
#include "controllers/scheduler/placement_status.h"
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

// A Deployment as the aggregation reads it (aggregate.h): metadata, replicas and status. The pod
// template, most of the object, is left undecoded: every status pass reads every copy of the
// workload, and decoding their templates was a third of the pass.
api::Result<api::Deployment> deploymentForStatus(const json::object& o) {
  api::Deployment d;
  if (const auto* m = o.if_contains("metadata")) {
    auto meta = api::decode<api::ObjectMeta>(*m);
    if (!meta) return meta.error();
    d.metadata = std::move(*meta);
  }
  if (const auto* spec = o.if_contains("spec"); spec && spec->is_object()) {
    if (const auto* r = spec->as_object().if_contains("replicas"); r && r->is_int64())
      d.spec.replicas = static_cast<int32_t>(r->as_int64());
  }
  if (const auto* st = o.if_contains("status")) {
    auto status = api::decode<api::DeploymentStatus>(*st);
    if (!status) return status.error();
    d.status = std::move(*status);
  }
  return d;
}
}  // namespace

StatusController::StatusController(kube::RestClient& host, boost::asio::any_io_executor executor,
                                   Informers informers, MemberRegistry& members,
                                   std::function<api::Clock::time_point()> wallClock)
    : host_(host),
      executor_(std::move(executor)),
      informers_(informers),
      members_(members),
      wallClock_(std::move(wallClock)) {}

void StatusController::watch(kube::Controller& controller,
                             kube::SharedInformer& federatedDeployments,
                             kube::SharedInformer& bindings, kube::SharedInformer& deployments,
                             kube::SharedInformer& clusters, std::chrono::nanoseconds coalesce) {
  controller.watch(federatedDeployments, kube::mapToSelf(), kube::generationChanged());
  // Every binding change matters: spec.clusters (scheduler) and the sync controller's status.
  // Coalesced (the queue keeps the earliest time for a key); a deleted binding at once.
  kube::EventHandler bindingChanged;
  bindingChanged.onAdd = [&controller, coalesce](const kube::ObjectPtr& o) {
    controller.queue().addAfter(kube::objectKey(*o), coalesce);
  };
  bindingChanged.onUpdate = [&controller, coalesce](const kube::ObjectPtr&,
                                                    const kube::ObjectPtr& o) {
    controller.queue().addAfter(kube::objectKey(*o), coalesce);
  };
  bindingChanged.onDelete = [&controller](const kube::ObjectPtr& o, bool) {
    controller.queue().add(kube::objectKey(*o));
  };
  bindings.addHandler(std::move(bindingChanged));
  // A scale or template change of the host Deployment (not our own status writes).
  controller.watch(deployments, kube::mapToSelf(), kube::generationChanged());
  // A cluster whose readiness changed: what its workloads report changes with it.
  watchClusterReadiness(controller, clusters, bindings);
}

bool StatusController::clusterReady(const std::string& cluster) const {
  auto fc = informers_.clusters.store().get(cluster);
  if (!fc) return false;
  return readyStatus(*fc) == "True";  // in place: asked for every target on every reconcile
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
  const auto rbObject = informers_.bindings.store().get(key);
  if (rbObject) {
    if (auto decoded = fromObject<api::ResourceBinding>(rbObject)) rb = std::move(*decoded);
  }
  std::optional<api::Deployment> host;
  kube::ObjectPtr hostObject;
  if (auto o = informers_.deployments.store().get(key)) {
    if (auto decoded = deploymentForStatus(*o); decoded && controlledBy(*fd, *decoded)) {
      host = std::move(*decoded);
      hostObject = o;
    }
  }
  std::map<std::string, api::Deployment> members;
  std::set<std::string> unknown;
  // Each cluster is looked at once per pass: a connection's caches finish syncing on the I/O
  // thread meanwhile, and a second look that found them synced would take a cluster whose cache
  // was skipped for one that holds nothing (the workload's Available went False for a moment
  // after a restart).
  struct Look {
    bool synced = false;
    bool ready = false;
  };
  std::map<std::string, Look> looks;
  auto lookAt = [&](const std::string& cluster) -> const Look& {
    auto it = looks.find(cluster);
    if (it != looks.end()) return it->second;
    auto member = members_.get(cluster);
    Look look{member && member->synced(), clusterReady(cluster)};
    // A cluster that is not Ready: its cache is frozen at what it last said. A target's last word
    // is kept below (unknown); one no longer targeted (failed over) says nothing: its stale
    // replicas are not the workload's (a node's pods stop counting when it stops reporting).
    if (look.synced && look.ready)
      for (const auto& o : member->deployments().store().byIndex(kBindingIndex, key))
        if (auto d = deploymentForStatus(*o)) members[cluster] = std::move(*d);
    return looks.emplace(cluster, look).first->second;
  };
  for (const auto& cluster : members_.names()) lookAt(cluster);
  if (rb) {
    for (const auto& target : rb->spec.clusters) {
      const Look& look = lookAt(target.name);
      if (look.synced && look.ready) continue;
      // A cluster that is not Ready: its cache is frozen at what it last said; report it as
      // unknown rather than healthy.
      if (look.synced) {
        members.erase(target.name);
        unknown.insert(target.name);
        continue;
      }
      // Not connected yet (the operator just started) while the cluster is Ready: wait rather
      // than report zero replicas; a cluster that is not Ready keeps what it said last.
      if (look.ready) return kube::ReconcileResult{false, std::chrono::seconds(1)};
      unknown.insert(target.name);
    }
  }
  const std::string now = api::formatRfc3339(wallClock_());
  const auto result =
      aggregate(*fd, rb ? &*rb : nullptr, members, host ? &*host : nullptr, now, unknown);
  // A workload that stops being available is worth a line: which clusters, and whether they
  // could be seen at all (the status says "not available on X" either way).
  const auto* wasAvailable = api::findCondition(fd->status.conditions, "Available");
  const auto* isAvailable = api::findCondition(result.federated.conditions, "Available");
  if (wasAvailable && wasAvailable->status == "True" && isAvailable &&
      isAvailable->status != "True") {
    std::string seen;
    for (const auto& c : unknown) seen += (seen.empty() ? "" : ", ") + c + " cannot be seen now";
    if (rb)
      for (const auto& t : rb->spec.clusters)
        if (!members.count(t.name) && !unknown.count(t.name))
          seen += (seen.empty() ? "" : ", ") + t.name + " holds no member Deployment";
    log::info(
        kName, key,
        "no longer available: " + isAvailable->message + (seen.empty() ? "" : " (" + seen + ")"));
  }

  // Each status only when it changed (the FederatedDeployment's first: READY is what users read).
  // A lost race is retried on the fresh object with the same result applied.
  const bool firstDecisionPending = awaitingFirstDecision(*fd, rb ? &*rb : nullptr);
  const json::value fdStatus = api::encode(result.federated);
  auto fdWritten = writeStatus(host_, executor_, resources::kFederatedDeployments, *fdObject,
                               [&](json::object& object) -> api::Result<bool> {
                                 if (firstDecisionPending && !hasStatus(object)) return false;
                                 if (sameStatus(object, fdStatus)) return false;
                                 object["status"] = fdStatus;
                                 return true;
                               });
  if (!fdWritten) return retryOnConflict(fdWritten.error());
  if (rb) {
    // Only the fields this controller owns (health, replicas, readyReplicas); the sync
    // controller's (applied, propagation, message) are taken from the object being written.
    std::map<std::string, api::AggregatedStatusItem> mine;
    for (const auto& item : result.bindings) mine[item.clusterName] = item;
    auto rbWritten = writeStatus(host_, executor_, resources::kResourceBindings, *rbObject,
                                 [&](json::object& object) -> api::Result<bool> {
                                   auto current = fromObject<api::ResourceBinding>(object);
                                   if (!current) return current.error();
                                   api::ResourceBindingStatus next = current->status;
                                   std::map<std::string, api::AggregatedStatusItem> merged;
                                   for (const auto& item : next.aggregatedStatus)
                                     merged[item.clusterName] = item;
                                   for (const auto& [cluster, item] : mine) {
                                     auto& m = merged[cluster];
                                     m.clusterName = cluster;
                                     m.health = item.health;
                                     m.replicas = item.replicas;
                                     m.readyReplicas = item.readyReplicas;
                                   }
                                   // Entries neither controller has anything to say about any more
                                   // go.
                                   next.aggregatedStatus.clear();
                                   for (auto& [cluster, item] : merged) {
                                     if (!mine.count(cluster) && item.propagation.empty()) continue;
                                     next.aggregatedStatus.push_back(std::move(item));
                                   }
                                   // A first placement's status rides along, as with the
                                   // sync's write (placement_status.h).
                                   scheduler::carryFirstPlacement(*current, wallClock_(), next);
                                   const json::value status = api::encode(next);
                                   if (sameStatus(object, status)) return false;
                                   object["status"] = status;
                                   return true;
                                 });
    if (!rbWritten) return retryOnConflict(rbWritten.error());
  }
  if (host && result.host && !(firstDecisionPending && !hasStatus(*hostObject))) {
    // Compare through the typed status: the cached object may carry fields we do not model.
    const json::value status = api::encode(*result.host);
    if (status != api::encode(host->status)) {
      json::object object = *hostObject;
      object["status"] = status;
      auto written = await(executor_, host_.updateStatus(resources::kDeployments, object));
      if (!written) return retryOnConflict(written.error());
    }
  }
  return kube::ReconcileResult{};
}

}  // namespace flotilla::controllers::status
