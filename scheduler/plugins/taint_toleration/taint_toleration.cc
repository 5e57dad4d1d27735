#include "scheduler/plugins/taint_toleration/taint_toleration.h"

#include <algorithm>

namespace flotilla::scheduler {

Status TaintToleration::filter(CycleState&, const SchedulingUnit& unit,
                               const api::FederatedCluster& cluster) const {
  static const std::vector<std::string> kNew = {"NoSchedule", "NoExecute"};
  static const std::vector<std::string> kPlaced = {"NoExecute"};
  const auto& effects = unit.placedOn(cluster.metadata.name) ? kPlaced : kNew;
  if (const api::Taint* t = api::firstUntoleratedTaint(
          cluster.spec.taints, unit.placement.clusterTolerations, effects)) {
    return Status::unschedulable("cluster(s) had untolerated taint {" + t->str() + "}");
  }
  return Status::success();
}

int64_t TaintToleration::score(CycleState&, const SchedulingUnit& unit,
                               const api::FederatedCluster& cluster) const {
  int64_t intolerable = 0;
  for (const auto& taint : cluster.spec.taints) {
    if (taint.effect == "PreferNoSchedule" &&
        !api::toleratesTaint(unit.placement.clusterTolerations, taint)) {
      ++intolerable;
    }
  }
  return intolerable;  // raw: normalized (reversed) below
}

void TaintToleration::normalize(CycleState&, const SchedulingUnit&,
                                const std::vector<ScoredCluster>&,
                                std::vector<int64_t>& scores) const {
  const int64_t max = scores.empty() ? 0 : *std::max_element(scores.begin(), scores.end());
  for (auto& s : scores) s = max == 0 ? kMaxClusterScore : kMaxClusterScore * (max - s) / max;
}

}  // namespace flotilla::scheduler
