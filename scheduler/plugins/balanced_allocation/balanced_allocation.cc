#include "scheduler/plugins/balanced_allocation/balanced_allocation.h"

#include <cmath>

#include "scheduler/plugins/least_allocated/least_allocated.h"

namespace flotilla::scheduler {

int64_t BalancedAllocation::score(CycleState& state, const SchedulingUnit&,
                                  const ClusterInfo& cluster) const {
  const double cpu = usedFraction(cluster, "cpu", state.requests);
  const double memory = usedFraction(cluster, "memory", state.requests);
  if (cpu < 0 || memory < 0) return 0;
  // Two resources: the standard deviation is half their difference.
  const double stddev = std::abs(cpu - memory) / 2.0;
  return static_cast<int64_t>(std::lround((1.0 - stddev) * kMaxClusterScore));
}

}  // namespace flotilla::scheduler
