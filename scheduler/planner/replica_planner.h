// The replica planner (docs/design.md §4.4): how many replicas each cluster gets,
// KubeAdmiral-compatible.
//
// Pure functions on plain structs; no I/O. The weighted planner reproduces KubeAdmiral's arithmetic
// (seed 003): clusters ordered by weight, ties by FNV-1 hash of cluster name + workload key, a
// minReplicas pass, then rounds that hand out ceil(remaining * weight / weightSum), capped by
// maxReplicas and by estimated capacity (the excess becomes overflow).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace flotilla::scheduler {

using ReplicaMap = std::map<std::string, int64_t>;

struct ClusterPreference {
  int64_t weight = 1;
  int64_t minReplicas = 0;
  std::optional<int64_t> maxReplicas;  // absent: no limit
};

enum class Division { kWeighted, kAggregated };

struct PlannerInput {
  int64_t totalReplicas = 0;
  std::vector<std::string> clusters;  // the clusters that passed filtering and selection
  // Per cluster name; "*" applies to clusters without their own entry. A cluster with neither
  // takes no part in the plan. Empty: weight 1 for every cluster.
  std::map<std::string, ClusterPreference> preferences;
  ReplicaMap currentReplicas;    // what runs now, per cluster
  ReplicaMap estimatedCapacity;  // clusters with a known limit (from auto-migration)
  std::string key;               // "namespace/name": spreads ties differently per workload
  bool avoidDisruption = true;
  bool keepUnschedulableReplicas = false;
  // With avoidDisruption: this once, return the desired plan instead of moving from the current
  // replicas (a lifted estimate, a failback: the total is unchanged, so avoidDisruption alone
  // would never move replicas back). Overflow is trimmed as with avoidDisruption. Weighted only:
  // Aggregated packs onto the clusters already running the workload either way.
  bool rebalance = false;
  Division division = Division::kWeighted;
};

struct PlannerResult {
  ReplicaMap plan;      // every cluster taking part, zeros included
  ReplicaMap overflow;  // positive entries only: replicas that exceed a cluster's capacity
  // The overflow is written whatever keepUnschedulableReplicas says: Weighted division without
  // avoidDisruption keeps it untrimmed, as KubeAdmiral does, so the next round still sees the
  // capped clusters instead of oscillating between the capped and the uncapped plan.
  bool overflowKept = false;
  // What Flotilla writes to the binding: plan, plus overflow when unschedulable replicas are kept
  // (or overflowKept), clusters with zero replicas left out.
  ReplicaMap placement(bool keepUnschedulableReplicas) const;
};

// 32-bit FNV-1 (not FNV-1a) of `data`, as Go's hash/fnv New32.
uint32_t fnv1Hash32(std::string_view data, uint32_t seed = 2166136261u);

PlannerResult planReplicas(const PlannerInput& input);

}  // namespace flotilla::scheduler
