#include "scheduler/plugins/taint_toleration/taint_toleration.h"

#include <algorithm>

namespace flotilla::scheduler {

Status TaintToleration::filter(CycleState& state, const SchedulingUnit& unit,
                               const ClusterInfo& cluster) const {
  static const std::vector<std::string> kNew = {"NoSchedule", "NoExecute"};
  static const std::vector<std::string> kPlaced = {"NoExecute"};
  const auto& taints = cluster.cluster->spec.taints;
  if (taints.empty()) return Status::success();
  const auto& effects = state.placed(cluster) ? kPlaced : kNew;
  if (const api::Taint* t =
          api::firstUntoleratedTaint(taints, unit.placement.clusterTolerations, effects)) {
    return Status::unschedulable("cluster(s) had untolerated taint {" + t->str() + "}");
  }
  return Status::success();
}

int64_t TaintToleration::score(CycleState&, const SchedulingUnit& unit,
                               const ClusterInfo& cluster) const {
  int64_t intolerable = 0;
  for (const auto& taint : cluster.cluster->spec.taints) {
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
