#include "scheduler/planner/replica_planner.h"

#include <algorithm>

namespace flotilla::scheduler {
namespace {

// A participating cluster. `slot` indexes the per-cluster vectors of one planning run, so the
// arithmetic never touches a string-keyed map (the planner runs once per binding per cycle).
struct Named {
  const std::string* cluster = nullptr;
  uint32_t hash = 0;
  ClusterPreference pref;
  std::optional<int64_t> capacity;
  size_t slot = 0;
};

// Weight descending, then hash ascending: KubeAdmiral's byWeight order.
void sortByWeight(std::vector<Named>& prefs) {
  std::sort(prefs.begin(), prefs.end(), [](const Named& a, const Named& b) {
    if (a.pref.weight != b.pref.weight) return a.pref.weight > b.pref.weight;
    if (a.hash != b.hash) return a.hash < b.hash;
    return *a.cluster < *b.cluster;  // equal hashes are astronomically rare; stay deterministic
  });
}

struct DesiredPlan {
  std::vector<int64_t> plan;      // by slot
  std::vector<int64_t> overflow;  // by slot
  int64_t remaining = 0;          // replicas that fit nowhere
};

// The min pass and the weighted rounds (docs/design.md §4.4, seed 003's tables).
DesiredPlan desiredPlan(std::vector<Named> prefs, size_t slots, int64_t total) {
  DesiredPlan out{std::vector<int64_t>(slots, 0), std::vector<int64_t>(slots, 0), 0};
  int64_t remaining = total;
  for (const Named& p : prefs) {
    int64_t take = std::min(p.pref.minReplicas, remaining);
    if (p.capacity && take > *p.capacity) {
      out.overflow[p.slot] += take - *p.capacity;
      take = *p.capacity;
    }
    remaining -= take;
    out.plan[p.slot] = take;
  }
  // Each round either hands out everything that remains or fills at least one cluster, so the
  // loop ends after at most one round per cluster.
  bool modified = true;
  std::vector<Named> notFull;
  while (modified && remaining > 0) {
    modified = false;
    int64_t weightSum = 0;
    for (const Named& p : prefs) weightSum += p.pref.weight;
    if (weightSum <= 0) break;
    const int64_t distribute = remaining;
    notFull.clear();
    for (const Named& p : prefs) {
      const int64_t start = out.plan[p.slot];
      int64_t extra = (distribute * p.pref.weight + weightSum - 1) / weightSum;  // ceil
      extra = std::min(extra, remaining);
      int64_t target = start + extra;
      bool full = false;
      if (p.pref.maxReplicas && target >= *p.pref.maxReplicas) {
        target = std::max(start, *p.pref.maxReplicas);
        full = true;
      }
      // start never exceeds capacity: the min pass and earlier rounds already capped it.
      if (p.capacity && target > *p.capacity) {
        out.overflow[p.slot] += target - *p.capacity;
        target = *p.capacity;
        full = true;
      }
      if (!full) notFull.push_back(p);
      remaining -= target - start;
      out.plan[p.slot] = target;
      modified = modified || target > start;
    }
    prefs.swap(notFull);
  }
  out.remaining = remaining;
  return out;
}

// Moves `count` replicas towards the desired plan: up (add to clusters below their share, weighted
// by the shortfall) or down (remove from clusters above it, weighted by the excess, never below 0).
std::vector<int64_t> moveTowards(const std::vector<Named>& participants,
                                 const std::vector<int64_t>& current,
                                 const std::vector<int64_t>& desired, int64_t count, bool up) {
  std::vector<Named> prefs;
  for (const Named& p : participants) {
    const int64_t gap = up ? desired[p.slot] - current[p.slot] : current[p.slot] - desired[p.slot];
    if (gap <= 0) continue;
    Named n = p;
    n.pref = {gap, 0, up ? std::nullopt : std::optional<int64_t>(current[p.slot])};
    n.capacity.reset();
    prefs.push_back(n);
  }
  sortByWeight(prefs);
  const DesiredPlan change = desiredPlan(std::move(prefs), current.size(), count);
  std::vector<int64_t> result = current;
  for (size_t slot = 0; slot < result.size(); ++slot) {
    result[slot] += up ? change.plan[slot] : -change.plan[slot];
  }
  return result;
}

std::vector<Named> participants(const PlannerInput& in) {
  std::vector<Named> prefs;
  prefs.reserve(in.clusters.size());
  const auto star = in.preferences.find("*");
  for (const std::string& cluster : in.clusters) {
    const ClusterPreference* pref = nullptr;
    static const ClusterPreference kDefault;
    if (in.preferences.empty()) {
      pref = &kDefault;
    } else if (auto it = in.preferences.find(cluster); it != in.preferences.end()) {
      pref = &it->second;
    } else if (star != in.preferences.end()) {
      pref = &star->second;
    }
    if (!pref) continue;
    Named n{&cluster, fnv1Hash32(in.key, fnv1Hash32(cluster)), *pref, std::nullopt, prefs.size()};
    if (auto cap = in.estimatedCapacity.find(cluster); cap != in.estimatedCapacity.end()) {
      n.capacity = cap->second;
    }
    prefs.push_back(n);
  }
  sortByWeight(prefs);
  return prefs;
}

// Current replicas of the participating clusters, capped by what they can run and by maxReplicas.
// (KubeAdmiral caps by capacity only, so lowering maxReplicas never moved running replicas.)
std::vector<int64_t> currentOkReplicas(const std::vector<Named>& prefs, const PlannerInput& in,
                                       int64_t* total) {
  std::vector<int64_t> current(prefs.size(), 0);
  *total = 0;
  for (const Named& p : prefs) {
    auto it = in.currentReplicas.find(*p.cluster);
    int64_t replicas = it == in.currentReplicas.end() ? 0 : it->second;
    if (p.capacity) replicas = std::min(replicas, *p.capacity);
    if (p.pref.maxReplicas) replicas = std::min(replicas, *p.pref.maxReplicas);
    current[p.slot] = replicas;
    *total += replicas;
  }
  return current;
}

PlannerResult finish(const std::vector<Named>& prefs, const std::vector<int64_t>& plan,
                     const std::vector<int64_t>& overflow, int64_t unplaced, bool keep) {
  PlannerResult result;
  for (const Named& p : prefs) {
    result.plan.emplace(*p.cluster, plan[p.slot]);
    // Without keeping, a cluster's overflow only counts what no other cluster could take.
    const int64_t kept = keep ? overflow[p.slot] : std::min(overflow[p.slot], unplaced);
    if (kept > 0) result.overflow.emplace(*p.cluster, kept);
  }
  return result;
}

PlannerResult planWeighted(const PlannerInput& in) {
  const std::vector<Named> prefs = participants(in);
  DesiredPlan desired = desiredPlan(prefs, prefs.size(), in.totalReplicas);
  if (!in.avoidDisruption) {
    // KubeAdmiral forces keepUnschedulableReplicas here: a trimmed overflow drops the replicas a
    // capped cluster could not take, the estimate behind the cap goes away with them, and the
    // next round plans the uncapped split again, endlessly.
    PlannerResult result = finish(prefs, desired.plan, desired.overflow, desired.remaining, true);
    result.overflowKept = true;
    return result;
  }
  if (in.rebalance) {
    return finish(prefs, desired.plan, desired.overflow, desired.remaining,
                  in.keepUnschedulableReplicas);
  }
  int64_t currentTotal = 0;
  std::vector<int64_t> plan = currentOkReplicas(prefs, in, &currentTotal);
  int64_t desiredTotal = 0;
  for (int64_t n : desired.plan) desiredTotal += n;
  if (currentTotal != desiredTotal) {
    const bool up = currentTotal < desiredTotal;
    plan = moveTowards(prefs, plan, desired.plan,
                       up ? desiredTotal - currentTotal : currentTotal - desiredTotal, up);
  }
  return finish(prefs, plan, desired.overflow, desired.remaining, in.keepUnschedulableReplicas);
}

// Bin-packing (docs/design.md §4.4, Divided/Aggregated): as few clusters as possible, clusters
// already running the workload first (most replicas first), then by room (capacity, then
// maxReplicas), then by the weighted order.
PlannerResult planAggregated(const PlannerInput& in) {
  std::vector<Named> prefs = participants(in);
  int64_t ignored = 0;
  const std::vector<int64_t> running = currentOkReplicas(prefs, in, &ignored);
  auto room = [](const Named& p) {
    int64_t r = INT64_MAX;
    if (p.capacity) r = std::min(r, *p.capacity);
    if (p.pref.maxReplicas) r = std::min(r, *p.pref.maxReplicas);
    return std::max<int64_t>(r, 0);
  };
  auto currentOf = [&](const Named& p) {
    auto it = in.currentReplicas.find(*p.cluster);
    return it == in.currentReplicas.end() ? int64_t{0} : it->second;
  };
  std::stable_sort(prefs.begin(), prefs.end(), [&](const Named& a, const Named& b) {
    if (currentOf(a) != currentOf(b)) return currentOf(a) > currentOf(b);
    return room(a) > room(b);
  });

  int64_t remaining = in.totalReplicas;
  std::vector<int64_t> plan(prefs.size(), 0);
  std::vector<int64_t> overflow(prefs.size(), 0);
  // minReplicas first, then fill in order.
  for (const Named& p : prefs) {
    const int64_t take = std::min({p.pref.minReplicas, remaining, room(p)});
    plan[p.slot] += take;
    remaining -= take;
  }
  const std::vector<int64_t> minimums = plan;
  if (in.avoidDisruption) {
    // Keep what runs where it runs (within room), then fill or drain in bin-pack order.
    int64_t total = 0;
    for (const Named& p : prefs) {
      plan[p.slot] = std::min(std::max(running[p.slot], plan[p.slot]), room(p));
      total += plan[p.slot];
    }
    remaining = in.totalReplicas - total;
    // Too many: drain the smallest holders first, never below the minimums handed out above.
    for (auto it = prefs.rbegin(); it != prefs.rend() && remaining < 0; ++it) {
      const int64_t removable = std::max<int64_t>(plan[it->slot] - minimums[it->slot], 0);
      const int64_t take = std::min(removable, -remaining);
      plan[it->slot] -= take;
      remaining += take;
    }
  }
  for (const Named& p : prefs) {
    if (remaining <= 0) break;
    const int64_t take = std::min(remaining, room(p) - plan[p.slot]);
    if (take <= 0) continue;
    plan[p.slot] += take;
    remaining -= take;
  }
  // What fits nowhere overflows on the first cluster of the packing order: the one that would
  // take it if its capacity grew.
  if (remaining > 0 && !prefs.empty()) overflow[prefs.front().slot] = remaining;
  return finish(prefs, plan, overflow, std::max<int64_t>(remaining, 0),
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
  keepUnschedulableReplicas = keepUnschedulableReplicas || overflowKept;
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
