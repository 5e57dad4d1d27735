#pragma once

#include "scheduler/framework/plugin.h"

namespace flotilla::scheduler {

// Replicas (type Divided): the replica planner over the selected clusters.
// Weighted with `weights`: each cluster takes the first entry whose targetCluster names it (or
// "*") or whose labelSelector matches it; clusters matching no entry get nothing. Weighted without
// weights: dynamic weights = replicas the cluster can run (available replicas, DESIGN §4.5) plus
// the replicas it already runs, so a reschedule does not shrink clusters for their own usage.
// Aggregated: bin-packing with the same capacity as room.
class Divided final : public ReplicasPlugin {
 public:
  static constexpr const char* kName = "Divided";
  std::string_view name() const override { return kName; }
  Status assign(CycleState& state, const SchedulingUnit& unit,
                const std::vector<ScoredCluster>& selected,
                PlannerResult& assignment) const override;
};

}  // namespace flotilla::scheduler
