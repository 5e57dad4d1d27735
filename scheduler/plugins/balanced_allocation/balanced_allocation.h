#pragma once

#include "scheduler/framework/plugin.h"

namespace flotilla::scheduler {

// Score: prefers clusters whose CPU and memory would be used in balance after one more replica:
// (1 - standard deviation of the used fractions) * 100, as kube-scheduler's
// NodeResourcesBalancedAllocation.
class BalancedAllocation final : public ScorePlugin {
 public:
  static constexpr const char* kName = "BalancedAllocation";
  std::string_view name() const override { return kName; }
  int64_t score(CycleState& state, const SchedulingUnit& unit,
                const ClusterInfo& cluster) const override;
};

}  // namespace flotilla::scheduler
