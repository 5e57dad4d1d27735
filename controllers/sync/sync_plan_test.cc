#include "controllers/sync/sync_plan.h"

#include <gtest/gtest.h>

namespace flotilla::controllers::sync {
namespace {

using namespace std::chrono;

ClusterObservation up(std::string name, std::optional<int32_t> live = std::nullopt,
                      int32_t available = 0) {
  return {std::move(name), true, true, true, live, available};
}

struct PlanCase {
  std::string name;
  SyncPlanInput input;
  std::vector<SyncAction> actions;
  std::string moving;
};

class PlanSync : public ::testing::TestWithParam<PlanCase> {};

TEST_P(PlanSync, Actions) {
  const auto& c = GetParam();
  const auto plan = planSync(c.input);
  EXPECT_EQ(plan.actions, c.actions);
  EXPECT_EQ(plan.moving, c.moving);
}

const auto kApply = SyncStep::kApply;
const auto kHold = SyncStep::kHold;
const auto kRemove = SyncStep::kRemove;

INSTANTIATE_TEST_SUITE_P(
    Table, PlanSync,
    ::testing::Values(
        PlanCase{"TargetsInBindingOrder",
                 {{{"m2", 2}, {"m1", 1}}, true, seconds(60), false, {up("m1"), up("m2")}},
                 {{kApply, "m2", 2}, {kApply, "m1", 1}}},
        PlanCase{"LeftClusterLosesItsCopy",
                 {{{"m1", 3}}, true, seconds(60), false, {up("m1"), up("m2")}},
                 {{kApply, "m1", 3}, {kRemove, "m2", 0}}},
        PlanCase{"NothingRemovedUntilThePlacementIsCurrent",
                 {{{"m1", 3}}, false, std::nullopt, false, {up("m1"), up("m2")}},
                 {{kApply, "m1", 3}}},
        PlanCase{"AClusterKnownToHoldNothingIsNotAsked",
                 {{{"m1", 3}},
                  true,
                  seconds(60),
                  false,
                  {up("m1"), {"m2", true, true, false, std::nullopt, 0}}},
                 {{kApply, "m1", 3}}},
        PlanCase{"NotConnectedOrNotReadyIsLeftAlone",
                 {{{"m1", 3}},
                  true,
                  seconds(60),
                  false,
                  {up("m1"),
                   {"m2", false, true, true, std::nullopt, 0},
                   {"m3", true, false, true, std::nullopt, 0}}},
                 {{kApply, "m1", 3}}},
        // A Deployment moving from m1 to m2: m2 is scaled up at once, m1 keeps what is available
        // until m2's replicas are.
        PlanCase{"MoveHoldsTheAvailableReplicas",
                 {{{"m2", 3}}, true, seconds(60), true, {up("m1", 3, 3), up("m2", 0, 0)}},
                 {{kApply, "m2", 3}, {kHold, "m1", 3}},
                 "m1 holds 3 (target 0)"},
        PlanCase{"MoveGivesUpWhatIsCoveredElsewhere",
                 {{{"m2", 3}}, true, seconds(60), true, {up("m1", 3, 3), up("m2", 3, 2)}},
                 {{kApply, "m2", 3}, {kHold, "m1", 1}},
                 "m1 holds 1 (target 0)"},
        PlanCase{"MoveCompleteRemoves",
                 {{{"m2", 3}}, true, seconds(60), true, {up("m1", 3, 3), up("m2", 3, 3)}},
                 {{kApply, "m2", 3}, {kRemove, "m1", 0}}},
        PlanCase{"MoveTimedOutAppliesTheCounts",
                 {{{"m2", 3}}, true, seconds(0), true, {up("m1", 3, 3), up("m2", 0, 0)}},
                 {{kApply, "m2", 3}, {kRemove, "m1", 0}}},
        PlanCase{
            "AReweightHoldsOnATarget",
            {{{"m1", 1}, {"m2", 3}}, true, seconds(60), true, {up("m1", 3, 3), up("m2", 1, 1)}},
            {{kApply, "m1", 3}, {kApply, "m2", 3}},
            "m1 holds 3 (target 1)"},
        // A failover: nothing on an unreachable cluster can be waited for.
        PlanCase{"NothingIsHeldOnAnUnreachableCluster",
                 {{{"m2", 3}},
                  true,
                  seconds(60),
                  true,
                  {{"m1", true, false, true, 3, 3}, up("m2", 0, 0)}},
                 {{kApply, "m2", 3}}},
        // Kinds without make-before-break never hold.
        PlanCase{"OtherKindsNeverHold",
                 {{{"m2", 3}}, true, seconds(60), false, {up("m1", 3, 3), up("m2", 0, 0)}},
                 {{kApply, "m2", 3}, {kRemove, "m1", 0}}}),
    [](const auto& info) { return info.param.name; });

TEST(PlacementCurrent, OnlyAScheduledPlacementOfTheCurrentGeneration) {
  api::ResourceBinding rb;
  rb.metadata.generation = 2;
  EXPECT_FALSE(placementCurrent(rb));
  rb.status.schedulerObservedGeneration = 2;
  rb.status.conditions.push_back({"Scheduled", "True", 2, "", "Success", ""});
  EXPECT_FALSE(placementCurrent(rb)) << "nothing placed says nowhere";
  rb.spec.clusters = {{"m1", 1}};
  EXPECT_TRUE(placementCurrent(rb));
  rb.status.schedulerObservedGeneration = 1;
  EXPECT_FALSE(placementCurrent(rb));
  rb.status.schedulerObservedGeneration = 2;
  rb.status.conditions[0].status = "False";
  EXPECT_FALSE(placementCurrent(rb));
}

TEST(MoveTimeLeft, TimedFromTheLastScheduledTime) {
  api::ResourceBinding rb;
  rb.metadata.generation = 3;
  rb.status.schedulerObservedGeneration = 2;
  const auto now = api::Clock::time_point(seconds(1'800'000'000));
  EXPECT_EQ(moveTimeLeft(rb, seconds(600), now), std::nullopt) << "placement not described yet";
  rb.status.schedulerObservedGeneration = 3;
  rb.status.lastScheduledTime = api::formatRfc3339(now - seconds(100));
  EXPECT_EQ(moveTimeLeft(rb, seconds(600), now), nanoseconds(seconds(500)));
  rb.status.lastScheduledTime = "yesterday";
  EXPECT_EQ(moveTimeLeft(rb, seconds(600), now), nanoseconds(0)) << "never held for ever";
}

TEST(RequeueAfter, Policy) {
  const RetryTimes times{seconds(5), seconds(10)};
  EXPECT_EQ(requeueAfter({}, times), Requeue{});
  EXPECT_EQ(requeueAfter({.undecided = true, .soon = true}, times),
            (Requeue{false, nanoseconds(seconds(1))}));
  EXPECT_EQ(requeueAfter({.soon = true, .backoff = true}, times),
            (Requeue{false, nanoseconds(seconds(5))}));
  EXPECT_EQ(requeueAfter({.backoff = true, .pollUnhealthy = true}, times),
            (Requeue{true, std::nullopt}));
  EXPECT_EQ(requeueAfter({.pollUnhealthy = true}, times),
            (Requeue{false, nanoseconds(seconds(10))}));
  // A move: its timeout plus 100 ms, at most 5 s, sooner for a cluster to retry.
  EXPECT_EQ(requeueAfter({.moving = true, .moveLeft = milliseconds(700)}, times),
            (Requeue{false, nanoseconds(milliseconds(800))}));
  EXPECT_EQ(requeueAfter({.moving = true, .moveLeft = minutes(9)}, times),
            (Requeue{false, nanoseconds(seconds(5))}));
  EXPECT_EQ(requeueAfter({.moving = true, .moveLeft = std::nullopt}, times),
            (Requeue{false, nanoseconds(seconds(1))}));
  EXPECT_EQ(requeueAfter({.soon = true, .moving = true, .moveLeft = minutes(9)},
                         {milliseconds(200), seconds(10)}),
            (Requeue{false, nanoseconds(milliseconds(200))}));
}

}  // namespace
}  // namespace flotilla::controllers::sync
