#include "scheduler/schedule_type.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/conditions.h"
#include "api/validation.h"
#include "scheduler/test_clusters.h"

namespace flotilla::scheduler {
namespace {

using std::chrono::seconds;
using testing::cluster;
using ::testing::ElementsAre;

const api::Clock::time_point kNow = *api::parseRfc3339("2026-11-22T12:00:00Z");

api::ResourceBinding binding() {
  api::ResourceBinding rb;
  rb.metadata.name = "web-deployment";
  rb.metadata.namespace_ = "shop";
  rb.metadata.generation = 1;
  rb.spec.resource = {"flotilla.io/v1alpha1", "FederatedDeployment", "shop", "web", "u1"};
  rb.spec.replicas = 6;
  rb.spec.policy = {"PropagationPolicy", "spread", "shop", 1};
  return rb;
}

std::vector<api::FederatedCluster> members() {
  return {cluster("member1"), cluster("member2"), cluster("member3")};
}

ScheduleDecision decide(const api::ResourceBinding& rb,
                        const std::vector<api::FederatedCluster>& clusters,
                        bool failbackRebalance = true) {
  auto it = rb.metadata.annotations.find(kScheduleRecordAnnotation);
  std::optional<ScheduleRecord> last;
  if (it != rb.metadata.annotations.end()) last = decodeRecord(it->second);
  return decideSchedule(rb, last, clusters, kNow, {seconds(60), failbackRebalance, {}});
}

// Schedules through the real scheduler and writes the result back, as the controller does.
api::ResourceBinding scheduled(const api::ResourceBinding& rb, const ScheduleDecision& decision,
                               const std::vector<api::FederatedCluster>& clusters = members()) {
  static const Profile profile = defaultProfile().value();
  SchedulingUnit unit = unitFromBinding(rb, false);
  for (const auto& failed : decision.failedClusters) unit.currentReplicas.erase(failed);
  unit.rebalance = decision.rebalance;
  ScheduleResult r = scheduleUnit(profile, unit, clusters);
  EXPECT_TRUE(r.ok()) << r.message;
  return applyScheduleResult(rb, r, decision, kNow);
}
api::ResourceBinding scheduled(const api::ResourceBinding& rb, ScheduleType type) {
  ScheduleDecision d;
  d.type = type;
  return scheduled(rb, d);
}

api::FederatedCluster notReady(api::FederatedCluster c, const char* since) {
  c.status.conditions[0] = {"Ready", "False", 0, since, "ClusterNotReady", ""};
  return c;
}

TEST(ScheduleTypeTest, FirstThenNothingOnUnrelatedUpdates) {
  api::ResourceBinding rb = binding();
  EXPECT_EQ(decide(rb, members()).type, ScheduleType::kFirst);
  rb = scheduled(rb, ScheduleType::kFirst);
  EXPECT_EQ(rb.status.lastScheduleType, "FirstSchedule");
  // The record written with the placement names the schedule too (a lost status write is
  // repaired from it).
  EXPECT_EQ(decodeRecord(rb.metadata.annotations[kScheduleRecordAnnotation])->type,
            "FirstSchedule");
  EXPECT_EQ(rb.status.placementSummary, "member1=2 member2=2 member3=2");
  EXPECT_EQ(decide(rb, members()).type, ScheduleType::kNone);
  // Status writes, label changes and a restart (same objects read again) change nothing.
  rb.status.aggregatedStatus.push_back({.clusterName = "member1",
                                        .applied = true,
                                        .health = "Healthy",
                                        .replicas = 2,
                                        .readyReplicas = 2});
  rb.metadata.labels["team"] = "web";
  rb.metadata.resourceVersion = "999";
  EXPECT_EQ(decide(rb, members()).type, ScheduleType::kNone);
}

TEST(ScheduleTypeTest, ScaleReconcileFailoverMigration) {
  api::ResourceBinding rb = scheduled(binding(), ScheduleType::kFirst);

  api::ResourceBinding scaled = rb;
  scaled.spec.replicas = 9;
  ScheduleDecision d = decide(scaled, members());
  EXPECT_EQ(d.type, ScheduleType::kScale);
  EXPECT_EQ(d.reason, "replicas changed from 6 to 9");

  api::ResourceBinding reconciled = rb;
  reconciled.spec.placement.maxClusters = 2;
  EXPECT_EQ(decide(reconciled, members()).type, ScheduleType::kReconcile);
  reconciled = rb;
  reconciled.spec.policy.name = "other";
  EXPECT_EQ(decide(reconciled, members()).type, ScheduleType::kReconcile);
  // Writing the defaults out explicitly is not a change of placement.
  reconciled = rb;
  api::setDefaults(reconciled.spec.placement);
  EXPECT_EQ(decide(reconciled, members()).type, ScheduleType::kNone);

  auto clusters = members();
  clusters[2].status.conditions[0] = {"Ready",           "False", 0, "2026-11-22T11:59:30Z",
                                      "ClusterNotReady", ""};
  EXPECT_EQ(decide(rb, clusters).type, ScheduleType::kNone);  // 30s: within the 60s grace
  clusters[2].status.conditions[0].lastTransitionTime = "2026-11-22T11:58:00Z";
  d = decide(rb, clusters);
  EXPECT_EQ(d.type, ScheduleType::kFailover);
  EXPECT_THAT(d.failedClusters, ElementsAre("member3"));
  clusters.pop_back();  // deleted altogether
  EXPECT_THAT(decide(rb, clusters).failedClusters, ElementsAre("member3"));

  // No usable transition time: the grace period cannot be measured, so it counts as failed.
  clusters = members();
  clusters[2].status.conditions[0] = {"Ready", "False", 0, "", "ClusterNotReady", ""};
  EXPECT_EQ(decide(rb, clusters).type, ScheduleType::kFailover);

  // Any policy edit (its generation) reconciles, e.g. a new scheduling profile.
  api::ResourceBinding newPolicy = rb;
  newPolicy.spec.policy.generation = 2;
  EXPECT_EQ(decide(newPolicy, members()).type, ScheduleType::kReconcile);

  api::ResourceBinding migrated = rb;
  migrated.status.autoMigration = api::AutoMigrationStatus{{{"member1", 1}}, {}, ""};
  EXPECT_EQ(decide(migrated, members()).type, ScheduleType::kMigration);
}

TEST(ScheduleTypeTest, UnreadableRecordReconcilesInsteadOfCrashing) {
  api::ResourceBinding rb = scheduled(binding(), ScheduleType::kFirst);
  rb.metadata.annotations[kScheduleRecordAnnotation] = "{not json";
  EXPECT_EQ(decide(rb, members()).type, ScheduleType::kReconcile);
}

TEST(ScheduleTypeTest, FailedRescheduleKeepsThePreviousPlacement) {
  api::ResourceBinding rb = scheduled(binding(), ScheduleType::kFirst);
  ScheduleResult failed;
  failed.outcome = ScheduleResult::Outcome::kNoClusterFit;
  failed.message = "0/3 clusters are available: 3 cluster(s) were not ready.";
  failed.verdicts = {{"member1", "ClusterReady", "cluster(s) were not ready"},
                     {"member2", "ClusterAffinity", "cluster(s) did not match the placement"}};
  ScheduleDecision d;
  d.type = ScheduleType::kReconcile;
  api::ResourceBinding after = applyScheduleResult(rb, failed, d, kNow + seconds(5));
  EXPECT_EQ(after.spec.clusters, rb.spec.clusters);
  const api::Condition* c = api::findCondition(after.status.conditions, "Scheduled");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, "False");
  EXPECT_EQ(c->reason, "NoClusterFit");
  EXPECT_EQ(c->message, failed.message);
  EXPECT_EQ(after.status.placementSummary, "member1=2 member2=2 member3=2");
  // The clusters the placement's affinity leaves out are not listed (the message counts them).
  ASSERT_EQ(after.status.diagnosis.size(), 1u);
  EXPECT_EQ(after.status.diagnosis[0].plugin, "ClusterReady");
}

// Static weights 1:1:1 (auto-migration estimates cap static weights; dynamic weights use room).
api::ResourceBinding weighted() {
  api::ResourceBinding rb = binding();
  api::ReplicaScheduling rs;
  rs.type = "Divided";
  rs.division = "Weighted";
  api::ClusterPreference all;
  all.targetCluster.clusterNames = {"*"};
  all.weight = 1;
  rs.weights = {all};
  rb.spec.placement.replicaScheduling = rs;
  return rb;
}

TEST(ScheduleTypeTest, LoweredEstimateMovesLittleLiftedEstimateRebalances) {
  api::ResourceBinding rb = scheduled(weighted(), ScheduleType::kFirst);
  ASSERT_EQ(rb.status.placementSummary, "member1=2 member2=2 member3=2");
  rb.status.autoMigration = api::AutoMigrationStatus{{{"member1", 1}}, {}, ""};
  ScheduleDecision d = decide(rb, members());
  EXPECT_EQ(d.type, ScheduleType::kMigration);
  EXPECT_FALSE(d.rebalance);
  rb = scheduled(rb, d);
  // One replica leaves member1; which cluster takes it is the planner's hash order.
  EXPECT_EQ(rb.spec.clusters.size(), 3u);
  EXPECT_EQ(rb.spec.clusters[0].replicas, 1);
  EXPECT_EQ(decide(rb, members()).type, ScheduleType::kNone);

  // The estimate lifted: the total is unchanged, so only a rebalance moves the replica back.
  rb.status.autoMigration->estimatedCapacity.clear();
  d = decide(rb, members());
  EXPECT_EQ(d.type, ScheduleType::kMigration);
  EXPECT_TRUE(d.rebalance);
  rb = scheduled(rb, d);
  EXPECT_EQ(rb.status.placementSummary, "member1=2 member2=2 member3=2");
  EXPECT_EQ(decide(rb, members()).type, ScheduleType::kNone);

  // Raised is lifted too; a lower estimate for another cluster in the same change still plans
  // with it.
  rb.status.autoMigration->estimatedCapacity = {{"member1", 1}};
  rb = scheduled(rb, decide(rb, members()));
  rb.status.autoMigration->estimatedCapacity = {{"member1", 2}, {"member2", 1}};
  d = decide(rb, members());
  EXPECT_TRUE(d.rebalance);
  rb = scheduled(rb, d);
  EXPECT_EQ(rb.status.placementSummary, "member1=2 member2=1 member3=3");
}

TEST(ScheduleTypeTest, FailoverThenFailbackRebalanceOrNever) {
  for (const bool rebalance : {true, false}) {
    SCOPED_TRACE(rebalance ? "Rebalance" : "Never");
    api::ResourceBinding rb = scheduled(weighted(), ScheduleType::kFirst);
    auto down = members();
    down[2] = notReady(down[2], "2026-11-22T11:58:00Z");
    ScheduleDecision d = decide(rb, down, rebalance);
    ASSERT_EQ(d.type, ScheduleType::kFailover);
    EXPECT_THAT(d.failedOver, ElementsAre("member3"));
    rb = scheduled(rb, d, down);
    EXPECT_EQ(rb.status.placementSummary, "member1=3 member2=3");
    EXPECT_THAT(decodeRecord(rb.metadata.annotations[kScheduleRecordAnnotation])->failedOver,
                ElementsAre("member3"));
    // Still down: nothing to do; a scale meanwhile keeps the cluster on the list.
    EXPECT_EQ(decide(rb, down, rebalance).type, ScheduleType::kNone);
    rb.spec.replicas = 8;
    d = decide(rb, down, rebalance);
    EXPECT_EQ(d.type, ScheduleType::kScale);
    rb = scheduled(rb, d, down);
    EXPECT_EQ(rb.status.placementSummary, "member1=4 member2=4");
    EXPECT_THAT(decodeRecord(rb.metadata.annotations[kScheduleRecordAnnotation])->failedOver,
                ElementsAre("member3"));

    // Ready again.
    d = decide(rb, members(), rebalance);
    if (!rebalance) {
      EXPECT_EQ(d.type, ScheduleType::kNone);  // Never: the replicas stay where they are
      rb.spec.replicas = 6;
      d = decide(rb, members(), rebalance);
      EXPECT_EQ(d.type, ScheduleType::kScale);
      EXPECT_TRUE(d.failedOver.empty());  // ... and the cluster leaves the list
      rb = scheduled(rb, d);
      EXPECT_EQ(rb.status.placementSummary, "member1=3 member2=3");
      continue;
    }
    EXPECT_EQ(d.type, ScheduleType::kFailover);
    EXPECT_TRUE(d.rebalance);
    EXPECT_EQ(d.reason, "failback: Ready again: member3");
    rb = scheduled(rb, d);
    EXPECT_EQ(rb.status.placementSummary, "member1=2 member2=3 member3=3");  // 8 over 3
    EXPECT_TRUE(
        decodeRecord(rb.metadata.annotations[kScheduleRecordAnnotation])->failedOver.empty());
    EXPECT_EQ(decide(rb, members(), rebalance).type, ScheduleType::kNone);
  }
}

TEST(ScheduleTypeTest, AFinishedCopyIsNotFailedOver) {
  // A Job's part on member3 completed, then member3 went down: its work is done, nothing moves;
  // an unfinished part on a failed cluster still does.
  api::ResourceBinding rb = scheduled(weighted(), ScheduleType::kFirst);
  auto down = members();
  down[2] = notReady(down[2], "2026-11-22T11:58:00Z");
  auto last = decodeRecord(rb.metadata.annotations[kScheduleRecordAnnotation]);
  FailoverPolicy finished{seconds(60), true, {"member3"}};
  EXPECT_EQ(decideSchedule(rb, last, down, kNow, finished).type, ScheduleType::kNone);
  FailoverPolicy unfinished{seconds(60), true, {"member1"}};
  const auto d = decideSchedule(rb, last, down, kNow, unfinished);
  EXPECT_EQ(d.type, ScheduleType::kFailover);
  EXPECT_THAT(d.failedClusters, ElementsAre("member3"));
}

TEST(ScheduleTypeTest, AScaleAtTheMomentOfFailbackStillFailsBack) {
  api::ResourceBinding rb = scheduled(weighted(), ScheduleType::kFirst);
  auto down = members();
  down[2] = notReady(down[2], "2026-11-22T11:58:00Z");
  rb = scheduled(rb, decide(rb, down), down);
  ASSERT_EQ(rb.status.placementSummary, "member1=3 member2=3");
  rb.spec.replicas = 9;  // scaled as member3 returns
  ScheduleDecision d = decide(rb, members());
  EXPECT_EQ(d.type, ScheduleType::kScale);
  EXPECT_TRUE(d.rebalance);
  EXPECT_TRUE(d.failedOver.empty());
  rb = scheduled(rb, d);
  EXPECT_EQ(rb.status.placementSummary, "member1=3 member2=3 member3=3");
  // Never: the scale leaves member3 out, and the list forgets it.
  api::ResourceBinding never = scheduled(weighted(), ScheduleType::kFirst);
  never = scheduled(never, decide(never, down, false), down);
  never.spec.replicas = 9;
  d = decide(never, members(), false);
  EXPECT_FALSE(d.rebalance);
  EXPECT_TRUE(d.failedOver.empty());
  // An estimate lifted at the moment of a scale rebalances too.
  api::ResourceBinding est = scheduled(weighted(), ScheduleType::kFirst);
  est.status.autoMigration = api::AutoMigrationStatus{{{"member1", 1}}, {}, ""};
  est = scheduled(est, decide(est, members()));
  est.status.autoMigration.reset();
  est.spec.replicas = 9;
  d = decide(est, members());
  EXPECT_EQ(d.type, ScheduleType::kScale);
  EXPECT_TRUE(d.rebalance);
}

TEST(ScheduleTypeTest, RecordRoundTrips) {
  ScheduleRecord r;
  r.replicas = 6;
  r.placementHash = "abc";
  r.estimates = {{"member1", 1}};
  r.failedOver = {"member3"};
  r.type = "ScaleSchedule";
  EXPECT_EQ(decodeRecord(encodeRecord(r)), r);
  EXPECT_EQ(decodeRecord(R"({"replicas":6,"placement":"abc","estimates":{},"type":7})"),
            std::nullopt);
  EXPECT_EQ(decodeRecord(R"({"replicas":6,"placement":"abc","estimates":"old"})"), std::nullopt);
  EXPECT_EQ(decodeRecord(R"({"replicas":6,"placement":"abc","estimates":{},"failedOver":[1]})"),
            std::nullopt);
  EXPECT_EQ(decodeRecord(R"({"replicas":6,"placement":"abc","estimates":null})"), std::nullopt);
}

}  // namespace
}  // namespace flotilla::scheduler
