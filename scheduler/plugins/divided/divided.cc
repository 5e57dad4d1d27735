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
  in.estimatedCapacity = unit.estimatedCapacity;
  in.avoidDisruption = rs.avoidDisruption.value_or(true);
  in.keepUnschedulableReplicas = unit.keepUnschedulableReplicas;
  in.division = rs.division == "Aggregated" ? Division::kAggregated : Division::kWeighted;

  int64_t totalWeight = 0;
  for (const auto& sc : selected) {
    const std::string& name = sc.name();
    in.clusters.push_back(name);
    const int64_t running = unit.currentReplicas.count(name) ? unit.currentReplicas.at(name) : 0;
    const int64_t capacity = availableReplicas(sc.info->resources, state.requests) + running;
    if (in.division == Division::kAggregated) {
      // Room to pack into: what the cluster can run, tightened by auto-migration's estimate.
      auto& cap = in.estimatedCapacity[name];
      cap = unit.estimatedCapacity.count(name) ? std::min(unit.estimatedCapacity.at(name), capacity)
                                               : capacity;
      in.preferences[name] = {1, 0, std::nullopt};
      totalWeight += capacity;
      continue;
    }
    if (rs.weights.empty()) {
      in.preferences[name] = {capacity, 0, std::nullopt};
      totalWeight += capacity;
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
  if (unit.replicas > 0 && totalWeight == 0) {
    if (!rs.weights.empty() && in.division == Division::kWeighted) {
      return Status::unschedulable(
          "no selected cluster matches spec.placement.replicaScheduling.weights");
    }
    return Status::unschedulable("no selected cluster has room for a replica (" +
                                 std::to_string(selected.size()) + " selected)");
  }
  assignment = planReplicas(in);
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
