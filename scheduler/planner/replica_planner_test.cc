#include "scheduler/planner/replica_planner.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <numeric>
#include <random>
#include <set>

namespace flotilla::scheduler {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Pair;

const std::vector<std::string> kMembers = {"member1", "member2", "member3"};

// FNV-1 ties for three equal weights: "default/web" orders member2, member1, member3;
// "default/echo-server" (seed 003's workload) member1, member2, member3; "demo/web" member1,
// member3, member2.
constexpr const char* kMember2First = "default/web";

int64_t sum(const ReplicaMap& m) {
  return std::accumulate(m.begin(), m.end(), int64_t{0},
                         [](int64_t acc, const auto& kv) { return acc + kv.second; });
}

TEST(Fnv1Test, MatchesGoHashFnvNew32) {
  EXPECT_EQ(fnv1Hash32(""), 2166136261u);
  EXPECT_EQ(fnv1Hash32("a"), 0x050c5d7eu);  // FNV-1 (FNV-1a would be 0xe40c292c)
  EXPECT_EQ(fnv1Hash32("member2default/web"), 0x06ba8a31u);
  EXPECT_EQ(fnv1Hash32("default/web", fnv1Hash32("member2")), 0x06ba8a31u);  // streaming
}

// Seed 003, first table: 1:1:1 weights, 6 replicas, running 2:2:2 where member1 can only run 1.
TEST(WeightedPlannerTest, SeedTableOneMovesTheUnschedulableReplica) {
  PlannerInput in;
  in.totalReplicas = 6;
  in.clusters = kMembers;
  in.currentReplicas = {{"member1", 2}, {"member2", 2}, {"member3", 2}};
  in.estimatedCapacity = {{"member1", 1}};
  in.key = kMember2First;
  PlannerResult r = planReplicas(in);
  EXPECT_THAT(r.plan, ElementsAre(Pair("member1", 1), Pair("member2", 3), Pair("member3", 2)));
  EXPECT_THAT(r.overflow, IsEmpty());  // the overflow replica found room on member2
  EXPECT_THAT(r.placement(false),
              ElementsAre(Pair("member1", 1), Pair("member2", 3), Pair("member3", 2)));

  in.key = "default/echo-server";  // member2 still precedes member3
  EXPECT_THAT(planReplicas(in).plan,
              ElementsAre(Pair("member1", 1), Pair("member2", 3), Pair("member3", 2)));
  in.key = "demo/web";  // member3 precedes member2: the extra replica goes there instead
  EXPECT_THAT(planReplicas(in).plan,
              ElementsAre(Pair("member1", 1), Pair("member2", 2), Pair("member3", 3)));

  in.key = kMember2First;
  in.avoidDisruption = false;  // the desired plan itself is the same here
  EXPECT_THAT(planReplicas(in).plan,
              ElementsAre(Pair("member1", 1), Pair("member2", 3), Pair("member3", 2)));
}

// Seed 003, second table: every member can run only 1; running 1:3:2.
TEST(WeightedPlannerTest, SeedTableTwoKeepsOrDropsUnschedulableReplicas) {
  PlannerInput in;
  in.totalReplicas = 6;
  in.clusters = kMembers;
  in.currentReplicas = {{"member1", 1}, {"member2", 3}, {"member3", 2}};
  in.estimatedCapacity = {{"member1", 1}, {"member2", 1}, {"member3", 1}};
  in.key = kMember2First;
  PlannerResult r = planReplicas(in);
  EXPECT_THAT(r.plan, ElementsAre(Pair("member1", 1), Pair("member2", 1), Pair("member3", 1)));
  EXPECT_THAT(r.overflow, ElementsAre(Pair("member1", 1), Pair("member2", 1), Pair("member3", 1)));
  EXPECT_THAT(r.placement(false),
              ElementsAre(Pair("member1", 1), Pair("member2", 1), Pair("member3", 1)));

  in.keepUnschedulableReplicas = true;
  r = planReplicas(in);
  EXPECT_THAT(r.placement(true),
              ElementsAre(Pair("member1", 2), Pair("member2", 2), Pair("member3", 2)));
}

// KubeAdmiral's blog: scale 30 -> 9 with weights 10:10:10 while running 15:15:0. Avoiding
// disruption shrinks the two running clusters instead of starting pods on the third.
TEST(WeightedPlannerTest, ScaleDownThirtyToNineDoesNotStartNewPods) {
  PlannerInput in;
  in.totalReplicas = 9;
  in.clusters = {"a", "b", "c"};
  in.preferences = {{"*", {10, 0, std::nullopt}}};
  in.currentReplicas = {{"a", 15}, {"b", 15}, {"c", 0}};
  in.key = "default/web";
  PlannerResult r = planReplicas(in);
  EXPECT_EQ(r.plan.at("c"), 0);
  EXPECT_EQ(std::max(r.plan.at("a"), r.plan.at("b")), 5);
  EXPECT_EQ(std::min(r.plan.at("a"), r.plan.at("b")), 4);

  in.avoidDisruption = false;  // without it: the even 3:3:3 desired plan
  EXPECT_THAT(planReplicas(in).plan, ElementsAre(Pair("a", 3), Pair("b", 3), Pair("c", 3)));
}

TEST(WeightedPlannerTest, StaticWeightsWithRemainder) {
  PlannerInput in;
  in.totalReplicas = 7;
  in.clusters = {"a", "b"};
  in.preferences = {{"a", {2, 0, std::nullopt}}, {"b", {1, 0, std::nullopt}}};
  // ceil(7*2/3)=5 for the heavier cluster first, the remaining 2 for the other.
  EXPECT_THAT(planReplicas(in).plan, ElementsAre(Pair("a", 5), Pair("b", 2)));
}

TEST(WeightedPlannerTest, MinAndMaxReplicas) {
  PlannerInput in;
  in.totalReplicas = 10;
  in.clusters = {"a", "b", "c"};
  in.preferences = {{"a", {1, 0, 2}}, {"b", {1, 4, std::nullopt}}, {"c", {0, 0, std::nullopt}}};
  PlannerResult r = planReplicas(in);
  // b gets its minimum 4 first; a stops at its max 2; c has weight 0 and appears at 0.
  EXPECT_THAT(r.plan, ElementsAre(Pair("a", 2), Pair("b", 8), Pair("c", 0)));

  in.totalReplicas = 3;  // not enough for every minimum: the min pass takes them in order
  in.preferences["a"].minReplicas = 2;
  EXPECT_EQ(sum(planReplicas(in).plan), 3);
}

TEST(WeightedPlannerTest, ClustersWithoutPreferenceAreLeftOut) {
  PlannerInput in;
  in.totalReplicas = 4;
  in.clusters = {"a", "b", "c"};
  in.preferences = {{"a", {1, 0, std::nullopt}}, {"b", {1, 0, std::nullopt}}};
  EXPECT_THAT(planReplicas(in).plan, ElementsAre(Pair("a", 2), Pair("b", 2)));
  in.preferences["*"] = {2, 0, std::nullopt};  // "*" covers c with weight 2
  EXPECT_THAT(planReplicas(in).plan, ElementsAre(Pair("a", 1), Pair("b", 1), Pair("c", 2)));
}

TEST(WeightedPlannerTest, ScaleUpOnlyAddsToClustersBelowTheirShare) {
  PlannerInput in;
  in.totalReplicas = 9;
  in.clusters = {"a", "b", "c"};
  in.currentReplicas = {{"a", 5}, {"b", 1}, {"c", 0}};  // desired 3:3:3
  PlannerResult r = planReplicas(in);
  EXPECT_THAT(r.plan, ElementsAre(Pair("a", 5), Pair("b", 2), Pair("c", 2)));
}

// Without avoidDisruption the overflow stays untrimmed and is written (KubeAdmiral forces
// keepUnschedulableReplicas there): 60 replicas, weights A:1 B:2, A runs 60, B can run 10.
TEST(WeightedPlannerTest, WithoutAvoidDisruptionTheOverflowIsKept) {
  PlannerInput in;
  in.totalReplicas = 60;
  in.clusters = {"A", "B"};
  in.preferences = {{"A", {1, 0, std::nullopt}}, {"B", {2, 0, std::nullopt}}};
  in.currentReplicas = {{"A", 60}};
  in.estimatedCapacity = {{"B", 10}};
  in.avoidDisruption = false;
  PlannerResult r = planReplicas(in);
  EXPECT_THAT(r.plan, ElementsAre(Pair("A", 50), Pair("B", 10)));
  EXPECT_THAT(r.overflow, ElementsAre(Pair("B", 30)));
  EXPECT_TRUE(r.overflowKept);
  EXPECT_THAT(r.placement(false), ElementsAre(Pair("A", 50), Pair("B", 40)));
  // Exact fit: nothing overflows, nothing extra is written.
  in.estimatedCapacity = {{"B", 40}};
  r = planReplicas(in);
  EXPECT_THAT(r.placement(false), ElementsAre(Pair("A", 20), Pair("B", 40)));
  // One short: B's one replica stays there as overflow; A takes it too.
  in.estimatedCapacity = {{"B", 39}};
  r = planReplicas(in);
  EXPECT_THAT(r.plan, ElementsAre(Pair("A", 21), Pair("B", 39)));
  EXPECT_THAT(r.placement(false), ElementsAre(Pair("A", 21), Pair("B", 40)));
  // Zero capacity.
  in.estimatedCapacity = {{"B", 0}};
  r = planReplicas(in);
  EXPECT_THAT(r.placement(false), ElementsAre(Pair("A", 60), Pair("B", 40)));
  // With avoidDisruption the trimmed overflow is unchanged (here: none written).
  in.avoidDisruption = true;
  in.estimatedCapacity = {{"B", 10}};
  r = planReplicas(in);
  EXPECT_FALSE(r.overflowKept);
  EXPECT_THAT(r.overflow, IsEmpty());
}

// Each written placement is fed back as the next current state, with the estimate auto-migration
// would report: a cluster holding more replicas than it can run has pending pods, and its estimate
// is what it runs; without pending pods there is no estimate. The plan must settle, not alternate
// between the capped and the uncapped split.
TEST(WeightedPlannerTest, WithoutAvoidDisruptionReschedulingConverges) {
  for (bool keep : {false, true}) {
    const ReplicaMap canRun = {{"A", 1000}, {"B", 10}};
    PlannerInput in;
    in.totalReplicas = 60;
    in.clusters = {"A", "B"};
    in.preferences = {{"A", {1, 0, std::nullopt}}, {"B", {2, 0, std::nullopt}}};
    in.currentReplicas = {{"A", 60}};
    in.avoidDisruption = false;
    in.keepUnschedulableReplicas = keep;
    std::vector<ReplicaMap> written;
    for (int step = 0; step < 8; ++step) {
      const ReplicaMap placement = planReplicas(in).placement(keep);
      written.push_back(placement);
      in.currentReplicas = placement;
      in.estimatedCapacity.clear();
      for (const auto& [cluster, n] : placement) {
        if (n > canRun.at(cluster)) in.estimatedCapacity[cluster] = canRun.at(cluster);
      }
    }
    // First the uncapped split, then the capped one for good.
    EXPECT_THAT(written[0], ElementsAre(Pair("A", 20), Pair("B", 40)));
    for (size_t step = 1; step < written.size(); ++step) {
      EXPECT_THAT(written[step], ElementsAre(Pair("A", 50), Pair("B", 40))) << step;
    }
  }
}

TEST(AggregatedPlannerTest, PacksIntoFewestClustersPreferringCurrentOnes) {
  PlannerInput in;
  in.division = Division::kAggregated;
  in.totalReplicas = 6;
  in.clusters = {"a", "b", "c"};
  in.estimatedCapacity = {{"a", 2}, {"b", 5}, {"c", 4}};
  in.avoidDisruption = false;
  // Most room first: b (5) then c.
  EXPECT_THAT(planReplicas(in).plan, ElementsAre(Pair("a", 0), Pair("b", 5), Pair("c", 1)));

  in.currentReplicas = {{"c", 3}};  // c already runs it: it comes first
  EXPECT_THAT(planReplicas(in).plan, ElementsAre(Pair("a", 0), Pair("b", 2), Pair("c", 4)));

  in.totalReplicas = 14;  // 11 fit: 3 overflow on the first cluster of the order
  PlannerResult r = planReplicas(in);
  EXPECT_EQ(sum(r.plan), 11);
  EXPECT_THAT(r.overflow, ElementsAre(Pair("c", 3)));
}

TEST(AggregatedPlannerTest, AvoidDisruptionKeepsRunningReplicas) {
  PlannerInput in;
  in.division = Division::kAggregated;
  in.clusters = {"a", "b"};
  in.currentReplicas = {{"a", 4}, {"b", 2}};
  in.totalReplicas = 6;
  EXPECT_THAT(planReplicas(in).plan, ElementsAre(Pair("a", 4), Pair("b", 2)));
  in.totalReplicas = 8;  // grow the biggest holder
  EXPECT_THAT(planReplicas(in).plan, ElementsAre(Pair("a", 6), Pair("b", 2)));
  in.totalReplicas = 3;  // drain the smallest holder first
  EXPECT_THAT(planReplicas(in).plan, ElementsAre(Pair("a", 3), Pair("b", 0)));
}

// ---- randomized properties (fixed seeds: failures reproduce) ----

PlannerInput randomInput(std::mt19937& rng, bool withCapacity) {
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  PlannerInput in;
  const int n = uniform(1, 8);
  for (int i = 0; i < n; ++i) in.clusters.push_back("c" + std::to_string(i));
  in.totalReplicas = uniform(0, 60);
  in.key = "ns/w" + std::to_string(uniform(0, 1000));
  for (const auto& c : in.clusters) {
    ClusterPreference p{uniform(0, 5), uniform(0, 2), std::nullopt};
    if (uniform(0, 3) == 0) p.maxReplicas = uniform(p.minReplicas, 20);
    in.preferences[c] = p;
    if (uniform(0, 1)) in.currentReplicas[c] = uniform(0, 15);
    if (withCapacity && uniform(0, 2) == 0) in.estimatedCapacity[c] = uniform(0, 10);
  }
  in.preferences[in.clusters[0]].weight =
      std::max<int64_t>(in.preferences[in.clusters[0]].weight, 1);
  in.avoidDisruption = uniform(0, 1);
  in.keepUnschedulableReplicas = uniform(0, 1);
  return in;
}

TEST(PlannerPropertyTest, NeverExceedsLimitsAndPlacesEverythingThatFits) {
  std::mt19937 rng(20261122);
  for (int iteration = 0; iteration < 4000; ++iteration) {
    PlannerInput in = randomInput(rng, true);
    in.division = iteration % 2 ? Division::kAggregated : Division::kWeighted;
    for (auto& [c, p] : in.preferences) p.weight = std::max<int64_t>(p.weight, 1);
    PlannerResult r = planReplicas(in);
    int64_t room = 0;  // what all clusters together can hold
    for (const auto& c : in.clusters) {
      const auto& p = in.preferences.at(c);
      const int64_t planned = r.plan.at(c);
      int64_t limit = p.maxReplicas.value_or(INT64_MAX / 16);
      if (in.estimatedCapacity.count(c)) limit = std::min(limit, in.estimatedCapacity.at(c));
      ASSERT_GE(planned, 0);
      ASSERT_LE(planned, limit) << c << " iteration " << iteration;
      room += limit;
    }
    ASSERT_EQ(sum(r.plan), std::min(in.totalReplicas, room)) << "iteration " << iteration;
    for (const auto& [c, n] : r.overflow) ASSERT_GT(n, 0);
    // Overflow is only ever what did not fit, unless it is kept: by the policy, or forced for
    // Weighted division without avoidDisruption (KubeAdmiral).
    const bool forced = in.division == Division::kWeighted && !in.avoidDisruption;
    ASSERT_EQ(r.overflowKept, forced);
    if (!in.keepUnschedulableReplicas && !forced) {
      for (const auto& [c, n] : r.overflow) ASSERT_LE(n, in.totalReplicas - sum(r.plan));
    }
  }
}

TEST(PlannerPropertyTest, UnlimitedWeightedPlansSumToTotal) {
  std::mt19937 rng(7);
  for (int iteration = 0; iteration < 2000; ++iteration) {
    PlannerInput in = randomInput(rng, false);
    for (auto& [c, p] : in.preferences) p.maxReplicas.reset();
    PlannerResult r = planReplicas(in);
    ASSERT_EQ(sum(r.plan), in.totalReplicas) << "iteration " << iteration;
  }
}

TEST(PlannerPropertyTest, AvoidDisruptionOnlyMovesInTheDirectionOfTheChange) {
  std::mt19937 rng(42);
  for (int iteration = 0; iteration < 2000; ++iteration) {
    PlannerInput in = randomInput(rng, false);
    in.avoidDisruption = true;
    PlannerResult r = planReplicas(in);
    // Replicas above a cluster's maxReplicas must move; the rest are "ok" and stay put.
    auto okBefore = [&](const std::string& c) {
      const int64_t before = in.currentReplicas.count(c) ? in.currentReplicas.at(c) : 0;
      return std::min(before, in.preferences.at(c).maxReplicas.value_or(before));
    };
    int64_t currentOk = 0;
    for (const auto& c : in.clusters) currentOk += okBefore(c);
    for (const auto& c : in.clusters) {
      // Scaling up never takes replicas away from a cluster; scaling down never adds any.
      if (sum(r.plan) >= currentOk) {
        ASSERT_GE(r.plan.at(c), okBefore(c)) << c << " iteration " << iteration;
      } else {
        ASSERT_LE(r.plan.at(c), okBefore(c)) << c << " iteration " << iteration;
      }
    }
  }
}

TEST(PlannerPropertyTest, TiesAreDeterministicAndDependOnTheKey) {
  PlannerInput in;
  in.totalReplicas = 1;
  in.clusters = kMembers;
  std::set<std::string> winners;
  for (int k = 0; k < 50; ++k) {
    in.key = "ns/workload-" + std::to_string(k);
    PlannerResult first = planReplicas(in);
    std::reverse(in.clusters.begin(), in.clusters.end());  // input order must not matter
    PlannerResult second = planReplicas(in);
    ASSERT_EQ(first.plan, second.plan);
    for (const auto& [c, n] : first.plan) {
      if (n == 1) winners.insert(c);
    }
  }
  // The key changes the order, though FNV-1 (kept for KubeAdmiral compatibility) correlates
  // strongly for similar names: over these 50 keys member3 wins 40 times, member1 10 times.
  EXPECT_EQ(winners, (std::set<std::string>{"member1", "member3"}));
}

}  // namespace
}  // namespace flotilla::scheduler
