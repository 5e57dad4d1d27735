#pragma once

#include "scheduler/framework/plugin.h"

namespace flotilla::scheduler {

// Filter: one replica's requests fit the cluster's available resources (allocatable - allocated -
// allocating). Clusters already running the workload pass: their replicas (running or pending) are
// already counted as allocated or allocating, and the replica planner decides how many they keep.
// Clusters whose capacity is unknown are kept out with a reason of their own: those that reported
// no resources yet (when the workload has requests or is divided by capacity), and, for a division
// by capacity of a workload without requests, those reporting no allocatable pods.
class ResourcesFit final : public FilterPlugin {
 public:
  static constexpr const char* kName = "ResourcesFit";
  std::string_view name() const override { return kName; }
  Status filter(CycleState& state, const SchedulingUnit& unit,
                const ClusterInfo& cluster) const override;
};

}  // namespace flotilla::scheduler
