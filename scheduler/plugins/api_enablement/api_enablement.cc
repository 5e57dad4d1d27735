#include "scheduler/plugins/api_enablement/api_enablement.h"

namespace flotilla::scheduler {

Status APIEnablement::filter(CycleState&, const SchedulingUnit& unit,
                             const api::FederatedCluster& cluster) const {
  if (unit.kind.empty() || unit.placedOn(cluster.metadata.name)) return Status::success();
  for (const auto& group : cluster.status.apiEnablements) {
    if (group.groupVersion != unit.apiVersion) continue;
    for (const auto& resource : group.resources) {
      if (resource.kind == unit.kind) return Status::success();
    }
  }
  return Status::unschedulable("cluster(s) did not have the API resource " + unit.apiVersion + "/" +
                               unit.kind);
}

}  // namespace flotilla::scheduler
