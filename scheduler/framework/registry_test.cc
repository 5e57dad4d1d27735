#include "scheduler/framework/registry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include "api/enums.h"

namespace flotilla::scheduler {
namespace {

using ::testing::ElementsAre;

template <class T>
std::vector<std::string> names(const std::vector<T>& plugins) {
  std::vector<std::string> out;
  for (const auto& p : plugins) out.emplace_back(p->name());
  return out;
}

std::vector<std::pair<std::string, int64_t>> scoreNames(const Profile& p) {
  std::vector<std::pair<std::string, int64_t>> out;
  for (const auto& s : p.score) out.emplace_back(s.plugin->name(), s.weight);
  return out;
}

TEST(RegistryTest, RegistersExactlyTheNamesTheApiValidates) {
  std::set<std::string> expected;
  for (auto list : {std::vector<std::string_view>(api::enums::kFilterPlugins.begin(),
                                                  api::enums::kFilterPlugins.end()),
                    std::vector<std::string_view>(api::enums::kScorePlugins.begin(),
                                                  api::enums::kScorePlugins.end()),
                    std::vector<std::string_view>(api::enums::kSelectPlugins.begin(),
                                                  api::enums::kSelectPlugins.end()),
                    std::vector<std::string_view>(api::enums::kReplicasPlugins.begin(),
                                                  api::enums::kReplicasPlugins.end())}) {
    for (auto n : list) expected.insert(std::string(n));
  }
  std::set<std::string> registered;
  for (const auto& [name, factory] : pluginRegistry()) registered.insert(name);
  EXPECT_EQ(registered, expected);
}

TEST(ProfileTest, DefaultProfileRunsEveryPluginInOrder) {
  Profile p = defaultProfile().value();
  EXPECT_THAT(names(p.filter), ElementsAre("ClusterReady", "TaintToleration", "ClusterAffinity",
                                           "APIEnablement", "SpreadConstraint", "ResourcesFit"));
  EXPECT_THAT(scoreNames(p), ElementsAre(std::pair<std::string, int64_t>{"ClusterAffinity", 1},
                                         std::pair<std::string, int64_t>{"TaintToleration", 1},
                                         std::pair<std::string, int64_t>{"LeastAllocated", 1},
                                         std::pair<std::string, int64_t>{"BalancedAllocation", 1},
                                         std::pair<std::string, int64_t>{"Locality", 1},
                                         std::pair<std::string, int64_t>{"TopologySpread", 1}));
  EXPECT_THAT(names(p.select), ElementsAre("SpreadConstraint", "MaxClusters"));
  EXPECT_THAT(names(p.replicas), ElementsAre("Duplicated", "Divided", "TopologySpread"));
  // One instance per plugin even when it serves several points.
  EXPECT_EQ(p.all.size(), 13u);
}

TEST(ProfileTest, EnableDisableStarAndWeights) {
  api::SchedulingProfile sp;
  sp.metadata.name = "custom";
  sp.spec.plugins.filter.disabled = {{"*", std::nullopt}};
  sp.spec.plugins.filter.enabled = {{"ClusterReady", std::nullopt}};
  sp.spec.plugins.score.disabled = {{"BalancedAllocation", std::nullopt}};
  sp.spec.plugins.score.enabled = {{"Locality", 3}};
  Profile p = buildProfile(sp).value();
  EXPECT_EQ(p.name, "custom");
  EXPECT_THAT(names(p.filter), ElementsAre("ClusterReady"));
  auto scores = scoreNames(p);
  EXPECT_EQ(scores.size(), 5u);
  EXPECT_EQ(
      std::count(scores.begin(), scores.end(), std::pair<std::string, int64_t>{"Locality", 3}), 1);
  for (const auto& [name, weight] : scores) EXPECT_NE(name, "BalancedAllocation");
}

TEST(ProfileTest, RejectsUnknownZeroWeightAndWrongPoint) {
  api::SchedulingProfile unknown;
  unknown.spec.plugins.score.enabled = {{"Fastest", std::nullopt}};
  auto r = buildProfile(unknown);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().causes.at(0).field, "spec.plugins.score");

  api::SchedulingProfile zero;
  zero.spec.plugins.score.enabled = {{"Locality", 0}};
  r = buildProfile(zero);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().causes.at(0).field, "spec.plugins.score.enabled[0].weight");

  api::SchedulingProfile wrongPoint;
  wrongPoint.spec.plugins.filter.enabled = {{"Locality", std::nullopt}};
  r = buildProfile(wrongPoint);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().causes.at(0).message, "plugin \"Locality\" is not a filter plugin");
}

TEST(ProfileTest, PluginConfigArgsReachTheFactory) {
  api::SchedulingProfile sp;
  sp.spec.pluginConfig = {
      {"LeastAllocated", boost::json::parse(R"({"resources": [{"name": "cpu", "weight": 0}]})")}};
  auto bad = buildProfile(sp);
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().causes.at(0).message.find("LeastAllocated: args.resources[].weight"),
            std::string::npos);
  sp.spec.pluginConfig[0].args =
      boost::json::parse(R"({"resources": [{"name": "cpu", "weight": 2}]})");
  EXPECT_TRUE(buildProfile(sp).has_value());
}

}  // namespace
}  // namespace flotilla::scheduler
