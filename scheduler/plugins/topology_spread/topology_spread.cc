#include "scheduler/plugins/topology_spread/topology_spread.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "scheduler/framework/cluster_fields.h"
#include "scheduler/framework/interner.h"

namespace flotilla::scheduler {
namespace {

// Replicas per domain of each ScheduleAnyway constraint, from the current placement. Topology
// fields count by the snapshot's interned id; label keys by value.
struct SpreadScoreState {
  std::vector<const api::TopologySpreadConstraint*> constraints;
  std::vector<std::optional<TopologyField>> fields;
  std::vector<std::vector<int64_t>> fieldCounts;            // by field id
  std::vector<std::map<std::string, int64_t>> labelCounts;  // by label value
  size_t snapshotSize = 0;
};

}  // namespace

void TopologySpread::prepare(CycleState& state, const SchedulingUnit& unit,
                             const ClusterSnapshot& snapshot) {
  SpreadScoreState s;
  for (const auto& c : unit.placement.topologySpreadConstraints) {
    if (c.whenUnsatisfiable != "ScheduleAnyway") continue;
    s.constraints.push_back(&c);
    s.fields.push_back(topologyField(c.topologyKey));
  }
  if (s.constraints.empty()) return;
  const size_t n = s.constraints.size();
  s.fieldCounts.resize(n);
  s.labelCounts.resize(n);
  for (size_t i = 0; i < n; ++i) {
    if (s.fields[i]) s.fieldCounts[i].assign(snapshot.fieldValueCount(*s.fields[i]), 0);
  }
  for (const auto& info : snapshot.clusters()) {
    const int64_t replicas = state.current[info.index];
    if (replicas <= 0) continue;
    for (size_t i = 0; i < n; ++i) {
      if (s.fields[i]) {
        const int id = info.fieldIds[static_cast<size_t>(*s.fields[i])];
        if (id >= 0) s.fieldCounts[i][static_cast<size_t>(id)] += replicas;
      } else if (hasClusterField(*info.cluster, s.constraints[i]->topologyKey)) {
        s.labelCounts[i][clusterField(*info.cluster, s.constraints[i]->topologyKey)] += replicas;
      }
    }
  }
  state.put(std::move(s));
}

int64_t TopologySpread::score(CycleState&, const SchedulingUnit&, const ClusterInfo&) const {
  return 0;  // computed in normalize(), which sees every feasible cluster (domain sizes)
}

void TopologySpread::normalize(CycleState& state, const SchedulingUnit&,
                               const std::vector<ScoredCluster>& clusters,
                               std::vector<int64_t>& scores) const {
  const SpreadScoreState* s = state.get<SpreadScoreState>();
  if (!s || s->constraints.empty()) {
    std::fill(scores.begin(), scores.end(), 0);
    return;
  }
  // Per constraint: each feasible cluster's domain id (-1 without the key), the replicas already
  // in each domain, and the normalizing weight log(number of domains + 2).
  const size_t n = clusters.size();
  std::vector<std::vector<int>> domainOf(s->constraints.size(), std::vector<int>(n, -1));
  std::vector<std::vector<int64_t>> countOf(s->constraints.size());
  std::vector<double> weights;
  for (size_t i = 0; i < s->constraints.size(); ++i) {
    size_t domainCount = 0;
    if (s->fields[i]) {
      // Interned ids: count the distinct domains among feasible clusters with a bitmap.
      std::vector<bool> seen(s->fieldCounts[i].size(), false);
      for (size_t c = 0; c < n; ++c) {
        const int id = clusters[c].info->fieldIds[static_cast<size_t>(*s->fields[i])];
        domainOf[i][c] = id;
        if (id >= 0 && !seen[static_cast<size_t>(id)]) {
          seen[static_cast<size_t>(id)] = true;
          ++domainCount;
        }
      }
      countOf[i] = s->fieldCounts[i];
    } else {
      const std::string& key = s->constraints[i]->topologyKey;
      Interner domains;
      for (size_t c = 0; c < n; ++c) {
        if (hasClusterField(*clusters[c].cluster, key)) {
          domainOf[i][c] = domains.id(clusterField(*clusters[c].cluster, key));
        }
      }
      countOf[i].assign(domains.size(), 0);
      for (size_t d = 0; d < domains.size(); ++d) {
        auto it = s->labelCounts[i].find(domains.value(static_cast<int>(d)));
        if (it != s->labelCounts[i].end()) countOf[i][d] = it->second;
      }
      domainCount = domains.size();
    }
    weights.push_back(std::log(static_cast<double>(domainCount) + 2.0));
  }
  std::vector<bool> ignored(n, false);
  int64_t min = INT64_MAX;
  int64_t max = 0;
  for (size_t c = 0; c < n; ++c) {
    double raw = 0;
    for (size_t i = 0; i < s->constraints.size(); ++i) {
      const int domain = domainOf[i][c];
      if (domain < 0) {
        ignored[c] = true;
        break;
      }
      raw += static_cast<double>(countOf[i][static_cast<size_t>(domain)]) * weights[i] +
             (s->constraints[i]->maxSkew - 1);
    }
    scores[c] = static_cast<int64_t>(std::lround(raw));
    if (ignored[c]) continue;
    min = std::min(min, scores[c]);
    max = std::max(max, scores[c]);
  }
  for (size_t c = 0; c < n; ++c) {
    if (ignored[c]) {
      scores[c] = 0;
    } else if (max == 0) {
      scores[c] = kMaxClusterScore;
    } else {
      scores[c] = kMaxClusterScore * (max + min - scores[c]) / max;
    }
  }
}

Status TopologySpread::assign(CycleState& state, const SchedulingUnit& unit,
                              const std::vector<ScoredCluster>& selected,
                              PlannerResult& assignment) const {
  if (unit.placement.replicaScheduling && unit.placement.replicaScheduling->type == "Duplicated") {
    return Status::success();  // every cluster runs all replicas: nothing to move
  }
  for (const auto& c : unit.placement.topologySpreadConstraints) {
    if (c.whenUnsatisfiable != "DoNotSchedule") continue;
    // Domains of the selected clusters, and the clusters (best score first) in each.
    std::map<std::string, std::vector<const ScoredCluster*>> domains;
    for (const auto& sc : selected) {
      if (hasClusterField(*sc.cluster, c.topologyKey)) {
        domains[clusterField(*sc.cluster, c.topologyKey)].push_back(&sc);
      }
    }
    if (domains.size() < 2) continue;
    auto planned = [&](const std::string& cluster) {
      auto it = assignment.plan.find(cluster);
      return it == assignment.plan.end() ? int64_t{0} : it->second;
    };
    auto count = [&](const std::string& domain) {
      int64_t n = 0;
      for (const auto* sc : domains[domain]) n += planned(sc->name());
      return n;
    };
    // Room: the limits the Divided plugin planned with; clusters outside the plan take nothing.
    const ReplicaLimits* limits = state.get<ReplicaLimits>();
    auto room = [&](const ScoredCluster& sc) -> int64_t {
      if (!limits) return 0;
      auto it = limits->room.find(sc.name());
      return it == limits->room.end() ? 0 : it->second - planned(sc.name());
    };
    // Each step moves one replica from the fullest domain to the emptiest one that has room.
    for (int64_t step = 0; step <= unit.replicas; ++step) {
      std::string fullest;
      std::string emptiest;
      for (const auto& [domain, clusters] : domains) {
        if (fullest.empty() || count(domain) > count(fullest)) fullest = domain;
        if (emptiest.empty() || count(domain) < count(emptiest)) emptiest = domain;
      }
      const int64_t skew = count(fullest) - count(emptiest);
      if (skew <= c.maxSkew) break;
      const ScoredCluster* to = nullptr;
      for (const auto* sc : domains[emptiest]) {
        if (room(*sc) > 0) {
          to = sc;
          break;
        }
      }
      if (!to) {
        return Status::unschedulable("topology spread constraint on " + c.topologyKey +
                                     " (maxSkew " + std::to_string(c.maxSkew) +
                                     ") cannot be satisfied: " + c.topologyKey + " " + emptiest +
                                     " has no room for more replicas");
      }
      const ScoredCluster* from = domains[fullest].front();
      for (const auto* sc : domains[fullest]) {
        if (planned(sc->name()) > planned(from->name())) from = sc;
      }
      --assignment.plan[from->name()];
      ++assignment.plan[to->name()];
    }
  }
  return Status::success();
}

}  // namespace flotilla::scheduler
