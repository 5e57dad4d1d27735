#pragma once

#include "scheduler/framework/plugin.h"

namespace flotilla::scheduler {

// Filter: the member must serve the workload's API (status.apiEnablements lists its group/version
// and kind). Clusters already running it pass, so a discovery hiccup never evicts a workload.
class APIEnablement final : public FilterPlugin {
 public:
  static constexpr const char* kName = "APIEnablement";
  std::string_view name() const override { return kName; }
  Status filter(CycleState& state, const SchedulingUnit& unit,
                const ClusterInfo& cluster) const override;
};

}  // namespace flotilla::scheduler
