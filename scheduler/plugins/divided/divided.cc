#include "scheduler/plugins/divided/divided.h"

#include <algorithm>

#include "api/label_selector.h"

namespace flotilla::scheduler {
namespace {

// Whether a weights entry names the cluster or selects it by label ("*" is handled separately:
// it applies only to clusters no other entry targets).
bool targets(const api::ClusterTarget& target, const api::FederatedCluster& cluster) {
  const auto& names = target.clusterNames;
  if (std::find(names.begin(), names.end(), cluster.metadata.name) != names.end()) return true;
  if (target.labelSelector) {
    auto selector = api::Selector::fromLabelSelector(*target.labelSelector);
    return selector && selector->matches(cluster.metadata.labels);
  }
  return false;
}

// "0/3 clusters have enough room: 15 of 24 replicas fit" (kube-scheduler's "0/N" style).
std::string shortfallMessage(size_t clusters, int64_t fit, int64_t replicas) {
  return "0/" + std::to_string(clusters) + " clusters have enough room: " + std::to_string(fit) +
         " of " + std::to_string(replicas) + " replicas fit";
}

}  // namespace

Status Divided::assign(CycleState& state, const SchedulingUnit& unit,
                       const std::vector<ScoredCluster>& selected,
                       PlannerResult& assignment) const {
  const api::ReplicaScheduling rs =
      unit.placement.replicaScheduling.value_or(api::ReplicaScheduling{});
  if (!rs.type.empty() && rs.type != "Divided") return Status::success();

  PlannerInput in;
  in.totalReplicas = unit.replicas;
  in.key = unit.key;
  in.currentReplicas = unit.currentReplicas;
  in.avoidDisruption = rs.avoidDisruption.value_or(true);
  in.keepUnschedulableReplicas = unit.keepUnschedulableReplicas;
  in.rebalance = unit.rebalance;
  in.division = rs.division == "Aggregated" ? Division::kAggregated : Division::kWeighted;
  // Aggregated and dynamic weights: what a cluster can hold is a limit, not just a weight.
  const bool byCapacity = state.dividesByCapacity;
  if (!byCapacity) in.estimatedCapacity = unit.estimatedCapacity;

  int64_t totalWeight = 0;
  for (const auto& sc : selected) {
    const std::string& name = sc.name();
    in.clusters.push_back(name);
    if (byCapacity) {
      // Room counts the replicas the cluster already holds for this workload (so a reschedule does
      // not shrink it for its own usage); unknown capacity holds only what is there. The weight is
      // the room the resources leave, the limit that room tightened by auto-migration's estimate,
      // passed as maxReplicas: a hard limit, reaching it makes the cluster full.
      const int64_t room =
          replicaRoom(sc.info->resources, state.requests, state.current[sc.info->index]);
      int64_t limit = room;
      if (!unit.estimatedCapacity.empty()) {
        auto estimate = unit.estimatedCapacity.find(name);
        if (estimate != unit.estimatedCapacity.end()) {
          limit = std::min(room, std::max<int64_t>(estimate->second, 0));
        }
      }
      in.preferences[name] = {in.division == Division::kAggregated ? 1 : room, 0, limit};
      totalWeight += room;
      continue;
    }
    const api::ClusterPreference* match = nullptr;
    for (const auto& w : rs.weights) {
      if (targets(w.targetCluster, *sc.cluster)) {
        match = &w;
        break;
      }
    }
    for (const auto& w : rs.weights) {
      const auto& names = w.targetCluster.clusterNames;
      if (!match && std::find(names.begin(), names.end(), "*") != names.end()) match = &w;
    }
    if (match) {
      in.preferences[name] = {match->weight, match->minReplicas, match->maxReplicas};
      totalWeight += match->weight + match->minReplicas;
    }
  }
  if (!byCapacity && unit.replicas > 0 && totalWeight == 0) {
    return Status::unschedulable(
        "no selected cluster matches spec.placement.replicaScheduling.weights");
  }
  assignment = planReplicas(in);
  if (byCapacity) {
    // Room is re-read from the clusters every cycle, so nothing is forgotten between rounds: the
    // overflow is only what fits nowhere, written only when the policy keeps unschedulable
    // replicas. Otherwise a shortfall is Unschedulable rather than a placement that cannot run.
    int64_t placed = 0;
    for (const auto& [name, n] : assignment.plan) placed += n;
    const int64_t shortfall = std::max<int64_t>(unit.replicas - placed, 0);
    if (shortfall > 0 && !unit.keepUnschedulableReplicas) {
      return Status::unschedulable(shortfallMessage(selected.size(), placed, unit.replicas));
    }
    if (shortfall > 0 && in.division == Division::kWeighted) {
      // Kept: plan again with the limits as capacities, so each cluster's share beyond its room
      // shows as its overflow (KubeAdmiral's attribution), cut to what fits nowhere.
      PlannerInput withOverflow = in;
      for (auto& [name, pref] : withOverflow.preferences) {
        withOverflow.estimatedCapacity[name] = *pref.maxReplicas;
        pref.maxReplicas.reset();
      }
      assignment = planReplicas(withOverflow);
    }
    for (auto it = assignment.overflow.begin(); it != assignment.overflow.end();) {
      it->second = std::min(it->second, shortfall);
      it = it->second > 0 ? std::next(it) : assignment.overflow.erase(it);
    }
    assignment.overflowKept = false;
  }
  // What each participating cluster may hold, for later replicas plugins (topology spread).
  ReplicaLimits limits;
  for (const auto& [name, pref] : in.preferences) {
    int64_t room = pref.maxReplicas.value_or(INT64_MAX);
    if (auto cap = in.estimatedCapacity.find(name); cap != in.estimatedCapacity.end()) {
      room = std::min(room, cap->second);
    }
    limits.room[name] = room;
  }
  state.put(std::move(limits));
  return Status::success();
}

}  // namespace flotilla::scheduler
