#pragma once

#include "scheduler/framework/plugin.h"

namespace flotilla::scheduler {

// Filter: placement.clusterAffinity — clusterNames (if any) must list the cluster, exclude must
// not, labelSelector must match its labels, fieldSelector its provider/region/zone. All given
// criteria must hold; an empty affinity matches every cluster.
// Score: clusters named in clusterNames are preferred in the order listed (first = 100).
class ClusterAffinity final : public FilterPlugin, public ScorePlugin {
 public:
  static constexpr const char* kName = "ClusterAffinity";
  std::string_view name() const override { return kName; }
  void prepare(CycleState& state, const SchedulingUnit& unit,
               const ClusterSnapshot& snapshot) override;
  Status filter(CycleState& state, const SchedulingUnit& unit,
                const ClusterInfo& cluster) const override;
  int64_t score(CycleState& state, const SchedulingUnit& unit,
                const ClusterInfo& cluster) const override;
};

}  // namespace flotilla::scheduler
