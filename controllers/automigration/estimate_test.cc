#include "controllers/automigration/estimate.h"

#include <gtest/gtest.h>

namespace flotilla::controllers::automigration {
namespace {

using namespace std::chrono;

const api::Clock::time_point kT0 = *api::parseRfc3339("2026-11-23T12:00:00Z");
const Settings kSettings{seconds(60), minutes(5)};

std::vector<PodView> pods(int running, int pending, api::Clock::time_point since) {
  std::vector<PodView> out(running);
  for (int i = 0; i < pending; ++i) out.push_back({true, since});
  return out;
}

ClusterView view(const char* name, int64_t desired, std::vector<PodView> p,
                 std::optional<int64_t> available = 0) {
  return {name, desired, true, std::move(p), available};
}

TEST(EstimateTest, NothingPendingNoStatus) {
  auto d = decide(std::nullopt, {view("member1", 2, pods(2, 0, kT0))}, kSettings, kT0);
  EXPECT_FALSE(d.status);
  EXPECT_FALSE(d.requeueAfter);
}

TEST(EstimateTest, PendingBelowThresholdRequeuesAtTheCrossing) {
  auto d =
      decide(std::nullopt, {view("member1", 2, pods(1, 1, kT0))}, kSettings, kT0 + seconds(20));
  EXPECT_FALSE(d.status);
  ASSERT_TRUE(d.requeueAfter);
  EXPECT_EQ(*d.requeueAfter, seconds(40));
}

TEST(EstimateTest, UnschedulableLongEnoughIsAnEstimate) {
  const auto now = kT0 + seconds(61);
  auto d = decide(std::nullopt,
                  {view("member1", 2, pods(1, 1, kT0), 0), view("member2", 2, pods(2, 0, kT0))},
                  kSettings, now);
  ASSERT_TRUE(d.status);
  EXPECT_EQ(d.status->estimatedCapacity, (std::map<std::string, int64_t>{{"member1", 1}}));
  EXPECT_EQ(d.status->scheduledReplicas, (std::map<std::string, int64_t>{{"member1", 1}}));
  EXPECT_EQ(d.status->estimatedAt.at("member1"), api::formatRfc3339(now));
  EXPECT_EQ(d.status->availableReplicas.at("member1"), 0);
  EXPECT_EQ(d.status->updatedAt, api::formatRfc3339(now));
  EXPECT_EQ(*d.requeueAfter, minutes(5));
  // Pods not created yet count as schedulable: desired 3, two pods, one unschedulable -> 2.
  d = decide(std::nullopt, {view("member1", 3, pods(1, 1, kT0))}, kSettings, now);
  EXPECT_EQ(d.status->estimatedCapacity.at("member1"), 2);
}

TEST(EstimateTest, EstimateOutlivesItsPodsUntilTheClusterGrowsOrTheTtl) {
  const auto t1 = kT0 + seconds(61);
  auto first = decide(std::nullopt, {view("member1", 2, pods(1, 1, kT0), 1)}, kSettings, t1);
  ASSERT_TRUE(first.status);
  // The replica moved away: member1 runs 1, nothing pending, the same room (its own pending pod
  // no longer counted): the estimate stays, unchanged, and nothing is rewritten.
  auto later =
      decide(first.status, {view("member1", 1, pods(1, 0, kT0), 1)}, kSettings, t1 + seconds(30));
  ASSERT_TRUE(later.status);
  EXPECT_EQ(*later.status, *first.status);
  EXPECT_EQ(*later.requeueAfter, minutes(5) - seconds(30));
  // Unknown cluster resources: still in force.
  auto unknown = decide(first.status, {view("member1", 1, pods(1, 0, kT0), std::nullopt)},
                        kSettings, t1 + seconds(30));
  EXPECT_EQ(*unknown.status, *first.status);
  // The cluster grew by one replica: raised by one (and the new room remembered), its clock
  // unchanged; the scheduler rebalances with the higher cap.
  auto grown =
      decide(first.status, {view("member1", 1, pods(1, 0, kT0), 2)}, kSettings, t1 + seconds(30));
  ASSERT_TRUE(grown.status);
  EXPECT_EQ(grown.status->estimatedCapacity.at("member1"), 2);
  EXPECT_EQ(grown.status->availableReplicas.at("member1"), 2);
  EXPECT_EQ(grown.status->estimatedAt, first.status->estimatedAt);
  EXPECT_EQ(grown.status->updatedAt, api::formatRfc3339(t1 + seconds(30)));
  // No further growth: the same estimate (only scheduledReplicas follows the pods).
  auto same =
      decide(grown.status, {view("member1", 2, pods(2, 0, kT0), 2)}, kSettings, t1 + seconds(40));
  EXPECT_EQ(same.status->estimatedCapacity, grown.status->estimatedCapacity);
  EXPECT_EQ(same.status->updatedAt, grown.status->updatedAt);
  EXPECT_EQ(same.status->scheduledReplicas.at("member1"), 2);
  // The TTL passed: lifted (the scheduler probes upward).
  auto expired =
      decide(first.status, {view("member1", 1, pods(1, 0, kT0), 1)}, kSettings, t1 + minutes(5));
  EXPECT_FALSE(expired.status);
  // The cluster left the fleet: dropped.
  EXPECT_FALSE(decide(first.status, {}, kSettings, t1 + seconds(1)).status);
}

TEST(EstimateTest, KeepingUnschedulableReplicasDoesNotRewriteTheSameEstimate) {
  const auto t1 = kT0 + seconds(61);
  auto first = decide(std::nullopt, {view("member1", 2, pods(1, 1, kT0), 0)}, kSettings, t1);
  // Plan 1 + overflow 1 keeps the pending pod: the same estimate, same time.
  auto again =
      decide(first.status, {view("member1", 2, pods(1, 1, kT0), 0)}, kSettings, t1 + seconds(90));
  EXPECT_EQ(*again.status, *first.status);
  // A deeper squeeze lowers it and restarts its clock.
  auto lower =
      decide(first.status, {view("member1", 2, pods(0, 2, kT0), 0)}, kSettings, t1 + seconds(90));
  EXPECT_EQ(lower.status->estimatedCapacity.at("member1"), 0);
  EXPECT_EQ(lower.status->estimatedAt.at("member1"), api::formatRfc3339(t1 + seconds(90)));
}

TEST(EstimateTest, UnobservedClusterKeepsItsEstimate) {
  const auto t1 = kT0 + seconds(61);
  auto first = decide(std::nullopt, {view("member1", 2, pods(1, 1, kT0), 0)}, kSettings, t1);
  ClusterView offline{"member1", 1, false, {}, 0};
  auto d = decide(first.status, {offline}, kSettings, t1 + seconds(10));
  EXPECT_EQ(d.status->estimatedCapacity.at("member1"), 1);
}

}  // namespace
}  // namespace flotilla::controllers::automigration
