#pragma once

#include "scheduler/framework/plugin.h"

namespace flotilla::scheduler {

// Replicas (type Divided): the replica planner over the selected clusters.
// Weighted with `weights`: each cluster takes the first entry whose targetCluster names it (or
// "*") or whose labelSelector matches it; clusters matching no entry get nothing. Weights are
// intent: only auto-migration's estimates limit them. Weighted without weights (dynamic) and
// Aggregated: each cluster's room (replicaRoom: its resources with the workload's own replicas
// added back, unknown capacity 0, tightened by the estimate) is its weight (dynamic) and its hard
// limit; when the clusters cannot hold the replicas the unit is Unschedulable with the shortfall
// named, unless unschedulable replicas are kept (then what fits nowhere is overflow).
class Divided final : public ReplicasPlugin {
 public:
  static constexpr const char* kName = "Divided";
  std::string_view name() const override { return kName; }
  Status assign(CycleState& state, const SchedulingUnit& unit,
                const std::vector<ScoredCluster>& selected,
                PlannerResult& assignment) const override;
};

}  // namespace flotilla::scheduler
