#include "scheduler/available_replicas.h"

#include <gtest/gtest.h>

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
  EXPECT_EQ(availableReplicas(r, {{"cpu", q("0")}, {"memory", q("0")}}), INT32_MAX);
}

}  // namespace
}  // namespace flotilla::scheduler
