#include "scheduler/plugins/topology_spread/topology_spread.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "scheduler/framework/cluster_fields.h"

namespace flotilla::scheduler {
namespace {

// Replicas per domain of each ScheduleAnyway constraint, from the current placement.
struct SpreadScoreState {
  std::vector<const api::TopologySpreadConstraint*> constraints;
  std::vector<std::map<std::string, int64_t>> counts;
};

}  // namespace

void TopologySpread::prepare(CycleState& state, const SchedulingUnit& unit,
                             const std::vector<const api::FederatedCluster*>& clusters) {
  SpreadScoreState s;
  for (const auto& c : unit.placement.topologySpreadConstraints) {
    if (c.whenUnsatisfiable == "ScheduleAnyway") s.constraints.push_back(&c);
  }
  if (s.constraints.empty()) return;
  s.counts.resize(s.constraints.size());
  for (const api::FederatedCluster* cluster : clusters) {
    auto it = unit.currentReplicas.find(cluster->metadata.name);
    if (it == unit.currentReplicas.end()) continue;
    for (size_t i = 0; i < s.constraints.size(); ++i) {
      const std::string& key = s.constraints[i]->topologyKey;
      if (hasClusterField(*cluster, key)) s.counts[i][clusterField(*cluster, key)] += it->second;
    }
  }
  state.put(std::move(s));
}

int64_t TopologySpread::score(CycleState&, const SchedulingUnit&,
                              const api::FederatedCluster&) const {
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
  // Normalizing weight per constraint: log(number of domains among feasible clusters + 2).
  std::vector<double> weights;
  for (const auto* c : s->constraints) {
    std::set<std::string> domains;
    for (const auto& sc : clusters) {
      if (hasClusterField(*sc.cluster, c->topologyKey))
        domains.insert(clusterField(*sc.cluster, c->topologyKey));
    }
    weights.push_back(std::log(static_cast<double>(domains.size()) + 2.0));
  }
  std::vector<bool> ignored(clusters.size(), false);
  int64_t min = INT64_MAX;
  int64_t max = 0;
  for (size_t n = 0; n < clusters.size(); ++n) {
    double raw = 0;
    for (size_t i = 0; i < s->constraints.size(); ++i) {
      const std::string& key = s->constraints[i]->topologyKey;
      if (!hasClusterField(*clusters[n].cluster, key)) {
        ignored[n] = true;
        break;
      }
      auto it = s->counts[i].find(clusterField(*clusters[n].cluster, key));
      const int64_t count = it == s->counts[i].end() ? 0 : it->second;
      raw += static_cast<double>(count) * weights[i] + (s->constraints[i]->maxSkew - 1);
    }
    scores[n] = static_cast<int64_t>(std::lround(raw));
    if (ignored[n]) continue;
    min = std::min(min, scores[n]);
    max = std::max(max, scores[n]);
  }
  for (size_t n = 0; n < clusters.size(); ++n) {
    if (ignored[n]) {
      scores[n] = 0;
    } else if (max == 0) {
      scores[n] = kMaxClusterScore;
    } else {
      scores[n] = kMaxClusterScore * (max + min - scores[n]) / max;
    }
  }
}

Status TopologySpread::assign(CycleState&, const SchedulingUnit& unit,
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
    auto count = [&](const std::string& domain) {
      int64_t n = 0;
      for (const auto* sc : domains[domain]) n += assignment.plan[sc->name()];
      return n;
    };
    auto room = [&](const ScoredCluster& sc) {
      auto cap = unit.estimatedCapacity.find(sc.name());
      return cap == unit.estimatedCapacity.end() ? INT64_MAX
                                                 : cap->second - assignment.plan[sc.name()];
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
        if (assignment.plan[sc->name()] > assignment.plan[from->name()]) from = sc;
      }
      --assignment.plan[from->name()];
      ++assignment.plan[to->name()];
    }
  }
  return Status::success();
}

}  // namespace flotilla::scheduler
