// Scheduling scenarios end to end through the default profile (seed 000's behaviours,
// docs/design.md §4).
#include "scheduler/scheduler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/validation.h"
#include "scheduler/test_clusters.h"

namespace flotilla::scheduler {
namespace {

using testing::cluster;
using ::testing::ElementsAre;
using ::testing::Pair;
using testing::q;

SchedulingUnit unit(int32_t replicas, const std::string& type = "Divided") {
  return testing::workloadUnit(replicas, type);
}

std::vector<api::FederatedCluster> threeMembers() {
  return {cluster("member1", "eu", "eu-1"), cluster("member2", "eu", "eu-2"),
          cluster("member3", "us", "us-1")};
}

ScheduleResult run(const SchedulingUnit& u, const std::vector<api::FederatedCluster>& clusters) {
  static const Profile profile = defaultProfile().value();
  return scheduleUnit(profile, u, clusters, {.explain = true});
}

TEST(SchedulerTest, DuplicatedPutsAllReplicasEverywhere) {
  ScheduleResult r = run(unit(3, "Duplicated"), threeMembers());
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_THAT(r.placement, ElementsAre(Pair("member1", 3), Pair("member2", 3), Pair("member3", 3)));
  EXPECT_STREQ(r.reason(), "Success");
}

TEST(SchedulerTest, AnObjectWithoutReplicasGoesToEverySelectedCluster) {
  // A ConfigMap (no replicas) under a Divided policy: nothing to divide, every cluster gets it.
  for (const char* type : {"Divided", "Duplicated"}) {
    ScheduleResult r = run(unit(0, type), threeMembers());
    ASSERT_TRUE(r.ok()) << r.message;
    EXPECT_THAT(r.placement,
                ElementsAre(Pair("member1", 0), Pair("member2", 0), Pair("member3", 0)))
        << type;
  }
  // Cluster affinity still decides which clusters those are.
  SchedulingUnit u = unit(0);
  u.placement.clusterAffinity = api::ClusterAffinity{};
  u.placement.clusterAffinity->clusterNames = {"member2"};
  ScheduleResult r = run(u, threeMembers());
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_THAT(r.placement, ElementsAre(Pair("member2", 0)));
}

TEST(SchedulerTest, StaticWeightsWithRemainder) {
  SchedulingUnit u = unit(7);
  u.placement.replicaScheduling->weights = {{{{"member1"}, std::nullopt}, 2, 0, std::nullopt},
                                            {{{"member2"}, std::nullopt}, 1, 0, std::nullopt}};
  ScheduleResult r = run(u, threeMembers());
  ASSERT_TRUE(r.ok()) << r.message;
  // member3 matches no weights entry and gets nothing; 7 split 2:1 rounds up for the heavier.
  EXPECT_THAT(r.placement, ElementsAre(Pair("member1", 5), Pair("member2", 2)));
}

TEST(SchedulerTest, DividesByAvailableReplicasWithoutWeights) {
  auto clusters = threeMembers();
  // Free CPU (millicores): member1 4000 - 1000 - 1000 = 2000, member2 1000, member3 1000.
  clusters[0].status.resources.allocatable["cpu"] = q("4");
  clusters[0].status.resources.allocated["cpu"] = q("1");
  clusters[0].status.resources.allocating["cpu"] = q("1000m");
  clusters[1].status.resources.allocatable["cpu"] = q("1");
  clusters[2].status.resources.allocatable["cpu"] = q("1000m");
  SchedulingUnit u = unit(8);
  u.resourceRequest = {{"cpu", q("250m")}};  // available replicas 8 : 4 : 4
  ScheduleResult r = run(u, clusters);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_THAT(r.placement, ElementsAre(Pair("member1", 4), Pair("member2", 2), Pair("member3", 2)));
}

TEST(SchedulerTest, NoClusterFitMessageCountsEveryReason) {
  auto clusters = threeMembers();
  clusters[0].spec.taints = {{"dedicated", "batch", "NoSchedule", ""}};
  clusters[1].status.conditions[0].status = "False";
  clusters[2].status.resources.allocatable["cpu"] = q("100m");
  clusters.push_back(cluster("member4"));
  clusters[3].status.conditions[0].status = "Unknown";
  SchedulingUnit u = unit(2);
  u.resourceRequest = {{"cpu", q("500m")}};
  ScheduleResult r = run(u, clusters);
  EXPECT_EQ(r.outcome, ScheduleResult::Outcome::kNoClusterFit);
  EXPECT_STREQ(r.reason(), "NoClusterFit");
  EXPECT_EQ(r.message,
            "0/4 clusters are available: 1 Insufficient cpu, 1 cluster(s) had untolerated taint "
            "{dedicated=batch:NoSchedule}, 2 cluster(s) were not ready.");
  EXPECT_EQ(r.verdicts[0].plugin, "TaintToleration");
  EXPECT_EQ(r.verdicts[2].plugin, "ResourcesFit");
}

TEST(SchedulerTest, TolerationsAndPlacedClusters) {
  auto clusters = threeMembers();
  clusters[0].spec.taints = {{"dedicated", "batch", "NoSchedule", ""}};
  SchedulingUnit u = unit(4);
  EXPECT_EQ(run(u, clusters).selected.size(), 2u);
  // Already running there: a NoSchedule taint does not evict.
  u.currentReplicas = {{"member1", 2}};
  EXPECT_EQ(run(u, clusters).selected.size(), 3u);
  u.currentReplicas.clear();
  u.placement.clusterTolerations = {{"dedicated", "Equal", "batch", "NoSchedule"}};
  EXPECT_EQ(run(u, clusters).selected.size(), 3u);
  // NoExecute evicts even placed workloads.
  clusters[0].spec.taints = {{"cluster.flotilla.io/unreachable", "", "NoExecute", ""}};
  u.currentReplicas = {{"member1", 2}};
  EXPECT_EQ(run(u, clusters).verdicts[0].plugin, "TaintToleration");
}

TEST(SchedulerTest, ClusterAffinity) {
  auto clusters = threeMembers();
  clusters[2].metadata.labels = {{"env", "prod"}};
  SchedulingUnit u = unit(2);
  u.placement.clusterAffinity.emplace();
  u.placement.clusterAffinity->fieldSelector = api::FieldSelector{{{"region", "In", {"eu"}}}};
  EXPECT_THAT(run(u, clusters).selected, ElementsAre("member1", "member2"));
  u.placement.clusterAffinity->exclude = {"member2"};
  EXPECT_THAT(run(u, clusters).selected, ElementsAre("member1"));
  u.placement.clusterAffinity = api::ClusterAffinity{};
  u.placement.clusterAffinity->labelSelector = api::LabelSelector{{{"env", "prod"}}, {}};
  EXPECT_THAT(run(u, clusters).selected, ElementsAre("member3"));
  u.placement.clusterAffinity = api::ClusterAffinity{};
  u.placement.clusterAffinity->clusterNames = {"member3", "member1"};
  ScheduleResult r = run(u, clusters);
  EXPECT_THAT(r.selected, ElementsAre("member3", "member1"));  // listed order is preferred
  EXPECT_EQ(r.verdicts[1].reason,
            "cluster(s) didn't match the placement cluster affinity constraints");
}

TEST(SchedulerTest, ApiEnablementAndNotReady) {
  auto clusters = threeMembers();
  clusters[0].status.apiEnablements.clear();
  clusters[1].status.conditions.clear();
  ScheduleResult r = run(unit(2), clusters);
  EXPECT_EQ(r.verdicts[0].reason, "cluster(s) did not have the API resource apps/v1/Deployment");
  EXPECT_EQ(r.verdicts[1].plugin, "ClusterReady");
  EXPECT_THAT(r.placement, ElementsAre(Pair("member3", 2)));
}

TEST(SchedulerTest, ACustomResourceIsNotFilteredForAnApiTheClusterDoesNotListYet) {
  // Its CRD may be on its way (the sync waits for it there); a built-in kind is filtered.
  auto clusters = threeMembers();
  clusters[0].status.apiEnablements.clear();
  SchedulingUnit u = unit(0);
  u.apiVersion = "example.flotilla.io/v1";
  u.kind = "Widget";
  ScheduleResult r = run(u, clusters);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_THAT(r.placement, ElementsAre(Pair("member1", 0), Pair("member2", 0), Pair("member3", 0)));
  u.apiVersion = "autoscaling/v2";
  u.kind = "HorizontalPodAutoscaler";
  EXPECT_EQ(run(u, clusters).placement.count("member1"), 0u);
}

TEST(SchedulerTest, SpreadAcrossRegionsAndClusters) {
  auto clusters = threeMembers();
  clusters.push_back(cluster("member4", "eu", "eu-3"));
  SchedulingUnit u = unit(6);
  u.placement.spreadConstraints = {{"region", "", 2, 2}, {"cluster", "", 2, 2}};
  ScheduleResult r = run(u, clusters);
  ASSERT_TRUE(r.ok()) << r.message;
  ASSERT_EQ(r.selected.size(), 2u);
  // Two clusters that span both regions: member3 (the only us cluster) must be one of them.
  EXPECT_NE(std::find(r.selected.begin(), r.selected.end(), "member3"), r.selected.end());

  u.placement.spreadConstraints = {{"region", "", 3, std::nullopt},
                                   {"cluster", "", 1, std::nullopt}};
  r = run(u, clusters);
  EXPECT_EQ(r.outcome, ScheduleResult::Outcome::kUnschedulable);
  EXPECT_EQ(r.message, "spread constraint region: 2 group(s) available, minGroups is 3");

  // A cluster without a zone cannot count towards zones.
  clusters[0].spec.zone = "";
  u.placement.spreadConstraints = {{"zone", "", 1, std::nullopt}, {"cluster", "", 1, std::nullopt}};
  r = run(u, clusters);
  EXPECT_EQ(r.verdicts[0].reason, "cluster(s) did not have the spread field zone");
}

TEST(SchedulerTest, MaxClustersKeepsClustersAlreadyRunningTheWorkload) {
  SchedulingUnit u = unit(4);
  u.placement.maxClusters = 2;
  u.currentReplicas = {{"member3", 4}};
  ScheduleResult r = run(u, threeMembers());
  ASSERT_EQ(r.selected.size(), 2u);
  EXPECT_NE(std::find(r.selected.begin(), r.selected.end(), "member3"), r.selected.end());
}

TEST(SchedulerTest, TopologySpreadDoNotScheduleEvensOutZones) {
  std::vector<api::FederatedCluster> clusters = {
      cluster("a1", "eu", "z1"), cluster("a2", "eu", "z1"), cluster("b1", "eu", "z2")};
  SchedulingUnit u = unit(6);
  // Without the constraint: 2:2:2 puts 4 in z1 and 2 in z2.
  EXPECT_THAT(run(u, clusters).placement, ElementsAre(Pair("a1", 2), Pair("a2", 2), Pair("b1", 2)));
  u.placement.topologySpreadConstraints = {{"zone", 1, "DoNotSchedule"}};
  ScheduleResult r = run(u, clusters);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.placement.at("b1"), 3);  // z1 = 3, z2 = 3
  EXPECT_EQ(r.placement.at("a1") + r.placement.at("a2"), 3);

  u.estimatedCapacity = {{"b1", 2}};  // z2 cannot take more: unsatisfiable
  r = run(u, clusters);
  EXPECT_EQ(r.outcome, ScheduleResult::Outcome::kUnschedulable);
  EXPECT_EQ(
      r.message,
      "topology spread constraint on zone (maxSkew 1) cannot be satisfied: zone z2 has no room "
      "for more replicas");
}

TEST(SchedulerTest, TopologySpreadScheduleAnywayPrefersEmptierDomains) {
  std::vector<api::FederatedCluster> clusters = {cluster("a1", "eu", "z1"),
                                                 cluster("b1", "eu", "z2")};
  SchedulingUnit u = unit(1);
  u.placement.topologySpreadConstraints = {{"zone", 1, "ScheduleAnyway"}};
  u.currentReplicas = {{"a1", 3}};
  ScheduleResult r = run(u, clusters);
  auto scoreOf = [&](const std::string& name) {
    for (const auto& sc : r.feasible) {
      if (sc.name() != name) continue;
      for (const auto& [plugin, s] : sc.pluginScores) {
        if (plugin == "TopologySpread") return s;
      }
    }
    return int64_t{-1};
  };
  // raw(a1) = 3 * log(4) = 4.16 -> 4; raw(b1) = 0; normalized 100 * (4 + 0 - raw) / 4.
  EXPECT_EQ(scoreOf("a1"), 0);
  EXPECT_EQ(scoreOf("b1"), 100);
}

// Seed 000's FailoverSchedule: member3 went NotReady; its replicas move to healthy clusters while
// member1 and member2 keep what they run.
TEST(SchedulerTest, FailoverReplacesTheFailedClusterAndKeepsTheOthers) {
  auto clusters = threeMembers();
  clusters.push_back(cluster("member4", "us", "us-2"));
  clusters[2].status.conditions[0].status = "False";
  SchedulingUnit u = unit(6);
  // The failover decision drops the failed cluster from the current result before scheduling.
  u.currentReplicas = {{"member1", 2}, {"member2", 2}};
  ScheduleResult r = run(u, clusters);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.verdicts[2].plugin, "ClusterReady");
  EXPECT_FALSE(r.placement.count("member3"));
  EXPECT_GE(r.placement.at("member1"), 2);
  EXPECT_GE(r.placement.at("member2"), 2);
  int64_t total = 0;
  for (const auto& [c, n] : r.placement) total += n;
  EXPECT_EQ(total, 6);
}

TEST(SchedulerTest, AggregatedPacksIntoFewClusters) {
  auto clusters = threeMembers();
  SchedulingUnit u = unit(5);
  u.placement.replicaScheduling->division = "Aggregated";
  u.resourceRequest = {{"cpu", q("1")}};
  clusters[0].status.resources.allocatable["cpu"] = q("2");
  clusters[1].status.resources.allocatable["cpu"] = q("4");
  clusters[2].status.resources.allocatable["cpu"] = q("3");
  ScheduleResult r = run(u, clusters);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_THAT(r.placement, ElementsAre(Pair("member2", 4), Pair("member3", 1)));
}

// Review findings, each pinned by a test.
TEST(SchedulerTest, SpreadCoversOnlyTheGroupsItNeeds) {
  std::vector<api::FederatedCluster> clusters;
  for (int i = 0; i < 5; ++i)
    clusters.push_back(
        cluster("m" + std::to_string(i), "r" + std::to_string(i), "z" + std::to_string(i)));
  SchedulingUnit u = unit(6);
  u.placement.spreadConstraints = {{"region", "", 2, std::nullopt}, {"cluster", "", 1, 3}};
  ScheduleResult r = run(u, clusters);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.selected.size(), 3u);
  // maxClusters caps the spread selection too, still spanning 2 regions.
  u.placement.maxClusters = 2;
  r = run(u, clusters);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.selected.size(), 2u);
}

TEST(SchedulerTest, LaterSpreadConstraintCannotBreakAnEarlierMinGroups) {
  auto clusters = threeMembers();  // member1, member2 in eu (provider aws); member3 in us
  clusters[2].spec.provider = "gcp";
  clusters[0].metadata.labels["env"] = "x";
  SchedulingUnit u = unit(4);
  u.placement.spreadConstraints = {
      {"region", "", 2, std::nullopt}, {"provider", "", 1, 1}, {"cluster", "", 1, std::nullopt}};
  ScheduleResult r = run(u, clusters);
  EXPECT_EQ(r.outcome, ScheduleResult::Outcome::kUnschedulable);
  EXPECT_EQ(
      r.message,
      "spread constraints conflict: the selected clusters span 1 region group(s), minGroups is 2");
}

TEST(SchedulerTest, StarWeightOnlyForClustersWithoutTheirOwnEntry) {
  SchedulingUnit u = unit(8);
  u.placement.replicaScheduling->weights = {{{{"*"}, std::nullopt}, 1, 0, std::nullopt},
                                            {{{"member1"}, std::nullopt}, 6, 0, std::nullopt}};
  ScheduleResult r = run(u, threeMembers());
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_THAT(r.placement, ElementsAre(Pair("member1", 6), Pair("member2", 1), Pair("member3", 1)));
}

TEST(SchedulerTest, TopologySpreadRespectsMaxReplicas) {
  std::vector<api::FederatedCluster> clusters = {cluster("a1", "eu", "z1"),
                                                 cluster("b1", "eu", "z2")};
  SchedulingUnit u = unit(4);
  u.placement.replicaScheduling->weights = {{{{"a1"}, std::nullopt}, 1, 0, 1},
                                            {{{"b1"}, std::nullopt}, 1, 0, std::nullopt}};
  u.placement.topologySpreadConstraints = {{"zone", 1, "DoNotSchedule"}};
  ScheduleResult r = run(u, clusters);
  EXPECT_EQ(r.outcome, ScheduleResult::Outcome::kUnschedulable);  // never a1 = 2 > maxReplicas 1
}

TEST(SchedulerTest, NothingPlaceableIsUnschedulableNotAnEmptyPlacement) {
  SchedulingUnit u = unit(3);
  u.estimatedCapacity = {{"member1", 0}, {"member2", 0}, {"member3", 0}};
  ScheduleResult r = run(u, threeMembers());
  EXPECT_EQ(r.outcome, ScheduleResult::Outcome::kUnschedulable);
  EXPECT_EQ(r.message, "0/3 clusters have enough room: 0 of 3 replicas fit");
  u.keepUnschedulableReplicas = true;  // keeping them is a placement
  EXPECT_TRUE(run(u, threeMembers()).ok());
  // Static weights: no shortfall check (weights are intent), but never an empty placement.
  u.keepUnschedulableReplicas = false;
  u.placement.replicaScheduling->weights = {{{{"*"}, std::nullopt}, 1, 0, std::nullopt}};
  r = run(u, threeMembers());
  EXPECT_EQ(r.outcome, ScheduleResult::Outcome::kUnschedulable);
  EXPECT_EQ(r.message, "no replica could be placed on the 3 selected cluster(s)");
}

TEST(SchedulerTest, MalformedClusterNumbersDoNotOverflow) {
  auto clusters = threeMembers();
  clusters[0].status.resources.allocated = {{"cpu", q("-1")}, {"memory", q("-5Gi")}};
  clusters[1].status.resources.allocatable["cpu"] = q("9000P");
  SchedulingUnit u = unit(3);
  u.resourceRequest = {{"cpu", q("8E")}};
  ScheduleResult r = run(u, clusters);  // must not trap under UBSan; the result itself is secondary
  EXPECT_NE(r.outcome, ScheduleResult::Outcome::kError);
}

TEST(SchedulerTest, UnitFromBinding) {
  api::ResourceBinding rb;
  rb.spec.resource = {"flotilla.io/v1alpha1", "FederatedDeployment", "shop", "web", "u1"};
  rb.spec.replicas = 6;
  rb.spec.replicaRequirements.resourceRequest = {{"cpu", q("250m")}};
  rb.spec.clusters = {{"member1", 4}, {"member2", 2}};
  rb.status.autoMigration = api::AutoMigrationStatus{{{"member1", 3}}, {}, ""};
  SchedulingUnit u = unitFromBinding(rb, true);
  EXPECT_EQ(u.key, "shop/web");
  EXPECT_EQ(u.apiVersion, "apps/v1");
  EXPECT_EQ(u.kind, "Deployment");
  EXPECT_EQ(u.placement.replicaScheduling->type, "Divided");
  EXPECT_THAT(u.currentReplicas, ElementsAre(Pair("member1", 4), Pair("member2", 2)));
  EXPECT_THAT(u.estimatedCapacity, ElementsAre(Pair("member1", 3)));
  EXPECT_TRUE(u.keepUnschedulableReplicas);
  EXPECT_EQ(placementSummary({{"member1", 1}, {"member2", 3}, {"member3", 2}}),
            "member1=1 member2=3 member3=2");
}

}  // namespace
}  // namespace flotilla::scheduler
