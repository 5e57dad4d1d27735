#include <gtest/gtest.h>

#include "api/test_util.h"
#include "api/validation.h"

namespace flotilla::api {
namespace {

using testing::fromYaml;

TEST(DefaultsTest, PolicyGetsDesignDefaults) {
  auto p = fromYaml<PropagationPolicy>(R"(
kind: PropagationPolicy
metadata: {name: p}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]
  placement:
    spreadConstraints: [{spreadByField: cluster}]
  autoMigration: {}
)");
  setDefaults(p);
  EXPECT_EQ(p.spec.priority, 0);
  const ReplicaScheduling& rs = p.spec.placement.replicaScheduling.value();
  // A policy's absent type means the selected kind's default (Divided; Duplicated for a
  // StatefulSet), which its bindings record.
  EXPECT_EQ(rs.type, "");
  EXPECT_EQ(rs.division, "Weighted");
  EXPECT_EQ(rs.avoidDisruption, true);
  EXPECT_EQ(rs.dynamicWeight, "");  // no weights means dynamic weights; nothing is written
  EXPECT_EQ(p.spec.placement.spreadConstraints[0].minGroups, 1);
  EXPECT_FALSE(p.spec.placement.spreadConstraints[0].maxGroups.has_value());  // all groups
  EXPECT_FALSE(p.spec.placement.maxClusters.has_value());
  EXPECT_EQ(p.spec.autoMigration->podUnschedulableFor, "1m");
  EXPECT_EQ(p.spec.autoMigration->capacityTTL, "5m");
  EXPECT_FALSE(p.spec.autoMigration->keepUnschedulableReplicas);
  ASSERT_TRUE(p.spec.failover.has_value());
  EXPECT_EQ(p.spec.failover->clusterNotReadyFor, "60s");
  EXPECT_EQ(p.spec.failover->failback, "Rebalance");
  EXPECT_TRUE(validate(p).empty());
}

TEST(DefaultsTest, AutoMigrationStaysOffWhenAbsent) {
  PropagationPolicy p;
  setDefaults(p);
  EXPECT_FALSE(p.spec.autoMigration.has_value());
}

TEST(DefaultsTest, ExplicitValuesAreKept) {
  auto p = fromYaml<PropagationPolicy>(R"(
kind: PropagationPolicy
metadata: {name: p}
spec:
  placement:
    spreadConstraints: [{spreadByField: cluster, minGroups: 3}]
    replicaScheduling: {type: Duplicated, avoidDisruption: false}
  failover: {failback: Never}
)");
  setDefaults(p);
  const auto& rs = *p.spec.placement.replicaScheduling;
  EXPECT_EQ(rs.type, "Duplicated");
  EXPECT_EQ(rs.division, "");  // division means nothing for Duplicated
  EXPECT_EQ(rs.avoidDisruption, false);
  EXPECT_EQ(p.spec.placement.spreadConstraints[0].minGroups, 3);
  EXPECT_EQ(p.spec.failover->failback, "Never");
  EXPECT_EQ(p.spec.failover->clusterNotReadyFor, "60s");
}

TEST(DefaultsTest, IsIdempotent) {
  PropagationPolicy once;
  setDefaults(once);
  PropagationPolicy twice = once;
  setDefaults(twice);
  EXPECT_EQ(encode(once), encode(twice));
}

TEST(DefaultsTest, OtherKinds) {
  FederatedCluster c;
  setDefaults(c);
  EXPECT_EQ(c.spec.secretRef.namespace_, "flotilla-system");

  SchedulerExtender e;
  setDefaults(e);
  EXPECT_EQ(e.spec.weight, 1);
  EXPECT_EQ(e.spec.httpTimeout, "5s");

  auto sp = fromYaml<SchedulingProfile>(R"(
kind: SchedulingProfile
metadata: {name: s}
spec: {plugins: {score: {enabled: [{name: Locality}, {name: LeastAllocated, weight: 4}]},
                 filter: {enabled: [{name: ClusterReady}]}}}
)");
  setDefaults(sp);
  EXPECT_EQ(sp.spec.plugins.score.enabled[0].weight, 1);
  EXPECT_EQ(sp.spec.plugins.score.enabled[1].weight, 4);
  EXPECT_FALSE(sp.spec.plugins.filter.enabled[0].weight.has_value());

  ResourceBinding rb;
  setDefaults(rb);
  EXPECT_EQ(rb.spec.placement.replicaScheduling->type, "Divided");
  Placement duplicated;
  setDefaults(duplicated, "Duplicated");
  EXPECT_EQ(duplicated.replicaScheduling->type, "Duplicated");
  EXPECT_EQ(duplicated.replicaScheduling->division, "");  // (means nothing when Duplicated)
  // Weights divide, whatever the kind's default.
  Placement weighted;
  weighted.replicaScheduling.emplace();
  weighted.replicaScheduling->weights.push_back({});
  setDefaults(weighted, "Duplicated");
  EXPECT_EQ(weighted.replicaScheduling->type, "Divided");
}

}  // namespace
}  // namespace flotilla::api
