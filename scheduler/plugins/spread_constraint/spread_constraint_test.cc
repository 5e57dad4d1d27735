// Spread-constraint selection (docs/design.md §4.3): groups are chosen so that every constraint
// holds whenever some choice exists, higher scores preferred, deterministically. End to end through
// the default profile; the property test compares with a brute force over every subset.
#include "scheduler/plugins/spread_constraint/spread_constraint.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "scheduler/framework/cluster_fields.h"
#include "scheduler/scheduler.h"
#include "scheduler/test_clusters.h"

namespace flotilla::scheduler {
namespace {

using testing::cluster;
using testing::q;
using ::testing::UnorderedElementsAre;

ScheduleResult run(const SchedulingUnit& u, const std::vector<api::FederatedCluster>& clusters) {
  static const Profile profile = defaultProfile().value();
  return scheduleUnit(profile, u, clusters);
}

// eu holds the best cluster (preferred by clusterAffinity order) but only two; us holds three.
std::vector<api::FederatedCluster> euTwoUsThree() {
  return {cluster("eu1", "eu", "eu-1"), cluster("eu2", "eu", "eu-2"), cluster("us1", "us", "us-1"),
          cluster("us2", "us", "us-2"), cluster("us3", "us", "us-3")};
}

SchedulingUnit preferEu(int32_t replicas) {
  SchedulingUnit u = testing::workloadUnit(replicas);
  u.placement.clusterAffinity.emplace();
  u.placement.clusterAffinity->clusterNames = {"eu1", "eu2", "us1", "us2", "us3"};
  return u;
}

// Issue example: cluster minGroups 3 and region maxGroups 1. The best region has 2 clusters, the
// other 3: choosing the other satisfies every constraint.
TEST(SpreadSelectionTest, ChoosesTheRegionThatHoldsEnoughClusters) {
  SchedulingUnit u = preferEu(6);
  u.placement.spreadConstraints = {{"region", "", 1, 1}, {"cluster", "", 3, std::nullopt}};
  ScheduleResult r = run(u, euTwoUsThree());
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_THAT(r.selected, UnorderedElementsAre("us1", "us2", "us3"));
  // Two clusters are enough: the best region wins, as before.
  u.placement.spreadConstraints = {{"region", "", 1, 1}, {"cluster", "", 2, std::nullopt}};
  r = run(u, euTwoUsThree());
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_THAT(r.selected, UnorderedElementsAre("eu1", "eu2"));
  // No region holds four: Unschedulable, with the best choice's reason.
  u.placement.spreadConstraints = {{"region", "", 1, 1}, {"cluster", "", 4, std::nullopt}};
  r = run(u, euTwoUsThree());
  EXPECT_EQ(r.outcome, ScheduleResult::Outcome::kUnschedulable);
  EXPECT_EQ(r.message, "spread constraint cluster: 2 cluster(s) available, minGroups is 4");
  // Without maxGroups every region is kept: four clusters over both.
  u.placement.spreadConstraints = {{"region", "", 1, std::nullopt}, {"cluster", "", 4, 4}};
  r = run(u, euTwoUsThree());
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.selected.size(), 4u);
}

// Groups are also chosen for room: with dynamic weights the best region cannot hold the replicas.
// (Room from auto-migration's estimates, which leave the scores alone.)
TEST(SpreadSelectionTest, ChoosesTheRegionThatHoldsTheReplicas) {
  SchedulingUnit u = preferEu(6);
  u.estimatedCapacity = {{"eu1", 2}, {"eu2", 2}, {"us1", 3}, {"us2", 3}, {"us3", 3}};
  u.placement.spreadConstraints = {{"region", "", 1, 1}};
  ScheduleResult r = run(u, euTwoUsThree());  // eu: room 4; us: room 9
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_THAT(r.selected, UnorderedElementsAre("us1", "us2", "us3"));
  u.replicas = 4;  // eu holds 4: the best region again
  r = run(u, euTwoUsThree());
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_THAT(r.selected, UnorderedElementsAre("eu1", "eu2"));
  u.replicas = 10;  // no region holds 10: the best choice, and the shortfall named
  r = run(u, euTwoUsThree());
  EXPECT_EQ(r.outcome, ScheduleResult::Outcome::kUnschedulable);
  EXPECT_EQ(r.message, "0/2 clusters have enough room: 4 of 10 replicas fit");
  // At most two clusters: the roomiest fill the places the constraints leave free.
  u.replicas = 5;
  u.placement.spreadConstraints = {{"region", "", 1, std::nullopt}, {"cluster", "", 1, 2}};
  r = run(u, euTwoUsThree());
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_THAT(r.selected, UnorderedElementsAre("eu1", "us1"));
  u.replicas = 4;  // the two best hold 4
  r = run(u, euTwoUsThree());
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_THAT(r.selected, UnorderedElementsAre("eu1", "eu2"));
}

// Two group constraints where taking each group's best cluster in turn needs too many clusters.
TEST(SpreadSelectionTest, CoversSeveralConstraintsWithFewClusters) {
  // Region r1: a (provider p1), b (p2); region r2: c (p1), d (p2). Preference a, c, b, d.
  std::vector<api::FederatedCluster> fleet = {cluster("a", "r1", "z1"), cluster("b", "r1", "z2"),
                                              cluster("c", "r2", "z3"), cluster("d", "r2", "z4")};
  fleet[0].spec.provider = fleet[2].spec.provider = "p1";
  fleet[1].spec.provider = fleet[3].spec.provider = "p2";
  SchedulingUnit u = testing::workloadUnit(2);
  u.placement.clusterAffinity.emplace();
  u.placement.clusterAffinity->clusterNames = {"a", "c", "b", "d"};
  u.placement.spreadConstraints = {
      {"region", "", 2, std::nullopt}, {"provider", "", 2, std::nullopt}, {"cluster", "", 1, 2}};
  ScheduleResult r = run(u, fleet);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_THAT(r.selected, UnorderedElementsAre("a", "d"));  // best a, then what completes it
}

// The constraint fields the property test draws from.
struct Constraints {
  std::vector<api::SpreadConstraint> spread;
  std::optional<int32_t> maxClusters;
};

// Whether `chosen` satisfies every spread constraint and maxClusters (the brute force's check).
bool satisfies(const std::vector<const api::FederatedCluster*>& chosen, const Constraints& c) {
  if (chosen.empty()) return false;
  const auto n = static_cast<int64_t>(chosen.size());
  if (c.maxClusters && *c.maxClusters > 0 && n > *c.maxClusters) return false;
  for (const auto& s : c.spread) {
    std::set<std::string> groups;
    for (const auto* cl : chosen) groups.insert(clusterField(*cl, s.spreadByField));
    const auto count = static_cast<int64_t>(groups.size());
    if (count < s.minGroups.value_or(1)) return false;
    if (s.maxGroups && count > *s.maxGroups) return false;
  }
  return true;
}

// Property (fixed seed): whenever some subset of the clusters satisfies every spread constraint,
// Flotilla selects one that does; what it selects always satisfies them; and the result is the
// same across runs and input orders.
TEST(SpreadSelectionTest, PropertyFindsASelectionWheneverOneExists) {
  std::mt19937 rng(20261124);
  const char* fields[] = {"region", "zone", "provider"};
  int feasible = 0;
  for (int iteration = 0; iteration < 1500; ++iteration) {
    const int n = 1 + static_cast<int>(rng() % 8);
    std::vector<api::FederatedCluster> fleet;
    for (int i = 0; i < n; ++i) {
      api::FederatedCluster c = cluster("m" + std::to_string(i), "r" + std::to_string(rng() % 4),
                                        "z" + std::to_string(rng() % 5));
      c.spec.provider = "p" + std::to_string(rng() % 3);
      fleet.push_back(std::move(c));
    }
    Constraints c;
    for (const char* field : fields) {
      if (rng() % 2) continue;
      const int32_t min = 1 + static_cast<int32_t>(rng() % 3);
      std::optional<int32_t> max;
      if (rng() % 2) max = min + static_cast<int32_t>(rng() % 2);
      c.spread.push_back({field, "", min, max});
    }
    if (rng() % 2) {
      const int32_t min = 1 + static_cast<int32_t>(rng() % 4);
      std::optional<int32_t> max;
      if (rng() % 2) max = min + static_cast<int32_t>(rng() % 3);
      c.spread.push_back({"cluster", "", min, max});
    }
    if (rng() % 3 == 0) c.maxClusters = 1 + static_cast<int32_t>(rng() % 4);
    if (c.spread.empty())
      c.spread.push_back({"region", "", 1 + static_cast<int32_t>(rng() % 3), 1});

    bool exists = false;
    for (uint32_t mask = 1; mask < (1u << n) && !exists; ++mask) {
      std::vector<const api::FederatedCluster*> chosen;
      for (int i = 0; i < n; ++i) {
        if (mask & (1u << i)) chosen.push_back(&fleet[static_cast<size_t>(i)]);
      }
      exists = satisfies(chosen, c);
    }

    SchedulingUnit u = testing::workloadUnit(2, "Duplicated");
    u.placement.spreadConstraints = c.spread;
    u.placement.maxClusters = c.maxClusters;
    ScheduleResult r = run(u, fleet);
    if (r.ok()) {
      std::vector<const api::FederatedCluster*> chosen;
      for (const auto& name : r.selected) {
        for (const auto& cl : fleet) {
          if (cl.metadata.name == name) chosen.push_back(&cl);
        }
      }
      ASSERT_TRUE(satisfies(chosen, c)) << "iteration " << iteration;
    }
    ASSERT_EQ(r.ok(), exists) << r.message << " iteration " << iteration;
    feasible += exists;

    ScheduleResult again = run(u, fleet);
    std::shuffle(fleet.begin(), fleet.end(), rng);
    ScheduleResult shuffled = run(u, fleet);
    for (const ScheduleResult* other : {&again, &shuffled}) {
      ASSERT_EQ(other->selected, r.selected) << "iteration " << iteration;
      ASSERT_EQ(other->placement, r.placement) << "iteration " << iteration;
      ASSERT_EQ(other->message, r.message) << "iteration " << iteration;
    }
  }
  // Both outcomes are well represented.
  EXPECT_GT(feasible, 300);
  EXPECT_LT(feasible, 1200);
}

}  // namespace
}  // namespace flotilla::scheduler
