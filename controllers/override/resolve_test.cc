#include "controllers/override/resolve.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include "api/test_util.h"

namespace flotilla::controllers::override {
namespace {

namespace json = boost::json;

api::FederatedCluster cluster(const char* name, const char* region, const char* provider) {
  api::FederatedCluster c;
  c.metadata.name = name;
  c.spec.region = region;
  c.spec.provider = provider;
  c.metadata.labels["env"] = "prod";
  return c;
}

const api::FederatedCluster kEast1 = cluster("member1", "us-east", "aws");
const api::FederatedCluster kEast2 = cluster("member2", "us-east", "gcp");
const api::FederatedCluster kWest = cluster("member3", "eu-west", "aws");

policy::Workload web() { return {"apps/v1", "Deployment", "shop", "web", {{"app", "web"}}}; }

std::vector<std::string> ids(const std::vector<RuleRef>& rules) {
  std::vector<std::string> out;
  for (const auto& r : rules) out.push_back(r.policy + "#" + std::to_string(r.index));
  return out;
}

const auto kClusterPolicies = std::vector<api::ClusterOverridePolicy>{
    api::testing::fromYaml<api::ClusterOverridePolicy>(R"(
metadata: {name: registry}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]
  rules:
  - targetCluster: {fieldSelector: {matchExpressions: [{key: region, operator: In, values: [us-east]}]}}
    overriders: {image: [{component: Registry, operator: overwrite, value: east.mirror.io}]}
  - overriders: {labels: [{operator: overwrite, value: {managed: flotilla}}]}
)"),
    api::testing::fromYaml<api::ClusterOverridePolicy>(R"(
metadata: {name: a-first-by-name}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, labelSelector: {matchLabels: {app: web}}}]
  rules:
  - targetCluster: {labelSelector: {matchLabels: {env: prod}}, exclude: [member3]}
    overriders: {image: [{component: Tag, operator: overwrite, value: from-cop}]}
)"),
    api::testing::fromYaml<api::ClusterOverridePolicy>(R"(
metadata: {name: configmaps-only}
spec:
  resourceSelectors: [{apiVersion: v1, kind: ConfigMap}]
  rules: [{overriders: {labels: [{operator: overwrite, value: {x: "1"}}]}}]
)")};

const auto kPolicies = std::vector<api::OverridePolicy>{
    api::testing::fromYaml<api::OverridePolicy>(R"(
metadata: {name: tag, namespace: shop}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]
  rules:
  - targetCluster: {clusterNames: [member1]}
    overriders: {image: [{component: Tag, operator: overwrite, value: from-op}]}
)"),
    api::testing::fromYaml<api::OverridePolicy>(R"(
metadata: {name: elsewhere, namespace: other}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]
  rules: [{overriders: {labels: [{operator: overwrite, value: {other: "true"}}]}}]
)")};

TEST(RulesFor, ClusterPoliciesByNameThenTheNamespacesByNameRulesInOrder) {
  struct Case {
    const api::FederatedCluster* cluster;
    std::vector<std::string> want;
  };
  for (const auto& c : std::vector<Case>{
           // member1: both cops (a-first-by-name before registry), then the op.
           {&kEast1, {"cop/a-first-by-name#0", "cop/registry#0", "cop/registry#1", "op/shop/tag#0"}},
           // member2: us-east but not named by the op.
           {&kEast2, {"cop/a-first-by-name#0", "cop/registry#0", "cop/registry#1"}},
           // member3: excluded by a-first-by-name, not us-east: the unconditional rule only.
           {&kWest, {"cop/registry#1"}},
       }) {
    EXPECT_EQ(ids(rulesFor(web(), *c.cluster, kClusterPolicies, kPolicies)), c.want)
        << c.cluster->metadata.name;
  }
  // An OverridePolicy of another namespace never selects; a selector of another kind neither.
  for (const auto& r : rulesFor(web(), kEast1, kClusterPolicies, kPolicies)) {
    EXPECT_NE(r.policy, "op/other/elsewhere");
    EXPECT_NE(r.policy, "cop/configmaps-only");
  }
}

TEST(RulesFor, TheNamespacedPolicyWinsAConflictByComingLast) {
  json::object d = json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment",
    "metadata":{"name":"web"},"spec":{"template":{"spec":{
      "containers":[{"name":"web","image":"nginx:1.27"}]}}}})").as_object();
  const auto result = applyRules(d, rulesFor(web(), kEast1, kClusterPolicies, kPolicies));
  EXPECT_EQ(d.at("spec").at("template").at("spec").at("containers").at(0).at("image"),
            "east.mirror.io/nginx:from-op");
  EXPECT_EQ(result.applied,
            (std::vector<std::string>{"cop/a-first-by-name", "cop/registry", "op/shop/tag"}));
  // On member2 the cluster policy's tag stands.
  json::object d2 = json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment",
    "metadata":{"name":"web"},"spec":{"template":{"spec":{
      "containers":[{"name":"web","image":"nginx:1.27"}]}}}})").as_object();
  applyRules(d2, rulesFor(web(), kEast2, kClusterPolicies, kPolicies));
  EXPECT_EQ(d2.at("spec").at("template").at("spec").at("containers").at(0).at("image"),
            "east.mirror.io/nginx:from-cop");
}

TEST(RulesFor, APolicyBeingDeletedNoLongerApplies) {
  auto policies = kPolicies;
  policies[0].metadata.deletionTimestamp = "2026-11-28T10:00:00Z";
  for (const auto& r : rulesFor(web(), kEast1, kClusterPolicies, policies))
    EXPECT_NE(r.policy, "op/shop/tag");
}

}  // namespace
}  // namespace flotilla::controllers::override
