#include "scheduler/plugins/cluster_ready/cluster_ready.h"

namespace flotilla::scheduler {

Status ClusterReady::filter(CycleState& state, const SchedulingUnit&,
                            const ClusterInfo& cluster) const {
  if (cluster.ready || state.placed(cluster)) return Status::success();
  return Status::unschedulable("cluster(s) were not ready");
}

}  // namespace flotilla::scheduler
