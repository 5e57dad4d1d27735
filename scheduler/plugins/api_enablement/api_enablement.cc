#include "scheduler/plugins/api_enablement/api_enablement.h"

namespace flotilla::scheduler {

Status APIEnablement::filter(CycleState& state, const SchedulingUnit& unit,
                             const ClusterInfo& cluster) const {
  if (unit.kind.empty() || state.placed(cluster)) return Status::success();
  for (const auto& group : cluster.cluster->status.apiEnablements) {
    if (group.groupVersion != unit.apiVersion) continue;
    for (const auto& resource : group.resources) {
      if (resource.kind == unit.kind) return Status::success();
    }
  }
  return Status::unschedulable("cluster(s) did not have the API resource " + unit.apiVersion + "/" +
                               unit.kind);
}

}  // namespace flotilla::scheduler
