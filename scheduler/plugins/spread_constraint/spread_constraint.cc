#include "scheduler/plugins/spread_constraint/spread_constraint.h"

#include <algorithm>

#include "scheduler/framework/cluster_fields.h"
#include "scheduler/framework/interner.h"

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
                                const ClusterInfo& cluster) const {
  for (const auto& c : unit.placement.spreadConstraints) {
    if (c.spreadByField == "cluster") continue;
    if (!hasClusterField(*cluster.cluster, keyOf(c))) {
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
  // Per group constraint: each remaining cluster's group id, and the kept groups.
  struct Grouping {
    const api::SpreadConstraint* constraint;
    std::string key;
    std::vector<int> groupOf;  // parallel to `clusters` after the filtering below
    std::vector<int> kept;     // group ids, best first
  };
  std::vector<Grouping> groupings;

  for (const auto& c : constraints) {
    if (c.spreadByField == "cluster") {
      byCluster = &c;
      continue;
    }
    Grouping g{&c, keyOf(c), {}, {}};
    Interner groups;
    g.groupOf.reserve(clusters.size());
    // Clusters arrive best first, so a group's rank is the rank of its best cluster.
    for (const auto& sc : clusters)
      g.groupOf.push_back(groups.id(clusterField(*sc.cluster, g.key)));
    const int64_t available = static_cast<int64_t>(groups.size());
    const int64_t min = c.minGroups.value_or(1);
    if (available < min) {
      return Status::unschedulable("spread constraint " + describe(c) + ": " +
                                   std::to_string(available) +
                                   " group(s) available, minGroups is " + std::to_string(min));
    }
    const int keep = static_cast<int>(
        std::min(available, static_cast<int64_t>(c.maxGroups.value_or(INT32_MAX))));
    for (int id = 0; id < keep; ++id) g.kept.push_back(id);  // ids are assigned in rank order
    // Drop clusters outside the kept groups, and keep earlier groupings' ids aligned.
    std::vector<size_t> survivors;
    for (size_t i = 0; i < clusters.size(); ++i) {
      if (g.groupOf[i] < keep) survivors.push_back(i);
    }
    if (survivors.size() != clusters.size()) {
      auto compact = [&](auto& v) {
        std::remove_reference_t<decltype(v)> out;
        out.reserve(survivors.size());
        for (size_t i : survivors) out.push_back(std::move(v[i]));
        v = std::move(out);
      };
      compact(clusters);
      compact(g.groupOf);
      for (auto& earlier : groupings) compact(earlier.groupOf);
    }
    groupings.push_back(std::move(g));
  }

  // Every group constraint must still span its minGroups after later constraints narrowed the
  // clusters (a provider constraint can leave fewer regions than the region constraint needs).
  auto spanCheck = [&](const std::vector<bool>* chosen) -> Status {
    for (const auto& g : groupings) {
      std::vector<char> seen(g.kept.size(), 0);
      int64_t spanned = 0;
      for (size_t i = 0; i < clusters.size(); ++i) {
        if (chosen && !(*chosen)[i]) continue;
        char& s = seen[static_cast<size_t>(g.groupOf[i])];
        if (!s) {
          s = 1;
          ++spanned;
        }
      }
      const int64_t min = g.constraint->minGroups.value_or(1);
      if (spanned < min) {
        return Status::unschedulable("spread constraints conflict: the selected clusters span " +
                                     std::to_string(spanned) + " " + describe(*g.constraint) +
                                     " group(s), minGroups is " + std::to_string(min));
      }
    }
    return Status::success();
  };

  // How many clusters: the cluster constraint's bounds, and maxClusters, which applies next.
  int64_t min = 1;
  int64_t max = INT32_MAX;
  if (byCluster) {
    min = byCluster->minGroups.value_or(1);
    max = byCluster->maxGroups.value_or(INT32_MAX);
  }
  if (unit.placement.maxClusters.value_or(0) > 0) {
    max = std::min<int64_t>(max, *unit.placement.maxClusters);
  }
  const int64_t available = static_cast<int64_t>(clusters.size());
  if (byCluster && available < min) {
    return Status::unschedulable("spread constraint cluster: " + std::to_string(available) +
                                 " cluster(s) available, minGroups is " + std::to_string(min));
  }
  if (available <= max) return spanCheck(nullptr);

  // Too many clusters. First the best cluster of each group a constraint needs (its minGroups best
  // groups), then the best of the rest by score; the result may span more groups than required.
  std::vector<bool> chosen(clusters.size(), false);
  int64_t count = 0;
  for (const auto& g : groupings) {
    const size_t required =
        std::min(g.kept.size(), static_cast<size_t>(g.constraint->minGroups.value_or(1)));
    std::vector<char> covered(g.kept.size(), 0);
    for (size_t i = 0; i < clusters.size(); ++i) {
      if (chosen[i]) covered[static_cast<size_t>(g.groupOf[i])] = 1;
    }
    for (size_t i = 0; i < clusters.size(); ++i) {
      const auto group = static_cast<size_t>(g.groupOf[i]);
      if (group < required && !covered[group]) {
        covered[group] = 1;
        chosen[i] = true;
        ++count;
      }
    }
  }
  if (count > max) {
    return Status::unschedulable("spread constraints need " + std::to_string(count) +
                                 " clusters to span their minGroups, but at most " +
                                 std::to_string(max) + " may be selected");
  }
  for (size_t i = 0; i < clusters.size() && count < max; ++i) {
    if (!chosen[i]) {
      chosen[i] = true;
      ++count;
    }
  }
  if (Status s = spanCheck(&chosen); !s.ok()) return s;
  std::vector<ScoredCluster> kept;
  kept.reserve(static_cast<size_t>(count));
  for (size_t i = 0; i < clusters.size(); ++i) {
    if (chosen[i]) kept.push_back(std::move(clusters[i]));
  }
  clusters = std::move(kept);
  return Status::success();
}

}  // namespace flotilla::scheduler
