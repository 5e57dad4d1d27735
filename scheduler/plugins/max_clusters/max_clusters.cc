#include "scheduler/plugins/max_clusters/max_clusters.h"

#include <algorithm>

namespace flotilla::scheduler {

Status MaxClusters::select(CycleState& state, const SchedulingUnit& unit,
                           std::vector<ScoredCluster>& clusters) const {
  const int32_t max = unit.placement.maxClusters.value_or(0);
  if (max <= 0 || static_cast<int64_t>(clusters.size()) <= max) return Status::success();
  std::stable_partition(clusters.begin(), clusters.end(),
                        [&](const ScoredCluster& c) { return state.placed(*c.info); });
  clusters.resize(max);
  // Give the survivors back in score order.
  std::stable_sort(
      clusters.begin(), clusters.end(),
      [](const ScoredCluster& a, const ScoredCluster& b) { return a.score > b.score; });
  return Status::success();
}

}  // namespace flotilla::scheduler
