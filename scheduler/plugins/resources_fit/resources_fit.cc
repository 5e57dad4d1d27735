#include "scheduler/plugins/resources_fit/resources_fit.h"

namespace flotilla::scheduler {

Status ResourcesFit::filter(CycleState& state, const SchedulingUnit&,
                            const ClusterInfo& cluster) const {
  // Already holding the workload: its own pods (running and pending) are part of allocated and
  // allocating, so they must not push it off; the planner decides how many it keeps.
  if (state.placed(cluster)) return Status::success();
  // Capacity Flotilla does not know must not attract the workload: a cluster that has reported
  // nothing yet (just joined, status not collected), or, for a capacity-aware division of a
  // workload without requests, one reporting no allocatable pods.
  const bool byCapacity = state.dividesByCapacity;
  if (cluster.resources.amounts().empty()) {
    if (byCapacity || !state.requests.empty()) {
      return Status::unschedulable("cluster(s) had not reported their resources yet");
    }
    return Status::success();
  }
  for (const auto& [name, request] : state.requests) {
    const ResourceAmount* have = cluster.resources.find(name);
    if (!have || have->available() < request) return Status::unschedulable("Insufficient " + name);
  }
  if (byCapacity && !capacityKnown(cluster.resources, state.requests)) {
    return Status::unschedulable("cluster(s) did not report allocatable pods");
  }
  return Status::success();
}

}  // namespace flotilla::scheduler
