#pragma once

#include "scheduler/framework/plugin.h"

namespace flotilla::scheduler {

// Select: at most placement.maxClusters clusters (absent or 0: no limit). Clusters already running
// the workload are kept first (best score first), then the best of the others.
class MaxClusters final : public SelectPlugin {
 public:
  static constexpr const char* kName = "MaxClusters";
  std::string_view name() const override { return kName; }
  Status select(CycleState& state, const SchedulingUnit& unit,
                std::vector<ScoredCluster>& clusters) const override;
};

}  // namespace flotilla::scheduler
