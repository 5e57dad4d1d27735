#pragma once

#include "scheduler/framework/plugin.h"

namespace flotilla::scheduler {

// Filter: a cluster must have every field/label the policy spreads by (a cluster without a zone
// cannot count towards zones). Select: placement.spreadConstraints — for each region/zone/
// provider/label constraint, keep the best groups (a group ranks by its best cluster's score) up
// to maxGroups, failing when fewer than minGroups exist; then the `cluster` constraint keeps
// between minGroups and maxGroups clusters, taking the best cluster of every kept group first so
// the placement really spans them.
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
