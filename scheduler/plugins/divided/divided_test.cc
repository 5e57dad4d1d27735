// Divided replicas against cluster capacity (docs/design.md §4.5): dynamic weights and Aggregated
// division never place beyond a cluster's room, unknown capacity attracts nothing, and a workload's
// own pods never push it off a cluster it runs on. End to end through the default profile.
#include "scheduler/plugins/divided/divided.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <numeric>
#include <random>

#include "scheduler/scheduler.h"
#include "scheduler/test_clusters.h"

namespace flotilla::scheduler {
namespace {

using testing::cluster;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Pair;
using testing::q;

ScheduleResult run(const SchedulingUnit& u, const std::vector<api::FederatedCluster>& clusters) {
  static const Profile profile = defaultProfile().value();
  return scheduleUnit(profile, u, clusters);
}

// A cluster with room for `room` one-CPU replicas (and plenty of memory and pods).
api::FederatedCluster withRoom(const std::string& name, int room) {
  api::FederatedCluster c = cluster(name, "eu", "eu-1");
  c.status.resources.allocatable["cpu"] = q(std::to_string(room).c_str());
  return c;
}

// A Divided unit of `replicas` one-CPU replicas (dynamic weights unless the test adds weights).
SchedulingUnit oneCpu(int32_t replicas) {
  SchedulingUnit u = testing::workloadUnit(replicas);
  u.resourceRequest = {{"cpu", q("1")}};
  return u;
}

int64_t total(const ReplicaMap& m) {
  return std::accumulate(m.begin(), m.end(), int64_t{0},
                         [](int64_t acc, const auto& kv) { return acc + kv.second; });
}

TEST(DynamicWeightsCapacityTest, OneClusterWithRoomForThreeOfTen) {
  ScheduleResult r = run(oneCpu(10), {withRoom("member1", 3)});
  EXPECT_EQ(r.outcome, ScheduleResult::Outcome::kUnschedulable);
  EXPECT_STREQ(r.reason(), "Unschedulable");
  EXPECT_EQ(r.message, "0/1 clusters have enough room: 3 of 10 replicas fit");
  EXPECT_THAT(r.placement, IsEmpty());
  // Exact fit and one fewer.
  r = run(oneCpu(3), {withRoom("member1", 3)});
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_THAT(r.placement, ElementsAre(Pair("member1", 3)));
  EXPECT_TRUE(run(oneCpu(2), {withRoom("member1", 3)}).ok());
  // One replica short.
  EXPECT_EQ(run(oneCpu(4), {withRoom("member1", 3)}).message,
            "0/1 clusters have enough room: 3 of 4 replicas fit");
}

TEST(DynamicWeightsCapacityTest, RoomThreeFiveSevenForTwentyFour) {
  const std::vector<api::FederatedCluster> fleet = {withRoom("a", 3), withRoom("b", 5),
                                                    withRoom("c", 7)};
  ScheduleResult r = run(oneCpu(24), fleet);
  EXPECT_EQ(r.outcome, ScheduleResult::Outcome::kUnschedulable);
  EXPECT_EQ(r.message, "0/3 clusters have enough room: 15 of 24 replicas fit");
  r = run(oneCpu(15), fleet);  // exact fit
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_THAT(r.placement, ElementsAre(Pair("a", 3), Pair("b", 5), Pair("c", 7)));
  EXPECT_EQ(run(oneCpu(16), fleet).message, "0/3 clusters have enough room: 15 of 16 replicas fit");
  for (int32_t replicas = 1; replicas <= 15; ++replicas) {
    r = run(oneCpu(replicas), fleet);
    ASSERT_TRUE(r.ok()) << replicas << ": " << r.message;
    EXPECT_EQ(total(r.placement), replicas);
    EXPECT_LE(r.placement["a"], 3);
    EXPECT_LE(r.placement["b"], 5);
    EXPECT_LE(r.placement["c"], 7);
  }
}

TEST(DynamicWeightsCapacityTest, KeepingUnschedulableReplicasReportsTheExcessAsOverflow) {
  SchedulingUnit u = oneCpu(24);
  u.keepUnschedulableReplicas = true;
  ScheduleResult r = run(u, {withRoom("a", 3), withRoom("b", 5), withRoom("c", 7)});
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_THAT(r.assignment.plan, ElementsAre(Pair("a", 3), Pair("b", 5), Pair("c", 7)));
  // Each cluster's share beyond its room (12 - 7, 8 - 5, 5 - 3), none more than the 9 that fit
  // nowhere, kept on the clusters that would take them.
  EXPECT_THAT(r.assignment.overflow, ElementsAre(Pair("a", 2), Pair("b", 3), Pair("c", 5)));
  EXPECT_THAT(r.placement, ElementsAre(Pair("a", 5), Pair("b", 8), Pair("c", 12)));
}

TEST(DynamicWeightsCapacityTest, ZeroCapacityClustersTakeNothing) {
  std::vector<api::FederatedCluster> fleet = {withRoom("a", 4), withRoom("b", 4)};
  SchedulingUnit u = oneCpu(4);
  u.estimatedCapacity = {{"a", 0}};  // auto-migration found a cannot run any
  ScheduleResult r = run(u, fleet);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_THAT(r.placement, ElementsAre(Pair("b", 4)));
  // A cluster out of CPU does not pass ResourcesFit unless it already runs the workload.
  fleet[1].status.resources.allocated["cpu"] = q("4");
  r = run(oneCpu(4), fleet);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_THAT(r.placement, ElementsAre(Pair("a", 4)));
  EXPECT_EQ(r.verdicts[1].reason, "Insufficient cpu");
}

// Issue 5: the workload's own pods (running and pending) do not count against its own room.
TEST(DynamicWeightsCapacityTest, OwnPendingPodsDoNotEvictTheWorkload) {
  api::FederatedCluster a = withRoom("a", 4);
  // Others use 3 CPUs; the workload runs 1 replica (allocated) and has 1 pending (allocating).
  a.status.resources.allocated = {{"cpu", q("4")}};
  a.status.resources.allocating = {{"cpu", q("1")}};
  SchedulingUnit u = oneCpu(2);
  u.currentReplicas = {{"a", 2}};
  ScheduleResult r = run(u, {a, withRoom("b", 5)});
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.verdicts[0].plugin, "");                                // placed: passes ResourcesFit
  EXPECT_THAT(r.placement, ElementsAre(Pair("a", 1), Pair("b", 1)));  // keeps 1, not 0
  // Alone it is a shortfall, and the previous placement stays (Unschedulable writes nothing).
  r = run(u, {a});
  EXPECT_EQ(r.message, "0/1 clusters have enough room: 1 of 2 replicas fit");
  // Room for both once the others shrink: nothing moves.
  a.status.resources.allocated = {{"cpu", q("2")}};
  r = run(u, {a, withRoom("b", 5)});
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_THAT(r.placement, ElementsAre(Pair("a", 2)));
}

TEST(DynamicWeightsCapacityTest, ClustersAlreadyHoldingReplicasKeepThemWithinRoom) {
  SchedulingUnit u = oneCpu(12);
  u.currentReplicas = {{"a", 6}, {"b", 6}};
  api::FederatedCluster a = withRoom("a", 8);
  a.status.resources.allocated = {{"cpu", q("6")}};  // its own 6 replicas: room 8 in all
  api::FederatedCluster b = withRoom("b", 8);
  b.status.resources.allocated = {{"cpu", q("8")}};  // its 6 plus 2 of others: room 6
  ScheduleResult r = run(u, {a, b});
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_THAT(r.placement, ElementsAre(Pair("a", 6), Pair("b", 6)));
  u.replicas = 14;  // room 8 + 6: exact
  r = run(u, {a, b});
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_THAT(r.placement, ElementsAre(Pair("a", 8), Pair("b", 6)));
  u.replicas = 15;
  EXPECT_EQ(run(u, {a, b}).message, "0/2 clusters have enough room: 14 of 15 replicas fit");
}

TEST(AggregatedCapacityTest, ShortfallIsUnschedulable) {
  SchedulingUnit u = oneCpu(24);
  u.placement.replicaScheduling->division = "Aggregated";
  const std::vector<api::FederatedCluster> fleet = {withRoom("a", 3), withRoom("b", 5),
                                                    withRoom("c", 7)};
  EXPECT_EQ(run(u, fleet).message, "0/3 clusters have enough room: 15 of 24 replicas fit");
  u.replicas = 12;
  ScheduleResult r = run(u, fleet);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_THAT(r.placement, ElementsAre(Pair("b", 5), Pair("c", 7)));
}

// Static weights are intent: capacity is auto-migration's business (KubeAdmiral).
TEST(StaticWeightsCapacityTest, WeightsIgnoreResourceRoom) {
  SchedulingUnit u = oneCpu(10);
  u.placement.replicaScheduling->weights = {{{{"*"}, std::nullopt}, 1, 0, std::nullopt}};
  ScheduleResult r = run(u, {withRoom("member1", 3)});
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_THAT(r.placement, ElementsAre(Pair("member1", 10)));
}

// Issue 2: capacity Flotilla does not know never attracts the workload.
TEST(UnknownCapacityTest, ClusterWithoutAnyResources) {
  api::FederatedCluster fresh = cluster("fresh", "eu", "eu-1");
  fresh.status.resources = {};                   // just joined: status not collected yet
  SchedulingUnit u = testing::workloadUnit(10);  // no requests
  ScheduleResult r = run(u, {fresh, withRoom("member1", 4)});
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_THAT(r.placement, ElementsAre(Pair("member1", 10)));  // pods bound it: 110
  EXPECT_EQ(r.verdicts[0].plugin, "ResourcesFit");
  EXPECT_EQ(r.verdicts[0].reason, "cluster(s) had not reported their resources yet");
  r = run(u, {fresh});
  EXPECT_EQ(r.outcome, ScheduleResult::Outcome::kNoClusterFit);
  EXPECT_EQ(r.message,
            "0/1 clusters are available: 1 cluster(s) had not reported their resources yet.");
  u.placement.replicaScheduling->division = "Aggregated";
  EXPECT_EQ(run(u, {fresh}).outcome, ScheduleResult::Outcome::kNoClusterFit);
  // Already running there: it keeps what it has and gets nothing more.
  u.placement.replicaScheduling->division = "Weighted";
  u.currentReplicas = {{"fresh", 2}};
  r = run(u, {fresh, withRoom("member1", 4)});
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_THAT(r.placement, ElementsAre(Pair("fresh", 2), Pair("member1", 8)));
  // Static weights without requests: intent, as before.
  u.currentReplicas.clear();
  u.placement.replicaScheduling->weights = {{{{"*"}, std::nullopt}, 1, 0, std::nullopt}};
  r = run(u, {fresh});
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_THAT(r.placement, ElementsAre(Pair("fresh", 10)));
  // With requests, a cluster that reported nothing fails ResourcesFit whatever the division.
  u.resourceRequest = {{"cpu", q("1")}};
  EXPECT_EQ(run(u, {fresh}).verdicts[0].reason, "cluster(s) had not reported their resources yet");
}

TEST(UnknownCapacityTest, NoAllocatablePodsForAWorkloadWithoutRequests) {
  api::FederatedCluster noPods = cluster("nopods", "eu", "eu-1");
  noPods.status.resources.allocatable.erase("pods");
  SchedulingUnit u = testing::workloadUnit(6);
  ScheduleResult r = run(u, {noPods, withRoom("member1", 4)});
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_THAT(r.placement, ElementsAre(Pair("member1", 6)));
  EXPECT_EQ(r.verdicts[0].reason, "cluster(s) did not report allocatable pods");
  // Requests bound it even without a pods entry.
  u.resourceRequest = {{"cpu", q("1")}};
  r = run(u, {noPods, withRoom("member1", 4)});
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.placement["nopods"], 4);  // 8 CPUs vs 4: weights 8:4 of 6
  EXPECT_EQ(r.placement["member1"], 2);
}

TEST(UnknownCapacityTest, RequestedResourceTheClusterDoesNotReport) {
  SchedulingUnit u = testing::workloadUnit(2);
  u.resourceRequest = {{"nvidia.com/gpu", q("1")}};
  api::FederatedCluster gpu = withRoom("gpu", 4);
  gpu.status.resources.allocatable["nvidia.com/gpu"] = q("1");
  ScheduleResult r = run(u, {withRoom("member1", 4), gpu});
  EXPECT_EQ(r.verdicts[0].reason, "Insufficient nvidia.com/gpu");
  EXPECT_EQ(r.message, "0/1 clusters have enough room: 1 of 2 replicas fit");
  u.replicas = 1;
  r = run(u, {withRoom("member1", 4), gpu});
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_THAT(r.placement, ElementsAre(Pair("gpu", 1)));
}

// Property (fixed seeds): with dynamic weights no cluster's assignment exceeds its room, a
// shortfall is Unschedulable exactly when the clusters cannot hold the replicas, and the result
// does not depend on the order the clusters are listed in.
TEST(DynamicWeightsCapacityTest, PropertyNeverBeyondRoom) {
  std::mt19937 rng(20261124);
  for (int iteration = 0; iteration < 500; ++iteration) {
    const int n = 1 + static_cast<int>(rng() % 6);
    std::vector<api::FederatedCluster> fleet;
    std::map<std::string, int64_t> room;
    SchedulingUnit u = oneCpu(static_cast<int32_t>(rng() % 30));
    u.placement.replicaScheduling->avoidDisruption = rng() % 2 == 0;
    if (rng() % 3 == 0) u.placement.replicaScheduling->division = "Aggregated";
    for (int i = 0; i < n; ++i) {
      const std::string name = "m" + std::to_string(i);
      const int free = static_cast<int>(rng() % 9);
      const int own = rng() % 3 == 0 ? static_cast<int>(rng() % 5) : 0;
      api::FederatedCluster c = withRoom(name, free + own);
      c.status.resources.allocated = {{"cpu", q(std::to_string(own).c_str())}};
      if (own > 0) u.currentReplicas[name] = own;
      room[name] = free + own;
      if (rng() % 5 == 0) {
        u.estimatedCapacity[name] = rng() % 4;
        room[name] = std::min(room[name], u.estimatedCapacity[name]);
      }
      fleet.push_back(std::move(c));
    }
    int64_t fits = 0;
    ScheduleResult r = run(u, fleet);
    for (const auto& name : r.selected) fits += room[name];
    if (r.ok()) {
      for (const auto& [name, replicas] : r.placement) {
        ASSERT_LE(replicas, room[name]) << name << " iteration " << iteration;
      }
      ASSERT_EQ(total(r.placement), u.replicas) << "iteration " << iteration;
    } else if (r.outcome == ScheduleResult::Outcome::kUnschedulable) {
      ASSERT_LT(fits, u.replicas) << r.message << " iteration " << iteration;
    }
    std::reverse(fleet.begin(), fleet.end());
    ScheduleResult reversed = run(u, fleet);
    ASSERT_EQ(reversed.outcome, r.outcome) << "iteration " << iteration;
    ASSERT_EQ(reversed.placement, r.placement) << "iteration " << iteration;
    ASSERT_EQ(reversed.message, r.message) << "iteration " << iteration;
  }
}

}  // namespace
}  // namespace flotilla::scheduler
