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
                        const std::vector<api::FederatedCluster>& clusters) {
  auto it = rb.metadata.annotations.find(kScheduleRecordAnnotation);
  std::optional<ScheduleRecord> last;
  if (it != rb.metadata.annotations.end()) last = decodeRecord(it->second);
  return decideSchedule(rb, last, clusters, kNow, seconds(60));
}

// Schedules through the real scheduler and writes the result back, as the controller will.
api::ResourceBinding scheduled(const api::ResourceBinding& rb, ScheduleType type) {
  static const Profile profile = defaultProfile().value();
  ScheduleResult r = scheduleUnit(profile, unitFromBinding(rb, false), members());
  EXPECT_TRUE(r.ok()) << r.message;
  return applyScheduleResult(rb, r, type, kNow);
}

TEST(ScheduleTypeTest, FirstThenNothingOnUnrelatedUpdates) {
  api::ResourceBinding rb = binding();
  EXPECT_EQ(decide(rb, members()).type, ScheduleType::kFirst);
  rb = scheduled(rb, ScheduleType::kFirst);
  EXPECT_EQ(rb.status.lastScheduleType, "FirstSchedule");
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
  failed.verdicts = {{"member1", "ClusterReady", "cluster(s) were not ready"}};
  api::ResourceBinding after =
      applyScheduleResult(rb, failed, ScheduleType::kReconcile, kNow + seconds(5));
  EXPECT_EQ(after.spec.clusters, rb.spec.clusters);
  const api::Condition* c = api::findCondition(after.status.conditions, "Scheduled");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, "False");
  EXPECT_EQ(c->reason, "NoClusterFit");
  EXPECT_EQ(c->message, failed.message);
  EXPECT_EQ(after.status.placementSummary, "member1=2 member2=2 member3=2");
  ASSERT_EQ(after.status.diagnosis.size(), 1u);
  EXPECT_EQ(after.status.diagnosis[0].plugin, "ClusterReady");
}

}  // namespace
}  // namespace flotilla::scheduler
