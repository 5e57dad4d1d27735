#include "controllers/status/aggregate.h"

#include <algorithm>
#include <set>

#include "api/conditions.h"
#include "controllers/common/managed.h"
#include "controllers/override/overriders.h"

namespace flotilla::controllers::status {

namespace {

const api::DeploymentCondition* findDeploymentCondition(
    const std::vector<api::DeploymentCondition>& conditions, const std::string& type) {
  for (const auto& c : conditions)
    if (c.type == type) return &c;
  return nullptr;
}

bool available(const api::Deployment& d) {
  const auto* c = findDeploymentCondition(d.status.conditions, "Available");
  return c && c->status == "True";
}

// The member's controller has seen the spec it holds.
bool observed(const api::Deployment& d) {
  return d.status.observedGeneration >= d.metadata.generation;
}

void setDeploymentCondition(std::vector<api::DeploymentCondition>& conditions,
                            const std::string& type, const std::string& status,
                            const std::string& reason, const std::string& message,
                            const std::string& now) {
  for (auto& c : conditions) {
    if (c.type != type) continue;
    if (c.status != status) c.lastTransitionTime = now;
    if (c.status != status || c.reason != reason || c.message != message) c.lastUpdateTime = now;
    c.status = status;
    c.reason = reason;
    c.message = message;
    return;
  }
  conditions.push_back({type, status, now, now, reason, message});
}

}  // namespace

Aggregation aggregate(const api::FederatedDeployment& fd, const api::ResourceBinding* binding,
                      const std::map<std::string, api::Deployment>& members,
                      const api::Deployment* host, const std::string& now,
                      const std::set<std::string>& unknown) {
  Aggregation out;
  std::map<std::string, int32_t> targets;
  if (binding)
    for (const auto& t : binding->spec.clusters) targets[t.name] = t.replicas;
  std::map<std::string, api::AggregatedStatusItem> synced;
  if (binding)
    for (const auto& item : binding->status.aggregatedStatus) synced[item.clusterName] = item;

  std::set<std::string> clusters;
  for (const auto& [c, _] : targets) clusters.insert(c);
  for (const auto& [c, _] : members) clusters.insert(c);
  std::map<std::string, api::ClusterDeploymentStatus> lastKnown;
  for (const auto& c : fd.status.clusters)
    if (unknown.count(c.name)) lastKnown[c.name] = c;

  auto& f = out.federated;
  f = fd.status;
  f.clusters.clear();
  f.replicas = f.readyReplicas = f.availableReplicas = f.updatedReplicas = 0;
  std::string notPropagated, notAvailable;
  for (const auto& cluster : clusters) {
    api::ClusterDeploymentStatus cs;
    cs.name = cluster;
    const auto member = members.find(cluster);
    if (auto last = lastKnown.find(cluster); last != lastKnown.end() && member == members.end()) {
      cs = last->second;  // cannot be seen now: what it said last
    } else if (member != members.end()) {
      const auto& s = member->second.status;
      cs.replicas = s.replicas;
      cs.readyReplicas = s.readyReplicas;
      cs.availableReplicas = s.availableReplicas;
      cs.updatedReplicas = s.updatedReplicas;
      cs.unavailableReplicas = s.unavailableReplicas;
      cs.observedGeneration = s.observedGeneration;
      cs.conditions = s.conditions;
      // What OverridePolicies changed there, as the sync recorded it on the member Deployment.
      const auto& annotations = member->second.metadata.annotations;
      if (auto a = annotations.find(override::kAppliedOverridesAnnotation); a != annotations.end())
        cs.appliedOverrides = override::parseAppliedList(a->second);
    }
    const auto sync = synced.find(cluster);
    if (sync != synced.end() && !sync->second.propagation.empty()) {
      cs.propagation = sync->second.propagation;
      cs.message = sync->second.message;
    } else {
      cs.propagation = targets.count(cluster) ? "PendingCreate" : "OK";
    }
    if (targets.count(cluster)) {
      if (cs.propagation != "OK")
        notPropagated += (notPropagated.empty() ? "" : "; ") + cluster + ": " + cs.propagation;
      if (member == members.end() || !available(member->second))
        notAvailable += (notAvailable.empty() ? "" : ", ") + cluster;
    }
    f.replicas += cs.replicas;
    f.readyReplicas += cs.readyReplicas;
    f.availableReplicas += cs.availableReplicas;
    f.updatedReplicas += cs.updatedReplicas;
    f.clusters.push_back(std::move(cs));
  }
  int32_t desired = fd.spec.template_.spec.replicas.value_or(1);
  if (!targets.empty()) {
    desired = 0;
    for (const auto& [_, r] : targets) desired += r;
  }
  f.ready = std::to_string(f.readyReplicas) + "/" + std::to_string(desired);
  std::string names;  // f starts from the stored status: built anew, never appended to
  for (const auto& [cluster, _] : targets) names += (names.empty() ? "" : ",") + cluster;
  f.clusterNames = std::move(names);
  f.observedGeneration = fd.metadata.generation;
  const int64_t gen = fd.metadata.generation;
  if (targets.empty()) {
    api::setCondition(f.conditions, "Propagated", "False", "NotScheduled",
                      "no cluster is selected yet", gen, now);
  } else if (notPropagated.empty()) {
    api::setCondition(f.conditions, "Propagated", "True", "AllClustersApplied",
                      "applied on " + std::to_string(targets.size()) + " cluster(s)", gen, now);
  } else {
    api::setCondition(f.conditions, "Propagated", "False", "PropagationFailed", notPropagated, gen,
                      now);
  }
  if (!targets.empty() && notAvailable.empty()) {
    api::setCondition(f.conditions, "Available", "True", "MinimumReplicasAvailable",
                      "every member Deployment is available", gen, now);
  } else {
    api::setCondition(
        f.conditions, "Available", "False", "MinimumReplicasUnavailable",
        targets.empty() ? "no cluster is selected yet" : "not available on " + notAvailable, gen,
        now);
  }

  // The binding's per-cluster view.
  for (const auto& cluster : clusters) {
    api::AggregatedStatusItem item;
    if (auto it = synced.find(cluster); it != synced.end()) item = it->second;
    item.clusterName = cluster;
    const auto member = members.find(cluster);
    if (unknown.count(cluster) && member == members.end()) {
      item.health = "Unknown";  // replicas: what was last reported
    } else if (member == members.end()) {
      item.health = "Unknown";
      item.replicas = item.readyReplicas = 0;
    } else {
      const auto& d = member->second;
      item.replicas = d.status.replicas;
      item.readyReplicas = d.status.readyReplicas;
      const int32_t want = d.spec.replicas.value_or(1);
      item.health = available(d) && observed(d) && d.status.readyReplicas >= want &&
                            d.status.updatedReplicas >= want
                        ? "Healthy"
                        : "Unhealthy";
    }
    // Clusters that hold nothing and that sync has said nothing about (no longer targeted, or
    // not synced yet): no entry. (A target's entry comes with the sync's first word on it: one
    // written before would say only that nothing is known, a write of every new binding.)
    if (member == members.end() && !synced.count(cluster) && !unknown.count(cluster)) continue;
    out.bindings.push_back(std::move(item));
  }

  if (host) {
    api::DeploymentStatus s = host->status;
    s.replicas = s.updatedReplicas = s.readyReplicas = s.availableReplicas = 0;
    s.unavailableReplicas = 0;
    bool allObserved = binding != nullptr && !targets.empty();
    const std::string generation = std::to_string(host->metadata.generation);
    bool deadlineExceeded = false;
    std::string deadlineMessage;
    for (const auto& [cluster, _] : targets) {
      const auto member = members.find(cluster);
      if (member == members.end()) {
        allObserved = false;
        continue;
      }
      const auto& d = member->second;
      auto it = d.metadata.annotations.find(kSourceGenerationAnnotation);
      if (it == d.metadata.annotations.end() || it->second != generation || !observed(d))
        allObserved = false;
      if (const auto* p = findDeploymentCondition(d.status.conditions, "Progressing");
          p && p->status == "False" && p->reason == "ProgressDeadlineExceeded") {
        deadlineExceeded = true;
        deadlineMessage = cluster + ": " + p->message;
      }
    }
    for (const auto& [cluster, last] : lastKnown) {
      if (members.count(cluster)) continue;
      s.replicas += last.replicas;
      s.updatedReplicas += last.updatedReplicas;
      s.readyReplicas += last.readyReplicas;
      s.availableReplicas += last.availableReplicas;
      s.unavailableReplicas += last.unavailableReplicas;
    }
    for (const auto& [cluster, d] : members) {
      s.replicas += d.status.replicas;
      s.updatedReplicas += d.status.updatedReplicas;
      s.readyReplicas += d.status.readyReplicas;
      s.availableReplicas += d.status.availableReplicas;
      s.unavailableReplicas += d.status.unavailableReplicas;
    }
    // The placement must be for the replicas this generation asks for.
    // ... and applied: FullyApplied for the binding's current generation (a scale's new template
    // annotation can reach the members before the new replica counts do).
    const auto* applied =
        binding ? api::findCondition(binding->status.conditions, "FullyApplied") : nullptr;
    if (binding &&
        (binding->spec.replicas != host->spec.replicas.value_or(1) ||
         binding->status.schedulerObservedGeneration < binding->metadata.generation || !applied ||
         applied->status != "True" || applied->observedGeneration != binding->metadata.generation))
      allObserved = false;
    if (allObserved) s.observedGeneration = host->metadata.generation;
    const int32_t want = host->spec.replicas.value_or(1);
    if (!targets.empty() && notAvailable.empty()) {
      setDeploymentCondition(s.conditions, "Available", "True", "MinimumReplicasAvailable",
                             "Deployment has minimum availability on every member cluster.", now);
    } else {
      setDeploymentCondition(s.conditions, "Available", "False", "MinimumReplicasUnavailable",
                             "Deployment does not have minimum availability.", now);
    }
    if (deadlineExceeded) {
      setDeploymentCondition(s.conditions, "Progressing", "False", "ProgressDeadlineExceeded",
                             deadlineMessage, now);
    } else if (allObserved && s.updatedReplicas >= want && s.availableReplicas >= want &&
               s.replicas == s.updatedReplicas) {
      setDeploymentCondition(s.conditions, "Progressing", "True", "NewReplicaSetAvailable",
                             "The rollout has completed on every member cluster.", now);
    } else {
      setDeploymentCondition(s.conditions, "Progressing", "True", "ReplicaSetUpdated",
                             "The rollout is progressing on the member clusters.", now);
    }
    out.host = std::move(s);
  }
  return out;
}

bool awaitingFirstDecision(const api::FederatedDeployment& fd,
                           const api::ResourceBinding* binding) {
  if (binding) return api::findCondition(binding->status.conditions, "Scheduled") == nullptr;
  for (const auto& ref : fd.metadata.ownerReferences)
    if (ref.kind == "Deployment" && ref.controller.value_or(false)) return true;
  return false;
}

}  // namespace flotilla::controllers::status
