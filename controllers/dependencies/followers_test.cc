#include "controllers/dependencies/followers.h"

#include <gtest/gtest.h>

namespace flotilla::controllers::dependencies {
namespace {

Dependency cm(const char* name, bool optional = false) {
  return {"v1", "ConfigMap", "shop", name, optional};
}

TEST(PlanFollowers, TheUnionOfTheLeadersClusters) {
  // A on c1, B on c2, both mount "shared"; A alone reads "a-only".
  const std::vector<Leader> leaders{
      {"shop/a", {"c1"}, {cm("shared"), cm("a-only")}, true},
      {"shop/b", {"c2"}, {cm("shared")}, true},
  };
  const auto plan = planFollowers(leaders);
  ASSERT_EQ(plan.size(), 2u);
  EXPECT_EQ(plan[0].follower, cm("a-only"));
  EXPECT_EQ(plan[0].clusters, (std::set<std::string>{"c1"}));
  EXPECT_EQ(plan[1].follower, cm("shared"));
  EXPECT_EQ(plan[1].clusters, (std::set<std::string>{"c1", "c2"}));
  EXPECT_EQ(plan[1].leadersOn.at("c1"), std::set<std::string>{"shop/a"});
  EXPECT_EQ(plan[1].requiredBy, (std::set<std::string>{"shop/a", "shop/b"}));

  // A leaves c1 (deleted, or moved to c3): the shared follower leaves c1 with it, stays on c2.
  const auto moved = planFollowers({{"shop/a", {"c3"}, {cm("shared")}, true}, leaders[1]});
  ASSERT_EQ(moved.size(), 1u);
  EXPECT_EQ(moved[0].clusters, (std::set<std::string>{"c2", "c3"}));
}

TEST(PlanFollowers, IgnoreOptOutAndOptionalReferences) {
  const auto plan = planFollowers(
      {
          {"shop/ignored", {"c1"}, {cm("x")}, false},
          {"shop/a", {"c1"}, {cm("opt", true), cm("both", true), cm("out")}, true},
          {"shop/b", {"c2"}, {cm("both")}, true},
      },
      {cm("out")});
  ASSERT_EQ(plan.size(), 2u);
  EXPECT_EQ(plan[0].follower, cm("both")) << "required by one leader: required";
  EXPECT_EQ(plan[1].follower, cm("opt", true)) << "optional for every leader: optional";
  // Not yet placed: named, on no cluster.
  const auto unplaced = planFollowers({{"shop/new", {}, {cm("env")}, true}});
  ASSERT_EQ(unplaced.size(), 1u);
  EXPECT_TRUE(unplaced[0].clusters.empty());
  EXPECT_EQ(unplaced[0].requiredBy, std::set<std::string>{"shop/new"});
}

struct GateCase {
  const char* name;
  Leader leader;
  std::map<Dependency, FollowerState> followers;
  std::set<std::string> present;
  std::set<std::string> blocked;
  std::string status, reason;
};

class GateLeader : public ::testing::TestWithParam<GateCase> {};

TEST_P(GateLeader, Table) {
  const auto& c = GetParam();
  const auto gate = gateLeader(c.leader, c.followers, c.present);
  EXPECT_EQ(gate.blocked, c.blocked);
  EXPECT_EQ(gate.status, c.status);
  EXPECT_EQ(gate.reason, c.reason);
  if (c.status == "False") {
    EXPECT_NE(gate.message.find("ConfigMap shop/"), std::string::npos) << gate.message;
  }
}

const Leader kWeb{"shop/web", {"c1", "c2"}, {cm("env")}, true};

INSTANTIATE_TEST_SUITE_P(
    Table, GateLeader,
    ::testing::Values(
        GateCase{
            "AppliedEverywhere", kWeb, {{cm("env"), {true, {"c1", "c2"}}}}, {}, {}, "True", ""},
        // A new cluster waits for the follower; a cluster the leader runs on does not.
        GateCase{"ANewClusterWaits",
                 kWeb,
                 {{cm("env"), {true, {"c1"}}}},
                 {"c1"},
                 {"c2"},
                 "False",
                 "Pending"},
        GateCase{"AlreadyThereIsNeverBlocked",
                 kWeb,
                 {{cm("env"), {true, {}}}},
                 {"c1", "c2"},
                 {},
                 "False",
                 "Pending"},
        // Missing on the host: reported, never holding the workload back.
        GateCase{"MissingDoesNotBlock", kWeb, {}, {}, {}, "False", "Missing"},
        GateCase{"OptionalMissingIsFine",
                 {"shop/web", {"c1"}, {cm("env", true)}, true},
                 {},
                 {},
                 {},
                 "True",
                 ""},
        GateCase{"IgnoreNeverGates",
                 {"shop/web", {"c1"}, {cm("env")}, false},
                 {{cm("env"), {true, {}}}},
                 {},
                 {},
                 "True",
                 ""}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace flotilla::controllers::dependencies
