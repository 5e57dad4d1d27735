#include "scheduler/planner/replica_planner.h"

#include <algorithm>

namespace flotilla::scheduler {
namespace {

struct Named {
  std::string cluster;
  uint32_t hash = 0;
  ClusterPreference pref;
};

// Weight descending, then hash ascending: KubeAdmiral's byWeight order.
void sortByWeight(std::vector<Named>& prefs) {
  std::sort(prefs.begin(), prefs.end(), [](const Named& a, const Named& b) {
    if (a.pref.weight != b.pref.weight) return a.pref.weight > b.pref.weight;
    if (a.hash != b.hash) return a.hash < b.hash;
    return a.cluster < b.cluster;  // equal hashes are astronomically rare; stay deterministic
  });
}

Named named(const std::string& cluster, const ClusterPreference& pref, const std::string& key) {
  return {cluster, fnv1Hash32(key, fnv1Hash32(cluster)), pref};
}

std::optional<int64_t> capacityOf(const ReplicaMap& capacity, const std::string& cluster) {
  auto it = capacity.find(cluster);
  return it == capacity.end() ? std::nullopt : std::optional<int64_t>(it->second);
}

struct DesiredPlan {
  ReplicaMap plan;
  ReplicaMap overflow;
  int64_t remaining = 0;  // replicas that fit nowhere
};

// The min pass and the weighted rounds (DESIGN §4.4, seed 003's tables).
DesiredPlan desiredPlan(std::vector<Named> prefs, const ReplicaMap& capacity, int64_t total) {
  DesiredPlan out;
  int64_t remaining = total;
  for (const Named& p : prefs) {
    int64_t take = std::min(p.pref.minReplicas, remaining);
    if (auto cap = capacityOf(capacity, p.cluster); cap && take > *cap) {
      out.overflow[p.cluster] += take - *cap;
      take = *cap;
    }
    remaining -= take;
    out.plan[p.cluster] = take;
  }
  // Each round either hands out everything that remains or fills at least one cluster, so the
  // loop ends after at most one round per cluster.
  bool modified = true;
  while (modified && remaining > 0) {
    modified = false;
    int64_t weightSum = 0;
    for (const Named& p : prefs) weightSum += p.pref.weight;
    if (weightSum <= 0) break;
    const int64_t distribute = remaining;
    std::vector<Named> notFull;
    notFull.reserve(prefs.size());
    for (const Named& p : prefs) {
      const int64_t start = out.plan[p.cluster];
      int64_t extra = (distribute * p.pref.weight + weightSum - 1) / weightSum;  // ceil
      extra = std::min(extra, remaining);
      int64_t target = start + extra;
      bool full = false;
      if (p.pref.maxReplicas && target >= *p.pref.maxReplicas) {
        target = std::max(start, *p.pref.maxReplicas);
        full = true;
      }
      // start never exceeds capacity: the min pass and earlier rounds already capped it.
      if (auto cap = capacityOf(capacity, p.cluster); cap && target > *cap) {
        out.overflow[p.cluster] += target - *cap;
        target = *cap;
        full = true;
      }
      if (!full) notFull.push_back(p);
      remaining -= target - start;
      out.plan[p.cluster] = target;
      modified = modified || target > start;
    }
    prefs = std::move(notFull);
  }
  out.remaining = remaining;
  return out;
}

// Adds `count` replicas to clusters below their desired share, weighted by the shortfall.
ReplicaMap scaleUp(const ReplicaMap& current, const ReplicaMap& desired, int64_t count,
                   const std::string& key) {
  std::vector<Named> prefs;
  for (const auto& [cluster, want] : desired) {
    const int64_t have = current.count(cluster) ? current.at(cluster) : 0;
    if (want > have) prefs.push_back(named(cluster, {want - have, 0, std::nullopt}, key));
  }
  sortByWeight(prefs);
  ReplicaMap result = current;
  for (const auto& [cluster, add] : desiredPlan(prefs, {}, count).plan) result[cluster] += add;
  return result;
}

// Removes `count` replicas from clusters above their desired share, weighted by the excess.
ReplicaMap scaleDown(const ReplicaMap& current, const ReplicaMap& desired, int64_t count,
                     const std::string& key) {
  std::vector<Named> prefs;
  for (const auto& [cluster, want] : desired) {
    const int64_t have = current.count(cluster) ? current.at(cluster) : 0;
    if (want < have) prefs.push_back(named(cluster, {have - want, 0, have}, key));
  }
  sortByWeight(prefs);
  ReplicaMap result = current;
  for (const auto& [cluster, remove] : desiredPlan(prefs, {}, count).plan) {
    result[cluster] -= remove;
  }
  return result;
}

std::vector<Named> participants(const PlannerInput& in) {
  std::vector<Named> prefs;
  const auto star = in.preferences.find("*");
  for (const std::string& cluster : in.clusters) {
    if (in.preferences.empty()) {
      prefs.push_back(named(cluster, ClusterPreference{}, in.key));
    } else if (auto it = in.preferences.find(cluster); it != in.preferences.end()) {
      prefs.push_back(named(cluster, it->second, in.key));
    } else if (star != in.preferences.end()) {
      prefs.push_back(named(cluster, star->second, in.key));
    }
  }
  sortByWeight(prefs);
  return prefs;
}

// Current replicas of the participating clusters, capped by what they can run and by maxReplicas.
// (KubeAdmiral caps by capacity only, so lowering maxReplicas never moved running replicas.)
ReplicaMap currentOkReplicas(const std::vector<Named>& prefs, const PlannerInput& in,
                             int64_t* total) {
  ReplicaMap current;
  *total = 0;
  for (const Named& p : prefs) {
    int64_t replicas = in.currentReplicas.count(p.cluster) ? in.currentReplicas.at(p.cluster) : 0;
    if (auto cap = capacityOf(in.estimatedCapacity, p.cluster)) replicas = std::min(replicas, *cap);
    if (p.pref.maxReplicas) replicas = std::min(replicas, *p.pref.maxReplicas);
    current[p.cluster] = replicas;
    *total += replicas;
  }
  return current;
}

PlannerResult finish(ReplicaMap plan, const ReplicaMap& overflow, int64_t unplaced, bool keep) {
  PlannerResult result{std::move(plan), {}};
  for (const auto& [cluster, count] : overflow) {
    // Without keeping, a cluster's overflow only counts what no other cluster could take.
    const int64_t kept = keep ? count : std::min(count, unplaced);
    if (kept > 0) result.overflow[cluster] = kept;
  }
  return result;
}

PlannerResult planWeighted(const PlannerInput& in) {
  const std::vector<Named> prefs = participants(in);
  DesiredPlan desired = desiredPlan(prefs, in.estimatedCapacity, in.totalReplicas);
  if (!in.avoidDisruption) {
    return finish(std::move(desired.plan), desired.overflow, desired.remaining,
                  in.keepUnschedulableReplicas);
  }
  int64_t currentTotal = 0;
  ReplicaMap current = currentOkReplicas(prefs, in, &currentTotal);
  int64_t desiredTotal = 0;
  for (const auto& [cluster, n] : desired.plan) desiredTotal += n;
  ReplicaMap plan = current;
  if (currentTotal > desiredTotal) {
    plan = scaleDown(current, desired.plan, currentTotal - desiredTotal, in.key);
  } else if (currentTotal < desiredTotal) {
    plan = scaleUp(current, desired.plan, desiredTotal - currentTotal, in.key);
  }
  return finish(std::move(plan), desired.overflow, desired.remaining, in.keepUnschedulableReplicas);
}

// Bin-packing (DESIGN §4.3 Divided/Aggregated): as few clusters as possible, clusters already
// running the workload first (most replicas first), then by room (capacity, then maxReplicas),
// then by the weighted order.
PlannerResult planAggregated(const PlannerInput& in) {
  std::vector<Named> prefs = participants(in);
  auto room = [&](const Named& p) {
    int64_t r = INT64_MAX;
    if (auto cap = capacityOf(in.estimatedCapacity, p.cluster)) r = std::min(r, *cap);
    if (p.pref.maxReplicas) r = std::min(r, *p.pref.maxReplicas);
    return std::max<int64_t>(r, 0);
  };
  auto currentOf = [&](const Named& p) {
    return in.currentReplicas.count(p.cluster) ? in.currentReplicas.at(p.cluster) : 0;
  };
  std::stable_sort(prefs.begin(), prefs.end(), [&](const Named& a, const Named& b) {
    if (currentOf(a) != currentOf(b)) return currentOf(a) > currentOf(b);
    return room(a) > room(b);
  });

  int64_t remaining = in.totalReplicas;
  ReplicaMap plan;
  ReplicaMap overflow;
  for (const Named& p : prefs) plan[p.cluster] = 0;
  // minReplicas first, then fill in order.
  for (const Named& p : prefs) {
    const int64_t take = std::min({p.pref.minReplicas, remaining, room(p)});
    plan[p.cluster] += take;
    remaining -= take;
  }
  const ReplicaMap minimums = plan;
  if (in.avoidDisruption) {
    // Keep what runs where it runs (within capacity), then fill or drain in bin-pack order.
    int64_t currentTotal = 0;
    ReplicaMap current = currentOkReplicas(prefs, in, &currentTotal);
    for (const Named& p : prefs) {
      current[p.cluster] = std::min(std::max(current[p.cluster], plan[p.cluster]), room(p));
    }
    currentTotal = 0;
    for (const auto& [c, n] : current) currentTotal += n;
    plan = current;
    remaining = in.totalReplicas - currentTotal;
    // Too many: drain the smallest holders first, never below the minimums handed out above.
    for (auto it = prefs.rbegin(); it != prefs.rend() && remaining < 0; ++it) {
      const int64_t removable = std::max<int64_t>(plan[it->cluster] - minimums.at(it->cluster), 0);
      const int64_t take = std::min(removable, -remaining);
      plan[it->cluster] -= take;
      remaining += take;
    }
  }
  for (const Named& p : prefs) {
    if (remaining <= 0) break;
    const int64_t take = std::min(remaining, room(p) - plan[p.cluster]);
    if (take <= 0) continue;
    plan[p.cluster] += take;
    remaining -= take;
  }
  // What fits nowhere overflows on the first cluster of the packing order: the one that would
  // take it if its capacity grew.
  if (remaining > 0 && !prefs.empty()) overflow[prefs.front().cluster] = remaining;
  return finish(std::move(plan), overflow, std::max<int64_t>(remaining, 0),
                in.keepUnschedulableReplicas);
}

}  // namespace

uint32_t fnv1Hash32(std::string_view data, uint32_t seed) {
  uint32_t hash = seed;
  for (unsigned char c : data) {
    hash *= 16777619u;
    hash ^= c;
  }
  return hash;
}

ReplicaMap PlannerResult::placement(bool keepUnschedulableReplicas) const {
  ReplicaMap out;
  for (const auto& [cluster, n] : plan) {
    int64_t total = n;
    if (keepUnschedulableReplicas && overflow.count(cluster)) total += overflow.at(cluster);
    if (total > 0) out[cluster] = total;
  }
  if (keepUnschedulableReplicas) {
    for (const auto& [cluster, n] : overflow) {
      if (!plan.count(cluster) && n > 0) out[cluster] = n;
    }
  }
  return out;
}

PlannerResult planReplicas(const PlannerInput& input) {
  return input.division == Division::kAggregated ? planAggregated(input) : planWeighted(input);
}

}  // namespace flotilla::scheduler
