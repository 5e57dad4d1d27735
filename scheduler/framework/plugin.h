// Plugin interfaces, one per extension point (docs/design.md §4.3, seed 004). A plugin object may
// implement several (TaintToleration filters and scores); the registry creates it once per profile.
#pragma once

#include <boost/json/value.hpp>
#include <memory>
#include <string_view>

#include "scheduler/framework/types.h"

namespace flotilla::scheduler {

inline constexpr int64_t kMaxClusterScore = 100;

class Plugin {
 public:
  virtual ~Plugin() = default;
  virtual std::string_view name() const = 0;
  // Runs once per cycle before any extension point: compute what several calls share.
  virtual void prepare(CycleState&, const SchedulingUnit&, const ClusterSnapshot&) {}
};

class FilterPlugin : public virtual Plugin {
 public:
  // Success keeps the cluster; Unschedulable removes it with a reason users read in
  // `kubectl get rb -o yaml` (status.diagnosis) and in the NoClusterFit message.
  virtual Status filter(CycleState& state, const SchedulingUnit& unit,
                        const ClusterInfo& cluster) const = 0;
};

class ScorePlugin : public virtual Plugin {
 public:
  // 0..100 unless normalize() maps raw scores there.
  virtual int64_t score(CycleState& state, const SchedulingUnit& unit,
                        const ClusterInfo& cluster) const = 0;
  // Optional: rescale raw scores of all feasible clusters (same order as `clusters`) to 0..100.
  virtual void normalize(CycleState&, const SchedulingUnit&, const std::vector<ScoredCluster>&,
                         std::vector<int64_t>& /*scores*/) const {}
};

class SelectPlugin : public virtual Plugin {
 public:
  // Narrows the scored clusters (sorted by score, best first) to those that will get replicas.
  virtual Status select(CycleState& state, const SchedulingUnit& unit,
                        std::vector<ScoredCluster>& clusters) const = 0;
};

class ReplicasPlugin : public virtual Plugin {
 public:
  // Fills or corrects `assignment` (cluster -> replicas) for the selected clusters. Plugins run in
  // order; each decides whether the unit concerns it (Duplicated vs Divided, DoNotSchedule spread).
  virtual Status assign(CycleState& state, const SchedulingUnit& unit,
                        const std::vector<ScoredCluster>& selected,
                        PlannerResult& assignment) const = 0;
};

}  // namespace flotilla::scheduler
