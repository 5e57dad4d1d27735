#include "scheduler/plugins/spread_constraint/spread_constraint.h"

#include <algorithm>
#include <map>
#include <set>

#include "scheduler/framework/cluster_fields.h"

namespace flotilla::scheduler {
namespace {

std::string keyOf(const api::SpreadConstraint& c) {
  return c.spreadByField.empty() ? c.spreadByLabel : c.spreadByField;
}

std::string describe(const api::SpreadConstraint& c) {
  return c.spreadByField.empty() ? "label " + c.spreadByLabel : c.spreadByField;
}

}  // namespace

Status SpreadConstraint::filter(CycleState&, const SchedulingUnit& unit,
                                const api::FederatedCluster& cluster) const {
  for (const auto& c : unit.placement.spreadConstraints) {
    if (c.spreadByField == "cluster") continue;
    if (!hasClusterField(cluster, keyOf(c))) {
      return Status::unschedulable("cluster(s) did not have the spread " +
                                   std::string(c.spreadByField.empty() ? "label " : "field ") +
                                   keyOf(c));
    }
  }
  return Status::success();
}

Status SpreadConstraint::select(CycleState&, const SchedulingUnit& unit,
                                std::vector<ScoredCluster>& clusters) const {
  const auto& constraints = unit.placement.spreadConstraints;
  if (constraints.empty()) return Status::success();
  const api::SpreadConstraint* byCluster = nullptr;
  // Kept groups per group constraint, to guarantee each is spanned below.
  std::vector<std::pair<std::string, std::set<std::string>>> keptGroups;

  for (const auto& c : constraints) {
    if (c.spreadByField == "cluster") {
      byCluster = &c;
      continue;
    }
    const std::string key = keyOf(c);
    // Groups in rank order: clusters arrive best first, so first appearance = best cluster.
    std::vector<std::string> order;
    std::set<std::string> seen;
    for (const auto& sc : clusters) {
      const std::string& value = clusterField(*sc.cluster, key);
      if (seen.insert(value).second) order.push_back(value);
    }
    const int64_t available = static_cast<int64_t>(order.size());
    const int64_t min = c.minGroups.value_or(1);
    if (available < min) {
      return Status::unschedulable("spread constraint " + describe(c) + ": " +
                                   std::to_string(available) +
                                   " group(s) available, minGroups is " + std::to_string(min));
    }
    const int64_t keep = std::min(available, static_cast<int64_t>(c.maxGroups.value_or(INT32_MAX)));
    std::set<std::string> kept(order.begin(), order.begin() + keep);
    std::erase_if(clusters, [&](const ScoredCluster& sc) {
      return !kept.count(clusterField(*sc.cluster, key));
    });
    keptGroups.emplace_back(key, std::move(kept));
  }

  if (!byCluster) return Status::success();
  const int64_t available = static_cast<int64_t>(clusters.size());
  const int64_t min = byCluster->minGroups.value_or(1);
  if (available < min) {
    return Status::unschedulable("spread constraint cluster: " + std::to_string(available) +
                                 " cluster(s) available, minGroups is " + std::to_string(min));
  }
  const int64_t max = byCluster->maxGroups.value_or(INT32_MAX);
  if (available <= max) return Status::success();

  // Too many clusters: first the best cluster of every kept group, then the best of the rest.
  std::vector<bool> chosen(clusters.size(), false);
  int64_t count = 0;
  for (const auto& [key, groups] : keptGroups) {
    for (const auto& group : groups) {
      bool covered = false;
      for (size_t i = 0; i < clusters.size() && !covered; ++i) {
        covered = chosen[i] && clusterField(*clusters[i].cluster, key) == group;
      }
      for (size_t i = 0; i < clusters.size() && !covered; ++i) {
        if (clusterField(*clusters[i].cluster, key) == group) {
          chosen[i] = true;
          covered = true;
          ++count;
        }
      }
    }
  }
  if (count > max) {
    return Status::unschedulable("spread constraints need " + std::to_string(count) +
                                 " clusters to span every group, but cluster maxGroups is " +
                                 std::to_string(max));
  }
  for (size_t i = 0; i < clusters.size() && count < max; ++i) {
    if (!chosen[i]) {
      chosen[i] = true;
      ++count;
    }
  }
  std::vector<ScoredCluster> kept;
  for (size_t i = 0; i < clusters.size(); ++i) {
    if (chosen[i]) kept.push_back(std::move(clusters[i]));
  }
  clusters = std::move(kept);
  return Status::success();
}

}  // namespace flotilla::scheduler
