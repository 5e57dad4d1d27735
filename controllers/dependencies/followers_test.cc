#include "controllers/dependencies/followers.h"

#include <gtest/gtest.h>

namespace flotilla::controllers::dependencies {
namespace {

Dependency cm(const char* name, bool optional = false) {
  return {"v1", "ConfigMap", "shop", name, optional};
}

Leader leader(std::string key, std::set<std::string> clusters, std::set<std::string> presentOn,
              std::vector<Dependency> needs, bool follow = true) {
  return {std::move(key), std::move(clusters), std::move(presentOn), std::move(needs), follow};
}

TEST(PlanFollowers, TheUnionOfTheLeadersClustersAndWhereTheirCopiesStillAre) {
  // A on c1, B on c2, both mount "shared"; A alone reads "a-only".
  const auto a = leader("shop/a", {"c1"}, {"c1"}, {cm("shared"), cm("a-only")});
  const auto b = leader("shop/b", {"c2"}, {"c2"}, {cm("shared")});
  const auto plan = planFollowers({a, b});
  ASSERT_EQ(plan.size(), 2u);
  EXPECT_EQ(plan[0].follower, cm("a-only"));
  EXPECT_EQ(plan[0].clusters, (std::set<std::string>{"c1"}));
  EXPECT_EQ(plan[1].follower, cm("shared"));
  EXPECT_EQ(plan[1].clusters, (std::set<std::string>{"c1", "c2"}));
  EXPECT_EQ(plan[1].leadersOn.at("c1"), std::set<std::string>{"shop/a"});
  EXPECT_EQ(plan[1].requiredBy, (std::set<std::string>{"shop/a", "shop/b"}));

  // A moves from c1 to c3: the follower goes to c3 at once and stays on c1 while A's copy is
  // still there (holding replicas, or being deleted)...
  const auto moving = planFollowers({leader("shop/a", {"c3"}, {"c1"}, {cm("shared")}), b});
  ASSERT_EQ(moving.size(), 1u);
  EXPECT_EQ(moving[0].clusters, (std::set<std::string>{"c1", "c2", "c3"}));
  // ... and leaves c1 once A's copy is gone there; B keeps it on c2.
  const auto moved = planFollowers({leader("shop/a", {"c3"}, {"c3"}, {cm("shared")}), b});
  EXPECT_EQ(moved[0].clusters, (std::set<std::string>{"c2", "c3"}));
  // A deleted: no placement, but its copy still on c3 keeps the follower there until it goes.
  const auto deleted = planFollowers({leader("shop/a", {}, {"c3"}, {cm("shared")})});
  EXPECT_EQ(deleted[0].clusters, std::set<std::string>{"c3"});
}

TEST(PlanFollowers, IgnoreOptOutAndOptionalReferences) {
  const auto plan =
      planFollowers({leader("shop/ignored", {"c1"}, {}, {cm("x")}, false),
                     leader("shop/a", {"c1"}, {}, {cm("opt", true), cm("both", true), cm("out")}),
                     leader("shop/b", {"c2"}, {}, {cm("both")})},
                    {cm("out")});
  ASSERT_EQ(plan.size(), 2u);
  EXPECT_EQ(plan[0].follower, cm("both")) << "required by one leader: required";
  EXPECT_EQ(plan[1].follower, cm("opt", true)) << "optional for every leader: optional";
  // Not yet placed: named, on no cluster.
  const auto unplaced = planFollowers({leader("shop/new", {}, {}, {cm("env")})});
  ASSERT_EQ(unplaced.size(), 1u);
  EXPECT_TRUE(unplaced[0].clusters.empty());
  EXPECT_EQ(unplaced[0].requiredBy, std::set<std::string>{"shop/new"});
}

struct GateCase {
  const char* name;
  Leader leader;
  std::map<Dependency, FollowerState> followers;
  std::set<std::string> blocked;
  std::string status, reason;
};

class GateLeader : public ::testing::TestWithParam<GateCase> {};

TEST_P(GateLeader, Table) {
  const auto& c = GetParam();
  const auto gate = gateLeader(c.leader, c.followers, {cm("out")});
  EXPECT_EQ(gate.blocked, c.blocked);
  EXPECT_EQ(gate.status, c.status);
  EXPECT_EQ(gate.reason, c.reason);
  if (c.status == "False") {
    EXPECT_NE(gate.message.find("ConfigMap shop/"), std::string::npos) << gate.message;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Table, GateLeader,
    ::testing::Values(
        GateCase{"AppliedEverywhere",
                 leader("shop/web", {"c1", "c2"}, {}, {cm("env")}),
                 {{cm("env"), {true, {"c1", "c2"}}}},
                 {},
                 "True",
                 ""},
        // A new cluster waits for the follower; a cluster the leader runs on does not.
        GateCase{"ANewClusterWaits",
                 leader("shop/web", {"c1", "c2"}, {"c1"}, {cm("env")}),
                 {{cm("env"), {true, {"c1"}}}},
                 {"c2"},
                 "False",
                 "Pending"},
        GateCase{"AlreadyThereIsNeverBlocked",
                 leader("shop/web", {"c1", "c2"}, {"c1", "c2"}, {cm("env")}),
                 {{cm("env"), {true, {}}}},
                 {},
                 "False",
                 "Pending"},
        // An optional follower that exists is mounted by the pods: it is waited for too.
        GateCase{"AnExistingOptionalFollowerIsWaitedFor",
                 leader("shop/web", {"c1"}, {}, {cm("env", true)}),
                 {{cm("env"), {true, {}}}},
                 {"c1"},
                 "False",
                 "Pending"},
        // Missing on the host: reported, never holding the workload back.
        GateCase{"MissingDoesNotBlock",
                 leader("shop/web", {"c1", "c2"}, {}, {cm("env")}),
                 {},
                 {},
                 "False",
                 "Missing"},
        GateCase{"OptionalMissingIsFine",
                 leader("shop/web", {"c1"}, {}, {cm("env", true)}),
                 {},
                 {},
                 "True",
                 ""},
        // An opted-out object (flotilla.io/follow: "false") is placed by its own policy, if at
        // all: never waited for.
        GateCase{"OptedOutIsNeverWaitedFor",
                 leader("shop/web", {"c1"}, {}, {cm("out")}),
                 {{cm("out"), {true, {}}}},
                 {},
                 "True",
                 ""},
        GateCase{"IgnoreNeverGates",
                 leader("shop/web", {"c1"}, {}, {cm("env")}, false),
                 {{cm("env"), {true, {}}}},
                 {},
                 "True",
                 ""}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(GateLeaderAutoscaled, WhereTheLeadersHpaIsAppliedItsReplicasAreTheMembers) {
  const Dependency hpa{"autoscaling/v2", "HorizontalPodAutoscaler", "shop", "web", false};
  const auto web = leader("shop/web", {"c1", "c2"}, {"c1", "c2"}, {cm("env"), hpa});
  const auto gate =
      gateLeader(web, {{cm("env"), {true, {"c1", "c2"}, {"c1", "c2"}}}, {hpa, {true, {}, {"c1"}}}});
  EXPECT_EQ(gate.autoscaledOn, std::set<std::string>{"c1"}) << "no copy on c2 yet";
  // An HPA placed by a policy of its own (opted out of following) owns the replicas all the same.
  const auto own = gateLeader(web, {{hpa, {true, {"c2"}, {"c2"}}}}, {hpa});
  EXPECT_EQ(own.autoscaledOn, std::set<std::string>{"c2"});
  // A ConfigMap scales nothing.
  EXPECT_TRUE(gateLeader(web, {{cm("env"), {true, {"c1", "c2"}}}}).autoscaledOn.empty());
}

TEST(GateLeaderGrace, ANewLeaderWaitsForAFollowerNotOnTheHostYet) {
  // Applied as a directory, the Deployment first: its ConfigMap is not on the host yet.
  const auto web = leader("shop/web", {"c1", "c2"}, {"c2"}, {cm("env"), cm("extra", true)});
  const auto young = gateLeader(web, {}, {}, true);
  EXPECT_EQ(young.blocked, std::set<std::string>{"c1"}) << "c2 already runs it";
  EXPECT_EQ(young.reason, "Missing");
  // Past the grace it propagates without it (still reported).
  const auto old = gateLeader(web, {}, {}, false);
  EXPECT_TRUE(old.blocked.empty());
  EXPECT_EQ(old.reason, "Missing");
  // An optional reference is never waited for.
  const auto optional =
      gateLeader(leader("shop/web", {"c1"}, {}, {cm("extra", true)}), {}, {}, true);
  EXPECT_TRUE(optional.blocked.empty());
  EXPECT_EQ(optional.status, "True");
}

}  // namespace
}  // namespace flotilla::controllers::dependencies
