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

namespace {

// Group combinations, leaves and cover nodes one select may try before it settles for the best
// answer found so far. The first combination (every constraint's best groups) is always tried.
constexpr int64_t kSearchBudget = 4096;

// One region/zone/provider/label constraint: each cluster's group id (ids in first-seen order over
// the score-ordered clusters, so a group ranks by its best cluster).
struct Grouping {
  const api::SpreadConstraint* constraint = nullptr;
  int64_t minGroups = 1;
  int64_t maxGroups = INT32_MAX;
  std::vector<int> groupOf;
  size_t groups = 0;
};

// The search for a selection satisfying every spread constraint (docs/design.md §4.3): for each
// group constraint in turn, combinations of as many groups as it may keep (its best groups first,
// so the first answer found prefers higher scores), then the clusters inside them.
class Search {
 public:
  Search(CycleState& state, const SchedulingUnit& unit, const std::vector<ScoredCluster>& clusters,
         const std::vector<Grouping>& groupings, int64_t minClusters, int64_t maxClusters,
         bool byCluster)
      : state_(state),
        unit_(unit),
        clusters_(clusters),
        groupings_(groupings),
        minClusters_(minClusters),
        maxClusters_(maxClusters),
        byCluster_(byCluster),
        needRoom_(state.dividesByCapacity && unit.replicas > 0) {}

  // The chosen clusters (mask over `clusters`), or the reason none could be chosen.
  Status run(std::vector<char>& chosen) {
    std::vector<char> alive(clusters_.size(), 1);
    chooseGroups(0, alive);
    if (found_) {
      chosen = std::move(best_);
      return Status::success();
    }
    if (haveFallback_) {  // the counts hold; the planner reports the capacity shortfall
      chosen = std::move(fallback_);
      return Status::success();
    }
    if (firstFailure_.ok()) {
      return Status::unschedulable("no selection satisfies every spread constraint");
    }
    return firstFailure_;
  }

 private:
  void fail(Status s) {
    if (firstFailure_.ok()) firstFailure_ = std::move(s);
  }

  bool exhausted() { return ++work_ > kSearchBudget; }

  int64_t roomOf(size_t i) {
    if (room_.empty()) room_.assign(clusters_.size(), -1);
    if (room_[i] < 0) room_[i] = unitRoom(state_, unit_, *clusters_[i].info);
    return room_[i];
  }
  bool roomEnough(const std::vector<char>& mask) {
    if (!needRoom_) return true;
    int64_t total = 0;
    for (size_t i = 0; i < mask.size() && total < unit_.replicas; ++i) {
      if (mask[i]) total += roomOf(i);
    }
    return total >= unit_.replicas;
  }

  // Returns true when the search is over (a selection with enough room found, or budget spent).
  bool chooseGroups(size_t g, const std::vector<char>& alive) {
    if (found_) return true;
    // Once some selection satisfies the counts, only subtrees that could hold the replicas matter.
    if (haveFallback_ && !roomEnough(alive)) return false;
    if (g == groupings_.size()) {
      if (exhausted()) return true;
      return leaf(alive);
    }
    const Grouping& grouping = groupings_[g];
    // The groups present among the surviving clusters, best first.
    std::vector<int> present;
    std::vector<char> seen(grouping.groups, 0);
    for (size_t i = 0; i < clusters_.size(); ++i) {
      if (!alive[i]) continue;
      char& s = seen[static_cast<size_t>(grouping.groupOf[i])];
      if (!s) {
        s = 1;
        present.push_back(grouping.groupOf[i]);
      }
    }
    if (static_cast<int64_t>(present.size()) < grouping.minGroups) {
      fail(Status::unschedulable("spread constraint " + describe(*grouping.constraint) + ": " +
                                 std::to_string(present.size()) +
                                 " group(s) available, minGroups is " +
                                 std::to_string(grouping.minGroups)));
      return false;
    }
    // Keeping as many groups as allowed never loses a selection: any selection spans at most
    // maxGroups groups, all inside some combination of that size.
    const size_t k = static_cast<size_t>(
        std::min<int64_t>(static_cast<int64_t>(present.size()), grouping.maxGroups));
    if (k == present.size()) return chooseGroups(g + 1, alive);  // every group: nothing to choose
    std::vector<size_t> pick(k);
    for (size_t j = 0; j < k; ++j) pick[j] = j;
    std::vector<char> inCombination(grouping.groups, 0);
    std::vector<char> next(alive.size(), 0);
    while (true) {
      std::fill(inCombination.begin(), inCombination.end(), 0);
      for (size_t j : pick) inCombination[static_cast<size_t>(present[j])] = 1;
      for (size_t i = 0; i < alive.size(); ++i) {
        next[i] = alive[i] && inCombination[static_cast<size_t>(grouping.groupOf[i])];
      }
      if (chooseGroups(g + 1, next)) return true;
      // Next combination in lexicographic order of group rank.
      size_t j = k;
      while (j > 0 && pick[j - 1] == present.size() - k + (j - 1)) --j;
      if (j == 0) return false;
      ++pick[j - 1];
      for (size_t m = j; m < k; ++m) pick[m] = pick[m - 1] + 1;
      if (exhausted()) return true;
    }
  }

  // The clusters of one group combination: at most maxClusters of them, covering every
  // constraint's minGroups. Returns true when the search is over.
  bool leaf(const std::vector<char>& alive) {
    std::vector<size_t> candidates;
    for (size_t i = 0; i < alive.size(); ++i) {
      if (alive[i]) candidates.push_back(i);
    }
    const auto available = static_cast<int64_t>(candidates.size());
    if (byCluster_ && available < minClusters_) {
      fail(Status::unschedulable("spread constraint cluster: " + std::to_string(available) +
                                 " cluster(s) available, minGroups is " +
                                 std::to_string(minClusters_)));
      return false;
    }
    std::vector<char> chosen;
    if (available <= maxClusters_) {
      chosen = alive;
    } else {
      std::vector<char> cover(alive.size(), 0);
      int64_t count = greedyCover(candidates, cover);
      if (count > maxClusters_) {
        std::fill(cover.begin(), cover.end(), 0);
        if (!exactCover(candidates, cover)) {
          fail(Status::unschedulable("spread constraints need " + std::to_string(count) +
                                     " clusters to span their minGroups, but at most " +
                                     std::to_string(maxClusters_) + " may be selected"));
          return false;
        }
      }
      chosen = fill(candidates, cover, false);
      if (spans(chosen) && !roomEnough(chosen)) {
        // Short of room: fill the free places with the roomiest clusters instead.
        std::vector<char> roomy = fill(candidates, cover, true);
        if (roomEnough(roomy)) chosen = std::move(roomy);
      }
    }
    if (Status s = spanStatus(chosen); !s.ok()) {
      fail(std::move(s));
      return false;
    }
    if (roomEnough(chosen)) {
      found_ = true;
      best_ = std::move(chosen);
      return true;
    }
    if (!haveFallback_) {
      haveFallback_ = true;
      fallback_ = std::move(chosen);
    }
    return false;
  }

  // The best cluster of each group a constraint needs (its minGroups best groups), constraint by
  // constraint, skipping groups already covered. Returns how many clusters that took.
  int64_t greedyCover(const std::vector<size_t>& candidates, std::vector<char>& cover) {
    int64_t count = 0;
    for (const auto& g : groupings_) {
      std::vector<int> rank(g.groups, -1);  // group -> rank among the candidates
      int next = 0;
      for (size_t i : candidates) {
        int& r = rank[static_cast<size_t>(g.groupOf[i])];
        if (r < 0) r = next++;
      }
      std::vector<char> covered(g.groups, 0);
      for (size_t i : candidates) {
        if (cover[i]) covered[static_cast<size_t>(g.groupOf[i])] = 1;
      }
      for (size_t i : candidates) {
        const auto group = static_cast<size_t>(g.groupOf[i]);
        if (rank[group] < g.minGroups && !covered[group]) {
          covered[group] = 1;
          cover[i] = 1;
          ++count;
        }
      }
    }
    return count;
  }

  // At most maxClusters candidates covering every constraint's minGroups, found by a depth-first
  // search in score order (a cluster is tried only when it adds a group some constraint lacks).
  bool exactCover(const std::vector<size_t>& candidates, std::vector<char>& cover) {
    std::vector<std::vector<int>> used(groupings_.size());
    std::vector<int64_t> spanned(groupings_.size(), 0);
    for (size_t g = 0; g < groupings_.size(); ++g) used[g].assign(groupings_[g].groups, 0);
    auto missing = [&] {
      int64_t most = 0;
      for (size_t g = 0; g < groupings_.size(); ++g) {
        most = std::max(most, groupings_[g].minGroups - spanned[g]);
      }
      return most;
    };
    auto mark = [&](size_t i, int delta) {
      for (size_t g = 0; g < groupings_.size(); ++g) {
        int& u = used[g][static_cast<size_t>(groupings_[g].groupOf[i])];
        if (delta > 0 && u++ == 0) ++spanned[g];
        if (delta < 0 && --u == 0) --spanned[g];
      }
    };
    auto helps = [&](size_t i) {
      for (size_t g = 0; g < groupings_.size(); ++g) {
        if (spanned[g] < groupings_[g].minGroups &&
            used[g][static_cast<size_t>(groupings_[g].groupOf[i])] == 0)
          return true;
      }
      return false;
    };
    auto dfs = [&](auto& self, size_t pos, int64_t picked) -> bool {
      const int64_t lacking = missing();
      if (lacking <= 0) return true;
      if (lacking > maxClusters_ - picked || pos == candidates.size() || exhausted()) return false;
      const size_t i = candidates[pos];
      if (helps(i)) {
        mark(i, 1);
        cover[i] = 1;
        if (self(self, pos + 1, picked + 1)) return true;
        cover[i] = 0;
        mark(i, -1);
      }
      return self(self, pos + 1, picked);
    };
    return dfs(dfs, 0, 0);
  }

  // `cover` plus the best remaining candidates (by score, or by room then score) up to
  // maxClusters.
  std::vector<char> fill(const std::vector<size_t>& candidates, const std::vector<char>& cover,
                         bool byRoom) {
    std::vector<char> chosen = cover;
    int64_t count = 0;
    for (size_t i : candidates) count += cover[i];
    if (!byRoom) {
      for (size_t i : candidates) {
        if (count >= maxClusters_) break;
        if (!chosen[i]) {
          chosen[i] = 1;
          ++count;
        }
      }
      return chosen;
    }
    std::vector<size_t> order;
    for (size_t i : candidates) {
      if (!cover[i]) order.push_back(i);
    }
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return roomOf(a) > roomOf(b); });
    for (size_t i : order) {
      if (count >= maxClusters_) break;
      chosen[i] = 1;
      ++count;
    }
    return chosen;
  }

  bool spans(const std::vector<char>& chosen) { return spanStatus(chosen).ok(); }

  // Every group constraint's minGroups over the chosen clusters, so one constraint cannot
  // silently undo another.
  Status spanStatus(const std::vector<char>& chosen) const {
    for (const auto& g : groupings_) {
      std::vector<char> seen(g.groups, 0);
      int64_t spanned = 0;
      for (size_t i = 0; i < chosen.size(); ++i) {
        if (!chosen[i]) continue;
        char& s = seen[static_cast<size_t>(g.groupOf[i])];
        if (!s) {
          s = 1;
          ++spanned;
        }
      }
      if (spanned < g.minGroups) {
        return Status::unschedulable("spread constraints conflict: the selected clusters span " +
                                     std::to_string(spanned) + " " + describe(*g.constraint) +
                                     " group(s), minGroups is " + std::to_string(g.minGroups));
      }
    }
    return Status::success();
  }

  CycleState& state_;
  const SchedulingUnit& unit_;
  const std::vector<ScoredCluster>& clusters_;
  const std::vector<Grouping>& groupings_;
  const int64_t minClusters_;
  const int64_t maxClusters_;
  const bool byCluster_;
  const bool needRoom_;
  int64_t work_ = 0;
  std::vector<int64_t> room_;
  bool found_ = false;
  std::vector<char> best_;
  bool haveFallback_ = false;
  std::vector<char> fallback_;
  Status firstFailure_;
};

}  // namespace

Status SpreadConstraint::select(CycleState& state, const SchedulingUnit& unit,
                                std::vector<ScoredCluster>& clusters) const {
  const auto& constraints = unit.placement.spreadConstraints;
  if (constraints.empty()) return Status::success();
  const api::SpreadConstraint* byCluster = nullptr;
  std::vector<Grouping> groupings;
  for (const auto& c : constraints) {
    if (c.spreadByField == "cluster") {
      byCluster = &c;
      continue;
    }
    Grouping g;
    g.constraint = &c;
    g.minGroups = c.minGroups.value_or(1);
    g.maxGroups = c.maxGroups.value_or(INT32_MAX);
    const std::string key = keyOf(c);
    Interner groups;
    g.groupOf.reserve(clusters.size());
    // Clusters arrive best first, so a group's id is its rank by its best cluster.
    for (const auto& sc : clusters) g.groupOf.push_back(groups.id(clusterField(*sc.cluster, key)));
    g.groups = groups.size();
    if (static_cast<int64_t>(g.groups) < g.minGroups) {
      return Status::unschedulable("spread constraint " + describe(c) + ": " +
                                   std::to_string(g.groups) + " group(s) available, minGroups is " +
                                   std::to_string(g.minGroups));
    }
    groupings.push_back(std::move(g));
  }

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
  if (max < min) {
    return Status::unschedulable("spread constraint cluster: minGroups is " + std::to_string(min) +
                                 ", but at most " + std::to_string(max) + " may be selected");
  }
  if (byCluster && static_cast<int64_t>(clusters.size()) < min) {
    return Status::unschedulable("spread constraint cluster: " + std::to_string(clusters.size()) +
                                 " cluster(s) available, minGroups is " + std::to_string(min));
  }

  std::vector<char> chosen;
  Search search(state, unit, clusters, groupings, min, max, byCluster != nullptr);
  if (Status s = search.run(chosen); !s.ok()) return s;
  if (std::find(chosen.begin(), chosen.end(), 0) == chosen.end()) return Status::success();
  std::vector<ScoredCluster> kept;
  for (size_t i = 0; i < clusters.size(); ++i) {
    if (chosen[i]) kept.push_back(std::move(clusters[i]));
  }
  clusters = std::move(kept);
  return Status::success();
}

}  // namespace flotilla::scheduler
