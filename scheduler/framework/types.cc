#include "scheduler/framework/types.h"

#include <algorithm>

namespace flotilla::scheduler {

int64_t unitRoom(const CycleState& state, const SchedulingUnit& unit, const ClusterInfo& cluster) {
  int64_t room = replicaRoom(cluster.resources, state.requests, state.current[cluster.index]);
  if (!unit.estimatedCapacity.empty()) {
    auto it = unit.estimatedCapacity.find(cluster.name());
    if (it != unit.estimatedCapacity.end()) room = std::min(room, std::max<int64_t>(it->second, 0));
  }
  return room;
}

}  // namespace flotilla::scheduler
