#pragma once

#include "scheduler/framework/plugin.h"

namespace flotilla::scheduler {

// Replicas (type Duplicated): every selected cluster runs all replicas.
class Duplicated final : public ReplicasPlugin {
 public:
  static constexpr const char* kName = "Duplicated";
  std::string_view name() const override { return kName; }
  Status assign(CycleState& state, const SchedulingUnit& unit,
                const std::vector<ScoredCluster>& selected,
                PlannerResult& assignment) const override;
};

}  // namespace flotilla::scheduler
