#pragma once

#include "scheduler/framework/plugin.h"

namespace flotilla::scheduler {

// Filter: one replica's requests fit the cluster's available resources (allocatable - allocated -
// allocating). Clusters already running the workload pass: their replicas are already counted as
// allocated, and the replica planner decides how many they keep.
class ResourcesFit final : public FilterPlugin {
 public:
  static constexpr const char* kName = "ResourcesFit";
  std::string_view name() const override { return kName; }
  Status filter(CycleState& state, const SchedulingUnit& unit,
                const ClusterInfo& cluster) const override;
};

}  // namespace flotilla::scheduler
