#include "scheduler/plugins/balanced_allocation/balanced_allocation.h"

#include <cmath>

#include "scheduler/plugins/least_allocated/least_allocated.h"

namespace flotilla::scheduler {

int64_t BalancedAllocation::score(CycleState&, const SchedulingUnit& unit,
                                  const api::FederatedCluster& cluster) const {
  const auto cpu = usedFractionPpm(cluster.status.resources, "cpu", unit.resourceRequest);
  const auto memory = usedFractionPpm(cluster.status.resources, "memory", unit.resourceRequest);
  if (!cpu || !memory) return 0;
  // Two resources: the standard deviation is half their difference.
  const double stddev = std::abs(static_cast<double>(*cpu - *memory)) / 2.0 / 1'000'000.0;
  return static_cast<int64_t>(std::lround((1.0 - stddev) * kMaxClusterScore));
}

}  // namespace flotilla::scheduler
