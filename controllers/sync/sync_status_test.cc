#include "controllers/sync/sync_status.h"

#include <gtest/gtest.h>

#include "api/conditions.h"

namespace flotilla::controllers::sync {
namespace {

constexpr const char* kT0 = "2026-11-23T10:00:00Z";
constexpr const char* kT1 = "2026-11-23T10:05:00Z";

api::ResourceBinding binding() {
  api::ResourceBinding rb;
  rb.metadata.name = "web";
  rb.metadata.namespace_ = "demo";
  rb.metadata.generation = 4;
  rb.spec.clusters = {{"member1", 2}, {"member2", 4}};
  return rb;
}

TEST(SyncStatus, AllAppliedIsFullyApplied) {
  auto rb = binding();
  // The status controller's fields survive.
  rb.status.aggregatedStatus = {
      {.clusterName = "member2", .health = "Healthy", .replicas = 4, .readyReplicas = 4}};
  const auto s = syncStatus(
      rb, {{"member2", propagation::kOK, "", true}, {"member1", propagation::kOK, "", true}}, kT0);
  const auto* c = api::findCondition(s.conditions, "FullyApplied");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, "True");
  EXPECT_EQ(c->reason, "FullyAppliedSuccess");
  EXPECT_EQ(c->observedGeneration, 4);
  ASSERT_EQ(s.aggregatedStatus.size(), 2u);
  EXPECT_EQ(s.aggregatedStatus[0].clusterName, "member1");  // sorted
  EXPECT_TRUE(s.aggregatedStatus[0].applied);
  EXPECT_EQ(s.aggregatedStatus[0].health, "Unknown");
  EXPECT_EQ(s.aggregatedStatus[1].health, "Healthy");
  EXPECT_EQ(s.aggregatedStatus[1].readyReplicas, 4);
  EXPECT_EQ(s.aggregatedStatus[1].propagation, "OK");
}

// A follower whose workloads wait for its health (a CRD) has it recorded with its propagation;
// other outcomes leave the entry's health as it was.
TEST(SyncStatus, AHealthTheSyncReportsIsRecorded) {
  auto rb = binding();
  rb.status.aggregatedStatus = {{.clusterName = "member2", .health = "Healthy"}};
  ClusterOutcome progressing{"member1", propagation::kOK, "", true};
  progressing.health = "Progressing";
  const auto s = syncStatus(rb, {progressing, {"member2", propagation::kOK, "", true}}, kT0);
  ASSERT_EQ(s.aggregatedStatus.size(), 2u);
  EXPECT_EQ(s.aggregatedStatus[0].health, "Progressing");
  EXPECT_EQ(s.aggregatedStatus[1].health, "Healthy");
}

// A cluster waiting for the workload's dependencies is not a failure (docs/design.md §12); one
// failure among waiting clusters is.
TEST(SyncStatus, WaitingClustersArePendingNotFailed) {
  auto waiting = syncStatus(binding(),
                            {{"member1", propagation::kOK, "", true},
                             {"member2", propagation::kPendingCreate,
                              "waiting for its dependencies: ConfigMap env", true}},
                            kT0);
  const auto* c = api::findCondition(waiting.conditions, "FullyApplied");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, "False");
  EXPECT_EQ(c->reason, "Pending");
  EXPECT_EQ(c->message, "member2: PendingCreate: waiting for its dependencies: ConfigMap env");
  auto failed = syncStatus(binding(),
                           {{"member1", propagation::kCreationFailed, "forbidden", true},
                            {"member2", propagation::kPendingCreate,
                             "waiting for its dependencies: ConfigMap env", true}},
                           kT0);
  c = api::findCondition(failed.conditions, "FullyApplied");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->reason, "FullyAppliedFailed");
}

// A pass over a placement the scheduler has not observed yet looks only at the targets: what
// it said of the others stays (a copy may still run there), unless it is told the pass saw all.
TEST(SyncStatus, AClusterNotObservedKeepsItsEntry) {
  auto b = binding();
  api::AggregatedStatusItem old;
  old.clusterName = "member2";
  old.applied = true;
  old.propagation = "OK";
  old.health = "Healthy";
  b.status.aggregatedStatus = {old};
  const std::vector<ClusterOutcome> targetsOnly = {{"member3", propagation::kOK, "", true}};
  auto kept = syncStatus(b, targetsOnly, kT0, "", true);
  ASSERT_EQ(kept.aggregatedStatus.size(), 2u);
  EXPECT_EQ(kept.aggregatedStatus[0].clusterName, "member2");
  EXPECT_EQ(kept.aggregatedStatus[0].health, "Healthy");
  EXPECT_EQ(kept.aggregatedStatus[1].clusterName, "member3");
  auto dropped = syncStatus(b, targetsOnly, kT0, "", false);
  ASSERT_EQ(dropped.aggregatedStatus.size(), 1u);
  EXPECT_EQ(dropped.aggregatedStatus[0].clusterName, "member3");
}

TEST(SyncStatus, FailuresArePerClusterAndNamed) {
  const auto s = syncStatus(
      binding(),
      {{"member1", propagation::kOK, "", true},
       {"member2", propagation::kCreationFailed, "Deployment demo/web already exists", true},
       {"member3", propagation::kDeletionFailed, "forbidden", false}},
      kT0);
  const auto* c = api::findCondition(s.conditions, "FullyApplied");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, "False");
  EXPECT_EQ(c->reason, "FullyAppliedFailed");
  EXPECT_EQ(c->message,
            "member2: CreationFailed: Deployment demo/web already exists; member3: "
            "DeletionFailed: forbidden");
  ASSERT_EQ(s.aggregatedStatus.size(), 3u);
  EXPECT_FALSE(s.aggregatedStatus[1].applied);
  EXPECT_EQ(s.aggregatedStatus[2].clusterName, "member3");
  EXPECT_FALSE(s.aggregatedStatus[2].applied);
}

TEST(SyncStatus, CleanRemovalLeavesNoEntryAndTransitionsAreHonest) {
  auto rb = binding();
  rb.status = syncStatus(rb, {{"member1", propagation::kClusterNotReady, "down", true}}, kT0);
  const auto before = *api::findCondition(rb.status.conditions, "FullyApplied");
  // Still failing, another message: the transition time stays.
  rb.status = syncStatus(rb, {{"member1", propagation::kClusterNotReady, "still down", true}}, kT1);
  EXPECT_EQ(api::findCondition(rb.status.conditions, "FullyApplied")->lastTransitionTime,
            before.lastTransitionTime);
  rb.status = syncStatus(
      rb, {{"member1", propagation::kOK, "", true}, {"member9", propagation::kOK, "", false}}, kT1);
  EXPECT_EQ(api::findCondition(rb.status.conditions, "FullyApplied")->lastTransitionTime, kT1);
  ASSERT_EQ(rb.status.aggregatedStatus.size(), 1u);
  EXPECT_EQ(rb.status.aggregatedStatus[0].message, "");
}

TEST(SyncStatus, NothingToSayWithoutTargets) {
  auto rb = binding();
  rb.spec.clusters.clear();
  const auto s = syncStatus(rb, {}, kT0);
  EXPECT_EQ(api::findCondition(s.conditions, "FullyApplied"), nullptr);
}

}  // namespace
}  // namespace flotilla::controllers::sync
