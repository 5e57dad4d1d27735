#pragma once

#include "scheduler/framework/plugin.h"

namespace flotilla::scheduler {

// Filter: clusters must be Ready, except those already running the workload (moving replicas off
// a NotReady cluster is failover's decision, made with a grace period, not the filter's).
class ClusterReady final : public FilterPlugin {
 public:
  static constexpr const char* kName = "ClusterReady";
  std::string_view name() const override { return kName; }
  Status filter(CycleState& state, const SchedulingUnit& unit,
                const ClusterInfo& cluster) const override;
};

}  // namespace flotilla::scheduler
