#include "controllers/scheduler/placement_status.h"

#include <gtest/gtest.h>

#include "api/conditions.h"

namespace flotilla::controllers::scheduler {
namespace {

using namespace std::chrono;
const auto kNow = api::Clock::time_point(seconds(1'800'000'000));

api::ResourceBinding placed(int64_t generation, int64_t observed, const char* scheduled) {
  api::ResourceBinding rb;
  rb.metadata.generation = generation;
  rb.spec.clusters = {{"member1", 2}, {"member2", 1}};
  rb.status.schedulerObservedGeneration = observed;
  if (scheduled)
    api::setCondition(rb.status.conditions, "Scheduled", scheduled, "Success", "", observed,
                      api::formatRfc3339(kNow - minutes(5)));
  rb.status.lastScheduledTime = api::formatRfc3339(kNow - minutes(5));
  return rb;
}

// The first placement's status, carried by the binding's first status pass: only for a binding
// the scheduler placed (its record is there) that never had a Scheduled condition.
TEST(FirstPlacementStatus, OnlyAFirstPlacementNeverDescribed) {
  auto first = placed(2, 0, nullptr);
  first.spec.replicas = 3;
  first.status.lastScheduledTime.clear();
  auto record = flotilla::scheduler::recordFor(first);  // (what the scheduler decided from)
  record.type = "FirstSchedule";
  first.metadata.annotations[flotilla::scheduler::kScheduleRecordAnnotation] =
      flotilla::scheduler::encodeRecord(record);
  const auto carried = firstPlacementStatus(first, kNow);
  ASSERT_TRUE(carried);
  EXPECT_EQ(carried->schedulerObservedGeneration, 2);
  EXPECT_EQ(carried->placementSummary, "member1=2 member2=1");
  EXPECT_EQ(carried->lastScheduleType, "FirstSchedule");
  EXPECT_EQ(carried->lastScheduledTime, api::formatRfc3339(kNow));
  const auto* scheduled = api::findCondition(carried->conditions, "Scheduled");
  ASSERT_TRUE(scheduled);
  EXPECT_EQ(scheduled->status, "True");
  EXPECT_EQ(scheduled->observedGeneration, 2);

  // Merged into another writer's status: the scheduler's fields, nothing else changed.
  api::ResourceBindingStatus sync;
  api::setCondition(sync.conditions, "FullyApplied", "True", "FullyAppliedSuccess", "", 2,
                    api::formatRfc3339(kNow));
  mergeSchedulerStatus(sync, *carried);
  EXPECT_EQ(sync.conditions.size(), 2u);
  EXPECT_EQ(sync.placementSummary, "member1=2 member2=1");
  EXPECT_TRUE(api::findCondition(sync.conditions, "FullyApplied"));

  auto said = first;  // the scheduler already said something (here: False), only it speaks
  api::setCondition(said.status.conditions, "Scheduled", "False", "Unschedulable", "", 2,
                    api::formatRfc3339(kNow));
  EXPECT_EQ(firstPlacementStatus(said, kNow), std::nullopt);
  auto unrecorded = first;  // not placed by the scheduler
  unrecorded.metadata.annotations.clear();
  EXPECT_EQ(firstPlacementStatus(unrecorded, kNow), std::nullopt);
  auto unplaced = first;
  unplaced.spec.clusters.clear();
  EXPECT_EQ(firstPlacementStatus(unplaced, kNow), std::nullopt);
  auto scaled = first;  // scaled since the decision: the scheduler has not looked at it yet
  scaled.spec.replicas = 5;
  scaled.metadata.generation = 3;
  EXPECT_EQ(firstPlacementStatus(scaled, kNow), std::nullopt);
}

TEST(RepairedStatus, OnlyAPlacementItsStatusDoesNotDescribe) {
  EXPECT_EQ(repairedStatus(placed(3, 3, "True"), std::nullopt, kNow), std::nullopt);
  api::ResourceBinding unplaced;
  EXPECT_EQ(repairedStatus(unplaced, std::nullopt, kNow), std::nullopt) << "nothing placed";

  // Killed between the spec write and the status write: the placed generation was never
  // described, so it is as new as now.
  flotilla::scheduler::ScheduleRecord last;
  last.type = "ReSchedule";
  const auto repaired = repairedStatus(placed(4, 3, "True"), last, kNow);
  ASSERT_TRUE(repaired);
  EXPECT_EQ(repaired->schedulerObservedGeneration, 4);
  EXPECT_EQ(repaired->placementSummary, "member1=2 member2=1");
  EXPECT_EQ(repaired->lastScheduledTime, api::formatRfc3339(kNow));
  EXPECT_EQ(repaired->lastScheduleType, "ReSchedule");
  const auto* scheduled = api::findCondition(repaired->conditions, "Scheduled");
  ASSERT_TRUE(scheduled);
  EXPECT_EQ(scheduled->status, "True");
  EXPECT_EQ(scheduled->observedGeneration, 4);

  // Another spec field changed (a follower's spec.requiredBy) and the placement is the one the
  // status describes: observed again, not placed again.
  auto requiredByChanged = placed(5, 4, "True");
  requiredByChanged.status.placementSummary = "member1=2 member2=1";
  const auto observed = repairedStatus(requiredByChanged, last, kNow);
  ASSERT_TRUE(observed);
  EXPECT_EQ(observed->schedulerObservedGeneration, 5);
  EXPECT_EQ(observed->lastScheduledTime, api::formatRfc3339(kNow - minutes(5)));

  // Only the condition was lost (same generation): the time the placement was written stands.
  const auto condition = repairedStatus(placed(3, 3, "False"), last, kNow);
  ASSERT_TRUE(condition);
  EXPECT_EQ(condition->lastScheduledTime, api::formatRfc3339(kNow - minutes(5)));
  EXPECT_EQ(api::findCondition(condition->conditions, "Scheduled")->status, "True");
}

api::FederatedCluster cluster(const char* name, const char* ready, seconds since) {
  api::FederatedCluster c;
  c.metadata.name = name;
  api::setCondition(c.status.conditions, "Ready", ready, "Probe", "", 1,
                    api::formatRfc3339(kNow - since));
  return c;
}

TEST(GraceLeft, TheSoonestTargetToRunOutOfItsGrace) {
  const auto rb = placed(1, 1, "True");
  const nanoseconds grace = seconds(60);
  EXPECT_EQ(graceLeft(rb, {cluster("member1", "True", 600s), cluster("member2", "True", 600s)},
                      grace, kNow),
            std::nullopt);
  EXPECT_EQ(graceLeft(rb, {cluster("member1", "False", 20s), cluster("member2", "Unknown", 50s)},
                      grace, kNow),
            nanoseconds(10s));
  // Past its grace (failover decides that one), or not a target: nothing to wait for.
  EXPECT_EQ(graceLeft(rb, {cluster("member1", "False", 90s), cluster("member3", "False", 5s)},
                      grace, kNow),
            std::nullopt);
}

}  // namespace
}  // namespace flotilla::controllers::scheduler
