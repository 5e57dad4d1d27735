#pragma once

#include "scheduler/framework/plugin.h"

namespace flotilla::scheduler {

// Score: 100 for clusters already running the workload, so rescheduling prefers to stay put.
class Locality final : public ScorePlugin {
 public:
  static constexpr const char* kName = "Locality";
  std::string_view name() const override { return kName; }
  int64_t score(CycleState&, const SchedulingUnit& unit,
                const api::FederatedCluster& cluster) const override {
    return unit.placedOn(cluster.metadata.name) ? kMaxClusterScore : 0;
  }
};

}  // namespace flotilla::scheduler
