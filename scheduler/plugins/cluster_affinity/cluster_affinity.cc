#include "scheduler/plugins/cluster_affinity/cluster_affinity.h"

#include <algorithm>
#include <optional>

#include "api/label_selector.h"
#include "scheduler/framework/cluster_fields.h"

namespace flotilla::scheduler {
namespace {

// The label selector compiled once per cycle.
struct AffinityState {
  std::optional<api::Selector> selector;
  bool invalid = false;
};

}  // namespace

void ClusterAffinity::prepare(CycleState& state, const SchedulingUnit& unit,
                              const ClusterSnapshot&) {
  AffinityState s;
  const auto& affinity = unit.placement.clusterAffinity;
  if (affinity && affinity->labelSelector) {
    auto compiled = api::Selector::fromLabelSelector(*affinity->labelSelector);
    if (compiled) {
      s.selector = std::move(*compiled);
    } else {
      s.invalid = true;
    }
  }
  state.put(std::move(s));
}

Status ClusterAffinity::filter(CycleState& state, const SchedulingUnit& unit,
                               const ClusterInfo& info) const {
  const auto& affinity = unit.placement.clusterAffinity;
  if (!affinity) return Status::success();
  static const std::string kMismatch =
      "cluster(s) didn't match the placement cluster affinity constraints";
  const AffinityState* s = state.get<AffinityState>();
  if (s && s->invalid) return Status::error("invalid clusterAffinity.labelSelector");
  if (!affinitySelects(*affinity, *info.cluster, s && s->selector ? &*s->selector : nullptr))
    return Status::unschedulable(kMismatch);
  return Status::success();
}

int64_t ClusterAffinity::score(CycleState&, const SchedulingUnit& unit,
                               const ClusterInfo& cluster) const {
  const auto& affinity = unit.placement.clusterAffinity;
  if (!affinity || affinity->clusterNames.empty()) return 0;
  const auto& names = affinity->clusterNames;
  auto it = std::find(names.begin(), names.end(), cluster.name());
  if (it == names.end()) return 0;
  const auto n = static_cast<int64_t>(names.size());
  return kMaxClusterScore * (n - (it - names.begin())) / n;
}

}  // namespace flotilla::scheduler
