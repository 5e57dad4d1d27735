#pragma once

#include "scheduler/framework/plugin.h"

namespace flotilla::scheduler {

// Filter: a cluster must have every field/label the policy spreads by (a cluster without a zone
// cannot count towards zones). Select: placement.spreadConstraints — a bounded search over group
// combinations (best-ranked first, a group ranking by its best cluster) for a selection in which
// every constraint's minGroups..maxGroups, the `cluster` bounds and maxClusters hold and, for
// room-limited divisions, the clusters hold the replicas (docs/scheduler.md).
class SpreadConstraint final : public FilterPlugin, public SelectPlugin {
 public:
  static constexpr const char* kName = "SpreadConstraint";
  std::string_view name() const override { return kName; }
  Status filter(CycleState& state, const SchedulingUnit& unit,
                const ClusterInfo& cluster) const override;
  Status select(CycleState& state, const SchedulingUnit& unit,
                std::vector<ScoredCluster>& clusters) const override;
};

}  // namespace flotilla::scheduler
