#include "scheduler/available_replicas.h"

#include <gtest/gtest.h>

#include "scheduler/framework/snapshot.h"
#include "scheduler/test_clusters.h"

namespace flotilla::scheduler {
namespace {

using testing::q;

TEST(AvailableReplicasTest, AllocatableMinusAllocatedMinusAllocating) {
  api::ClusterResources r;
  r.allocatable = {{"cpu", q("4")}, {"memory", q("8Gi")}, {"pods", q("110")}};
  r.allocated = {{"cpu", q("1500m")}, {"memory", q("2Gi")}, {"pods", q("10")}};
  r.allocating = {{"cpu", q("500m")}};
  // CPU in millicores: (4000 - 1500 - 500) / 250 = 8; memory: 6Gi / 512Mi = 12.
  EXPECT_EQ(availableReplicas(r, {{"cpu", q("250m")}, {"memory", q("512Mi")}}), 8);
  EXPECT_EQ(availableReplicas(r, {{"cpu", q("100m")}, {"memory", q("1Gi")}}), 6);
  // 100m requests count in millicores, not rounded up to whole cores.
  EXPECT_EQ(availableReplicas(r, {{"cpu", q("100m")}}), 20);
  // Bounded by the pods the cluster can still take.
  EXPECT_EQ(availableReplicas(r, {{"cpu", q("1m")}}), 100);
  EXPECT_EQ(availableReplicas(r, {}), 100);
}

TEST(AvailableReplicasTest, MissingOrExhaustedResourceMeansZero) {
  api::ClusterResources r;
  r.allocatable = {{"cpu", q("2")}};
  EXPECT_EQ(availableReplicas(r, {{"nvidia.com/gpu", q("1")}}), 0);
  r.allocated = {{"cpu", q("2")}};
  EXPECT_EQ(availableReplicas(r, {{"cpu", q("100m")}}), 0);
  r.allocated = {{"cpu", q("3")}};  // over-committed
  EXPECT_EQ(availableReplicas(r, {{"cpu", q("100m")}}), 0);
}

// Capacity Flotilla does not know is never unlimited (docs/design.md §4.5).
TEST(AvailableReplicasTest, UnknownCapacityCountsAsZero) {
  api::ClusterResources r;  // nothing reported yet
  EXPECT_EQ(availableReplicas(r, {}), 0);
  EXPECT_EQ(availableReplicas(r, {{"cpu", q("100m")}}), 0);
  r.allocatable = {{"cpu", q("2")}};  // no pods entry: a workload without requests is unbounded
  EXPECT_EQ(availableReplicas(r, {}), 0);
  EXPECT_EQ(availableReplicas(r, {{"cpu", q("0")}, {"memory", q("0")}}), 0);
  EXPECT_EQ(availableReplicas(r, {{"cpu", q("500m")}}), 4);    // requests bound it
  EXPECT_EQ(availableReplicas(r, {{"memory", q("1Gi")}}), 0);  // a resource it does not report
}

// The workload's own replicas there (running or pending) are added back before dividing.
TEST(AvailableReplicasTest, RoomAddsBackTheWorkloadsOwnReplicas) {
  api::ClusterResources r;
  // 4 CPUs: 3 used by others and one own running replica, one own replica pending.
  r.allocatable = {{"cpu", q("4")}, {"pods", q("110")}};
  r.allocated = {{"cpu", q("4")}, {"pods", q("4")}};
  r.allocating = {{"cpu", q("1")}, {"pods", q("1")}};
  const RequestView oneCpu = requestView({{"cpu", q("1")}});
  const ResourceView view(r);
  EXPECT_EQ(availableReplicas(view, oneCpu), 0);
  EXPECT_EQ(replicaRoom(view, oneCpu, 2), 1);  // keeps 1 of its 2, not 0
  EXPECT_EQ(replicaRoom(view, oneCpu, 0), 0);
  // Unknown capacity holds what it has and attracts nothing new.
  EXPECT_EQ(replicaRoom(ResourceView(api::ClusterResources{}), oneCpu, 3), 3);
  EXPECT_EQ(replicaRoom(ResourceView(api::ClusterResources{}), {}, 0), 0);
  api::ClusterResources noPods;
  noPods.allocatable = {{"cpu", q("64")}};
  EXPECT_FALSE(capacityKnown(ResourceView(noPods), {}));
  EXPECT_EQ(replicaRoom(ResourceView(noPods), {}, 2), 2);
  EXPECT_TRUE(capacityKnown(ResourceView(noPods), oneCpu));
  EXPECT_EQ(replicaRoom(ResourceView(noPods), oneCpu, 2), 66);
  // Absurd numbers saturate instead of overflowing.
  EXPECT_LE(replicaRoom(view, requestView({{"cpu", q("8E")}}), INT32_MAX), INT32_MAX);
}

}  // namespace
}  // namespace flotilla::scheduler
