#pragma once

#include "scheduler/framework/plugin.h"

namespace flotilla::scheduler {

// Filter: NoSchedule and NoExecute taints must be tolerated by placement.clusterTolerations;
// clusters already running the workload only need to tolerate NoExecute (a new NoSchedule taint
// stops new placements, it does not evict). Score: fewer untolerated PreferNoSchedule taints is
// better.
class TaintToleration final : public FilterPlugin, public ScorePlugin {
 public:
  static constexpr const char* kName = "TaintToleration";
  std::string_view name() const override { return kName; }
  Status filter(CycleState& state, const SchedulingUnit& unit,
                const ClusterInfo& cluster) const override;
  int64_t score(CycleState& state, const SchedulingUnit& unit,
                const ClusterInfo& cluster) const override;
  void normalize(CycleState& state, const SchedulingUnit& unit,
                 const std::vector<ScoredCluster>& clusters,
                 std::vector<int64_t>& scores) const override;
};

}  // namespace flotilla::scheduler
