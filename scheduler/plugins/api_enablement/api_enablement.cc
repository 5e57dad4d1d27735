#include "scheduler/plugins/api_enablement/api_enablement.h"

#include "api/names.h"

namespace flotilla::scheduler {

Status APIEnablement::filter(CycleState& state, const SchedulingUnit& unit,
                             const ClusterInfo& cluster) const {
  if (unit.kind.empty() || state.placed(cluster)) return Status::success();
  // A custom resource's CRD may be on its way to the cluster (propagated by Flotilla too, and a
  // member's discovery is only re-read every minute): the sync waits for it there, as
  // PendingCreate, instead of the cluster being filtered out (docs/decisions.md).
  const auto slash = unit.apiVersion.find('/');
  if (slash != std::string::npos && !api::builtInGroup(unit.apiVersion.substr(0, slash)))
    return Status::success();
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
