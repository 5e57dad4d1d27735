#pragma once

#include "scheduler/framework/plugin.h"

namespace flotilla::scheduler {

// Seed 001 applied to clusters (placement.topologySpreadConstraints).
// Score (ScheduleAnyway): a cluster's raw score is, over constraints whose key it has,
// count(replicas in its domain) * log(domains + 2) + (maxSkew - 1); normalized so the least loaded
// domain scores 100: 100 * (max + min - raw) / max. Clusters lacking a key score 0.
// Replicas (DoNotSchedule): after division, moves replicas from the most to the least loaded
// domain until count(domain) - min(count over domains of the selected clusters) <= maxSkew;
// Unschedulable when the least loaded domain has no room.
class TopologySpread final : public ScorePlugin, public ReplicasPlugin {
 public:
  static constexpr const char* kName = "TopologySpread";
  std::string_view name() const override { return kName; }
  void prepare(CycleState& state, const SchedulingUnit& unit,
               const ClusterSnapshot& snapshot) override;
  int64_t score(CycleState& state, const SchedulingUnit& unit,
                const ClusterInfo& cluster) const override;
  void normalize(CycleState& state, const SchedulingUnit& unit,
                 const std::vector<ScoredCluster>& clusters,
                 std::vector<int64_t>& scores) const override;
  Status assign(CycleState& state, const SchedulingUnit& unit,
                const std::vector<ScoredCluster>& selected,
                PlannerResult& assignment) const override;
};

}  // namespace flotilla::scheduler
