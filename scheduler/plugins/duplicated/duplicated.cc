#include "scheduler/plugins/duplicated/duplicated.h"

namespace flotilla::scheduler {

Status Duplicated::assign(CycleState&, const SchedulingUnit& unit,
                          const std::vector<ScoredCluster>& selected,
                          PlannerResult& assignment) const {
  if (!unit.placement.replicaScheduling || unit.placement.replicaScheduling->type != "Duplicated") {
    return Status::success();
  }
  for (const auto& sc : selected) assignment.plan[sc.name()] = unit.replicas;
  return Status::success();
}

}  // namespace flotilla::scheduler
