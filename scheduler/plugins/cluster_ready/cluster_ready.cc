#include "scheduler/plugins/cluster_ready/cluster_ready.h"

#include "scheduler/framework/cluster_fields.h"

namespace flotilla::scheduler {

Status ClusterReady::filter(CycleState&, const SchedulingUnit& unit,
                            const api::FederatedCluster& cluster) const {
  if (isClusterReady(cluster) || unit.placedOn(cluster.metadata.name)) return Status::success();
  return Status::unschedulable("cluster(s) were not ready");
}

}  // namespace flotilla::scheduler
