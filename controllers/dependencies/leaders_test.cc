#include "controllers/dependencies/leaders.h"

#include <gtest/gtest.h>

#include <cstdio>

#include <boost/json/parse.hpp>

namespace flotilla::controllers::dependencies {
namespace {

namespace json = boost::json;

json::object parse(const char* text) { return json::parse(text).as_object(); }

const json::object kDeployment = parse(R"({
  "apiVersion": "apps/v1", "kind": "Deployment",
  "metadata": {"name": "web", "namespace": "shop"},
  "spec": {"template": {"metadata": {"labels": {"app": "web", "tier": "front"}},
    "spec": {"containers": [{"name": "c", "envFrom": [{"configMapRef": {"name": "env"}}]}]}}}})");

TEST(LeaderOf, ABindingLeadsWhatItsObjectNamesAndTheServicesSelectingItsPods) {
  const auto binding = parse(R"({
    "metadata": {"name": "web", "namespace": "shop"},
    "spec": {"clusters": [{"name": "c1", "replicas": 2}, {"name": "c2", "replicas": 1}]},
    "status": {"aggregatedStatus": [{"clusterName": "c1"}, {"clusterName": "c3"},
      {"clusterName": "c2", "propagation": "PendingCreate"},
      {"clusterName": "c4", "propagation": "CreationFailed"}]}})");
  const auto selecting = parse(R"({"metadata": {"name": "web", "namespace": "shop"},
    "spec": {"selector": {"app": "web"}}})");
  const auto other = parse(R"({"metadata": {"name": "db", "namespace": "shop"},
    "spec": {"selector": {"app": "db"}}})");
  const auto none = parse(R"({"metadata": {"name": "external", "namespace": "shop"},
    "spec": {}})");
  const auto leader = leaderOf(binding, kDeployment, {&selecting, &other, &none});
  ASSERT_TRUE(leader);
  EXPECT_EQ(leader->key, "web");
  EXPECT_TRUE(leader->follow);
  EXPECT_EQ(leader->clusters, (std::set<std::string>{"c1", "c2"}));
  EXPECT_EQ(leader->presentOn, (std::set<std::string>{"c1", "c3"}));
  EXPECT_EQ(leader->needs, (std::vector<Dependency>{{"v1", "ConfigMap", "shop", "env", false},
                                                    {"v1", "Service", "shop", "web", false}}));
}

TEST(LeaderOf, IgnoreDeletionAndKindsWithoutFollowers) {
  auto binding = parse(R"({"metadata": {"name": "web", "deletionTimestamp": "2026-01-01T00:00:00Z"},
    "spec": {"dependencies": "Ignore", "clusters": [{"name": "c1"}]},
    "status": {"aggregatedStatus": [{"clusterName": "c1"}]}})");
  const auto leader = leaderOf(binding, kDeployment, {});
  ASSERT_TRUE(leader);
  EXPECT_FALSE(leader->follow);
  EXPECT_TRUE(leader->clusters.empty()) << "a binding being deleted is placed nowhere";
  EXPECT_EQ(leader->presentOn, std::set<std::string>{"c1"});
  // A ConfigMap names nothing and runs no pods: it leads nothing.
  const auto configMap = parse(R"({"apiVersion": "v1", "kind": "ConfigMap",
    "metadata": {"name": "env", "namespace": "shop"}, "data": {}})");
  EXPECT_FALSE(leaderOf(binding, configMap, {}));
  // A Deployment naming nothing whose pods no Service selects leads nothing either.
  const auto bare = parse(R"({"apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {"name": "bare", "namespace": "shop"},
    "spec": {"template": {"metadata": {"labels": {"app": "bare"}}, "spec": {}}}})");
  EXPECT_FALSE(leaderOf(binding, bare, {}));
}

TEST(RequirementsFor, OneEntryPerLeaderWithTheClustersWhereItNeedsTheFollower) {
  const Dependency shared{"v1", "ConfigMap", "shop", "shared", false};
  const std::vector<Leader> leaders{{"a", {"c1"}, {"c1", "c3"}, {shared}, true},
                                    {"b", {"c2"}, {}, {shared}, true},
                                    {"idle", {}, {}, {shared}, true}};
  const auto plan = planFollowers(leaders);
  const auto required = requirementsFor(plan, {"v1", "ConfigMap", "shop", "shared", true}, "shop");
  ASSERT_EQ(required.size(), 3u);
  EXPECT_EQ(required[0], (api::BindingRequirement{"shop", "a", {"c1", "c3"}}));
  EXPECT_EQ(required[1], (api::BindingRequirement{"shop", "b", {"c2"}}));
  // A leader not placed yet still holds the follower (its object is federated), on no cluster.
  EXPECT_EQ(required[2], (api::BindingRequirement{"shop", "idle", {}}));
  EXPECT_TRUE(requirementsFor(plan, {"v1", "Secret", "shop", "shared", false}, "shop").empty());
}

// A cluster-scoped follower (a CRD) has leaders in many namespaces: each requirement names its
// leader's own namespace, and two leaders of one name in two namespaces stay two.
TEST(RequirementsFor, LeadersOfManyNamespacesKeepTheirNamespaces) {
  const Dependency crd{"apiextensions.k8s.io/v1", "CustomResourceDefinition", "",
                       "widgets.example.com", false};
  std::vector<Leader> leaders{{"w", {"c1"}, {}, {crd}, true}, {"w", {"c2"}, {}, {crd}, true}};
  leaders[0].ns = "shop";
  leaders[1].ns = "lab";
  const auto required = requirementsFor(planFollowers(leaders), crd, "");
  ASSERT_EQ(required.size(), 2u);
  EXPECT_EQ(required[0], (api::BindingRequirement{"lab", "w", {"c2"}}));
  EXPECT_EQ(required[1], (api::BindingRequirement{"shop", "w", {"c1"}}));
}

// A follower thousands of workloads share keeps a small binding: past kMaxRequirements the rest
// of its leaders are one entry, with every cluster they need it on.
TEST(RequirementsFor, ManyLeadersAreSummarisedWithAllTheirClusters) {
  const Dependency crd{"apiextensions.k8s.io/v1", "CustomResourceDefinition", "",
                       "widgets.example.com", false};
  std::vector<Leader> leaders;
  for (int i = 0; i < 250; ++i) {
    char name[16];
    std::snprintf(name, sizeof name, "w%03d", i);
    Leader l{name, {i == 249 ? "c9" : "c1"}, {}, {crd}, true};
    l.ns = "shop";
    leaders.push_back(std::move(l));
  }
  const auto required = requirementsFor(planFollowers(leaders), crd, "");
  ASSERT_EQ(required.size(), kMaxRequirements);
  EXPECT_EQ(required[0], (api::BindingRequirement{"shop", "w000", {"c1"}}));
  EXPECT_EQ(required[98].name, "w098");
  EXPECT_EQ(required.back(), (api::BindingRequirement{"", "+151 more", {"c1", "c9"}}));
  std::set<std::string> clusters;
  for (const auto& t : targetsOf(api::ResourceBinding{.spec = {.requiredBy = required}}))
    clusters.insert(t.name);
  EXPECT_EQ(clusters, (std::set<std::string>{"c1", "c9"})) << "no cluster is lost";
}

TEST(LeaderOf, WhatTheCachesAddIsNeededToo) {
  const auto binding = parse(R"({"metadata": {"name": "a-widget", "namespace": "shop"},
    "spec": {"clusters": [{"name": "c1"}]}})");
  const auto widget = parse(R"({"apiVersion": "example.com/v1", "kind": "Widget",
    "metadata": {"name": "a", "namespace": "shop"}, "spec": {}})");
  EXPECT_FALSE(leaderOf(binding, widget, {})) << "nothing named, nothing added";
  const Dependency crd{"apiextensions.k8s.io/v1", "CustomResourceDefinition", "",
                       "widgets.example.com", false};
  const auto leader = leaderOf(binding, widget, {}, {crd});
  ASSERT_TRUE(leader);
  EXPECT_EQ(leader->needs, std::vector<Dependency>{crd});
  EXPECT_EQ(leader->ns, "shop");
  EXPECT_EQ(leader->id(), "shop/a-widget");
}

TEST(TargetsOf, TheSchedulersClustersThenTheLeadersOthers) {
  api::ResourceBinding rb;
  rb.spec.clusters = {{"c1", 0}};
  rb.spec.requiredBy = {{"shop", "a", {"c1", "c3"}}, {"shop", "b", {"c2", "c3"}}};
  EXPECT_EQ(targetsOf(rb), (std::vector<api::TargetCluster>{{"c1", 0}, {"c3", 0}, {"c2", 0}}));
}

TEST(ClustersInUse, PlacementsRequirementsAndCopiesStillThere) {
  EXPECT_EQ(clustersInUse(parse(R"({"spec": {"clusters": [{"name": "c1"}],
      "requiredBy": [{"name": "web", "clusters": ["c2", "c1"]}]},
      "status": {"aggregatedStatus": [{"clusterName": "c3"}]}})")),
            (std::set<std::string>{"c1", "c2", "c3"}));
  EXPECT_TRUE(clustersInUse(json::object{}).empty());
}

TEST(SetDependenciesReady, AnEventOnlyWhenSomethingTurnsMissing) {
  api::ResourceBindingStatus status;
  LeaderGate missing{.blocked = {},
                     .status = "False",
                     .reason = "Missing",
                     .message = "not on the host: Secret shop/creds"};
  EXPECT_TRUE(setDependenciesReady(status, missing, 3, "2026-01-01T00:00:00Z"));
  ASSERT_EQ(status.conditions.size(), 1u);
  EXPECT_EQ(status.conditions[0].reason, "Missing");
  EXPECT_EQ(status.conditions[0].observedGeneration, 3);
  // The same again: no second Event, and lastTransitionTime stays.
  EXPECT_FALSE(setDependenciesReady(status, missing, 3, "2026-01-01T00:05:00Z"));
  EXPECT_EQ(status.conditions[0].lastTransitionTime, "2026-01-01T00:00:00Z");
  // Pending (applied nowhere yet) is not worth an Event; True clears it.
  EXPECT_FALSE(setDependenciesReady(status, {{}, "False", "Pending", "not applied"}, 3, "t"));
  EXPECT_FALSE(setDependenciesReady(status, LeaderGate{}, 3, "2026-01-01T00:10:00Z"));
  EXPECT_EQ(status.conditions[0].status, "True");
  EXPECT_EQ(status.conditions[0].reason, "AllApplied");
}

// A sync pass: Unknown (caches syncing) leaves the condition; a binding that no longer leads
// (its template names nothing now, or its policy says Ignore) loses it.
TEST(Leaders, ConditionLeftAloneWhileUnknownAndRemovedWhenNoLongerLeading) {
  api::ResourceBindingStatus status;
  api::Condition other;
  other.type = "FullyApplied";
  status.conditions.push_back(other);
  LeaderGate missing{{}, "False", "Missing", "ConfigMap shop/env does not exist"};
  EXPECT_TRUE(updateDependenciesReady(status, missing, 1, "t0"));
  ASSERT_EQ(status.conditions.size(), 2u);
  LeaderGate unknown{{}, "Unknown", "", "syncing"};
  EXPECT_FALSE(updateDependenciesReady(status, unknown, 1, "t1"));
  EXPECT_EQ(status.conditions[1].reason, "Missing");
  EXPECT_FALSE(updateDependenciesReady(status, std::nullopt, 2, "t2"));
  ASSERT_EQ(status.conditions.size(), 1u);
  EXPECT_EQ(status.conditions[0].type, "FullyApplied");
}

}  // namespace
}  // namespace flotilla::controllers::dependencies
