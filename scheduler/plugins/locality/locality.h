#pragma once

#include "scheduler/framework/plugin.h"

namespace flotilla::scheduler {

// Score: 100 for clusters already running the workload, so rescheduling prefers to stay put.
class Locality final : public ScorePlugin {
 public:
  static constexpr const char* kName = "Locality";
  std::string_view name() const override { return kName; }
  int64_t score(CycleState& state, const SchedulingUnit&,
                const ClusterInfo& cluster) const override {
    return state.placed(cluster) ? kMaxClusterScore : 0;
  }
};

}  // namespace flotilla::scheduler
