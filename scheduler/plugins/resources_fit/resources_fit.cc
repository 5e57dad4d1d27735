#include "scheduler/plugins/resources_fit/resources_fit.h"

namespace flotilla::scheduler {

Status ResourcesFit::filter(CycleState& state, const SchedulingUnit&,
                            const ClusterInfo& cluster) const {
  if (state.placed(cluster)) return Status::success();
  for (const auto& [name, request] : state.requests) {
    const ResourceAmount* have = cluster.resources.find(name);
    if (!have || have->available() < request) return Status::unschedulable("Insufficient " + name);
  }
  return Status::success();
}

}  // namespace flotilla::scheduler
