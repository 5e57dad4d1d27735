#include "scheduler/plugins/resources_fit/resources_fit.h"

#include "scheduler/available_replicas.h"

namespace flotilla::scheduler {

Status ResourcesFit::filter(CycleState&, const SchedulingUnit& unit,
                            const api::FederatedCluster& cluster) const {
  if (unit.placedOn(cluster.metadata.name)) return Status::success();
  for (const auto& [name, request] : unit.resourceRequest) {
    if (request.sign() <= 0) continue;
    const auto available = availableResource(cluster.status.resources, name);
    if (!available || *available < request) return Status::unschedulable("Insufficient " + name);
  }
  return Status::success();
}

}  // namespace flotilla::scheduler
