#include "controllers/sync/move.h"

#include <gtest/gtest.h>

namespace flotilla::controllers::sync {
namespace {

using Replicas = std::map<std::string, int32_t>;

MoveCluster c(const char* name, int32_t desired, std::optional<int32_t> live, int32_t available,
              bool reachable = true) {
  return {name, desired, live, available, reachable};
}

int32_t availableAfter(const std::vector<MoveCluster>& clusters, const MovePlan& plan) {
  int32_t sum = 0;
  for (const auto& x : clusters)
    if (x.reachable) sum += std::min(x.available, plan.replicas.at(x.name));
  return sum;
}

TEST(MoveTest, SteadyStateAndPlainScalingAreNotMoves) {
  std::vector<MoveCluster> steady = {c("member1", 2, 2, 2), c("member2", 2, 2, 2)};
  auto plan = planMove(steady, false);
  EXPECT_EQ(plan.replicas, (Replicas{{"member1", 2}, {"member2", 2}}));
  EXPECT_FALSE(plan.moving());
  // Scaling down everywhere: nothing to wait for.
  plan = planMove({c("member1", 1, 2, 2), c("member2", 1, 2, 2)}, false);
  EXPECT_EQ(plan.replicas, (Replicas{{"member1", 1}, {"member2", 1}}));
  EXPECT_FALSE(plan.moving());
}

TEST(MoveTest, MigrationDropsThePendingPodAtOnce) {
  // Seed 003: member1 runs 1 of 2 (one pod unschedulable); the new placement is 1:3:2.
  std::vector<MoveCluster> in = {c("member1", 1, 2, 1), c("member2", 3, 2, 2),
                                 c("member3", 2, 2, 2)};
  auto plan = planMove(in, false);
  EXPECT_EQ(plan.replicas, (Replicas{{"member1", 1}, {"member2", 3}, {"member3", 2}}));
  EXPECT_FALSE(plan.moving());
  EXPECT_GE(availableAfter(in, plan), 5);
}

TEST(MoveTest, RebalanceHoldsTheSourceUntilTheTargetIsAvailable) {
  // 1:3:2 -> 2:2:2: member2 keeps 3 while member1's new replica is not available.
  std::vector<MoveCluster> in = {c("member1", 2, 1, 1), c("member2", 2, 3, 3),
                                 c("member3", 2, 2, 2)};
  auto plan = planMove(in, false);
  EXPECT_EQ(plan.replicas, (Replicas{{"member1", 2}, {"member2", 3}, {"member3", 2}}));
  EXPECT_EQ(plan.held, (Replicas{{"member2", 3}}));
  EXPECT_EQ(describeHeld(plan, in), "member2 holds 3 (target 2)");
  // member1 scaled to 2, the new pod available: member2 goes to 2.
  in[0] = c("member1", 2, 2, 2);
  plan = planMove(in, false);
  EXPECT_EQ(plan.replicas, (Replicas{{"member1", 2}, {"member2", 2}, {"member3", 2}}));
  EXPECT_FALSE(plan.moving());
  // Timed out: the desired counts whatever is available.
  in[0] = c("member1", 2, 2, 1);
  plan = planMove(in, true);
  EXPECT_EQ(plan.replicas, (Replicas{{"member1", 2}, {"member2", 2}, {"member3", 2}}));
}

TEST(MoveTest, FailbackDrainsGraduallyAndRemovesUntargetedClustersLast) {
  // Failback: member3 back in the placement, created from nothing.
  std::vector<MoveCluster> in = {c("member1", 2, 3, 3), c("member2", 2, 3, 3),
                                 c("member3", 2, std::nullopt, 0)};
  auto plan = planMove(in, false);
  EXPECT_EQ(plan.held, (Replicas{{"member1", 3}, {"member2", 3}}));
  in[2] = c("member3", 2, 2, 1);  // one of two available: one replica may go
  plan = planMove(in, false);
  EXPECT_EQ(plan.replicas, (Replicas{{"member1", 2}, {"member2", 3}, {"member3", 2}}));
  EXPECT_GE(availableAfter(in, plan), 6);
  // A cluster no longer targeted is drained the same way, then removed (0).
  std::vector<MoveCluster> away = {c("member1", 0, 2, 2), c("member2", 4, 2, 2)};
  plan = planMove(away, false);
  EXPECT_EQ(plan.replicas, (Replicas{{"member1", 2}, {"member2", 4}}));
  away[1] = c("member2", 4, 4, 4);
  plan = planMove(away, false);
  EXPECT_EQ(plan.replicas, (Replicas{{"member1", 0}, {"member2", 4}}));
}

TEST(MoveTest, UnreachableClustersAreNeverHeldNorCounted) {
  // Failover: member3 is gone; its replicas are simply re-placed, nothing is waited for there.
  std::vector<MoveCluster> in = {c("member1", 3, 2, 2), c("member2", 3, 2, 2),
                                 c("member3", 0, 2, 2, false)};
  auto plan = planMove(in, false);
  EXPECT_EQ(plan.replicas.at("member3"), 0);
  EXPECT_FALSE(plan.moving());
  // A returning cluster with stale replicas on top of the moved ones: removed in one pass.
  in = {c("member1", 3, 3, 3), c("member2", 3, 3, 3), c("member3", 0, 2, 2)};
  plan = planMove(in, false);
  EXPECT_EQ(plan.replicas.at("member3"), 0);
  EXPECT_FALSE(plan.moving());
}

TEST(MoveTest, AvailabilityNeverDropsInRandomMoves) {
  uint32_t seed = 12345;
  auto next = [&seed](int n) {
    seed = seed * 1103515245u + 12345u;
    return static_cast<int32_t>((seed >> 16) % n);
  };
  for (int round = 0; round < 2000; ++round) {
    std::vector<MoveCluster> in;
    int32_t before = 0;
    int32_t desiredTotal = 0;
    for (int i = 0; i < 4; ++i) {
      const int32_t live = next(6);
      const int32_t available = next(live + 1);
      const int32_t desired = next(6);
      in.push_back(c(("m" + std::to_string(i)).c_str(), desired, live, available));
      before += available;
      desiredTotal += desired;
    }
    auto plan = planMove(in, false);
    EXPECT_GE(availableAfter(in, plan), std::min(before, desiredTotal)) << round;
    for (const auto& x : in) {
      EXPECT_GE(plan.replicas.at(x.name), x.desired);
      EXPECT_LE(plan.replicas.at(x.name), std::max(x.desired, *x.live));
    }
  }
}

}  // namespace
}  // namespace flotilla::controllers::sync
