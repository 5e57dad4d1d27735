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

const auto kClusterPolicies =
    std::vector<api::ClusterOverridePolicy>{api::testing::fromYaml<api::ClusterOverridePolicy>(R"(
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

const auto kPolicies =
    std::vector<api::OverridePolicy>{api::testing::fromYaml<api::OverridePolicy>(R"(
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
           {&kEast1,
            {"cop/a-first-by-name#0", "cop/registry#0", "cop/registry#1", "op/shop/tag#0"}},
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
      "containers":[{"name":"web","image":"nginx:1.27"}]}}}})")
                       .as_object();
  const auto result = applyRules(d, rulesFor(web(), kEast1, kClusterPolicies, kPolicies));
  EXPECT_EQ(d.at("spec").at("template").at("spec").at("containers").at(0).at("image"),
            "east.mirror.io/nginx:from-op");
  EXPECT_EQ(result.applied,
            (std::vector<std::string>{"cop/a-first-by-name", "cop/registry", "op/shop/tag"}));
  // On member2 the cluster policy's tag stands.
  json::object d2 = json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment",
    "metadata":{"name":"web"},"spec":{"template":{"spec":{
      "containers":[{"name":"web","image":"nginx:1.27"}]}}}})")
                        .as_object();
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

// The precedence of docs/design.md §14 as one table: a ClusterOverridePolicy applies first and
// the namespace's OverridePolicy after it, so on a conflict the later operation decides;
// addIfAbsent never replaces a value (whoever set it), overwrite always does, delete of a key
// that is not there is nothing; inside a rule the labels come before the jsonPatch.
TEST(Precedence, ClusterPolicyThenNamespacedPolicyOperatorsDecideConflicts) {
  struct Case {
    const char* name;
    const char* templateLabels;  // the object's labels before any policy, as JSON
    const char* cop;             // the ClusterOverridePolicy's overriders
    const char* op;              // the OverridePolicy's overriders
    const char* wantLabels;      // the labels after both, as JSON
  };
  const Case cases[] = {
      {"the namespaced overwrite wins", R"({})",
       "{labels: [{operator: overwrite, value: {tier: from-cop}}]}",
       "{labels: [{operator: overwrite, value: {tier: from-op}}]}", R"({"tier":"from-op"})"},
      {"addIfAbsent after overwrite keeps the cluster policy's value", R"({})",
       "{labels: [{operator: overwrite, value: {tier: from-cop}}]}",
       "{labels: [{operator: addIfAbsent, value: {tier: from-op}}]}", R"({"tier":"from-cop"})"},
      {"addIfAbsent keeps the template's value", R"({"tier":"template"})",
       "{labels: [{operator: addIfAbsent, value: {tier: from-cop}}]}",
       "{labels: [{operator: addIfAbsent, value: {tier: from-op}}]}", R"({"tier":"template"})"},
      {"addIfAbsent fills what the cluster policy deleted", R"({"tier":"template"})",
       "{labels: [{operator: delete, value: {tier: ''}}]}",
       "{labels: [{operator: addIfAbsent, value: {tier: from-op}}]}", R"({"tier":"from-op"})"},
      {"the namespaced delete removes what the cluster policy set", R"({})",
       "{labels: [{operator: overwrite, value: {tier: from-cop, keep: 'yes'}}]}",
       "{labels: [{operator: delete, value: {tier: ''}}]}", R"({"keep":"yes"})"},
      {"delete of a missing key changes nothing", R"({"app":"web"})",
       "{labels: [{operator: delete, value: {nothere: ''}}]}",
       "{labels: [{operator: delete, value: {alsonot: ''}}]}", R"({"app":"web"})"},
      {"a jsonPatch comes after the labels of its own rule", R"({})",
       "{labels: [{operator: overwrite, value: {tier: from-cop}}], "
       "jsonPatch: [{op: replace, path: /metadata/labels/tier, value: patched}]}",
       "{}", R"({"tier":"patched"})"},
      {"a cluster policy's jsonPatch is overridden by the namespaced labels", R"({})",
       "{jsonPatch: [{op: add, path: /metadata/labels, value: {tier: patched}}]}",
       "{labels: [{operator: overwrite, value: {tier: from-op}}]}", R"({"tier":"from-op"})"},
  };
  for (const auto& c : cases) {
    std::vector<api::ClusterOverridePolicy> cops{api::testing::fromYaml<api::ClusterOverridePolicy>(
        std::string("metadata: {name: z-cluster}\nspec:\n  resourceSelectors: [{apiVersion: "
                    "apps/v1, kind: Deployment}]\n  rules: [{overriders: ") +
        c.cop + "}]\n")};
    std::vector<api::OverridePolicy> ops{api::testing::fromYaml<api::OverridePolicy>(
        std::string("metadata: {name: a-namespaced, namespace: shop}\nspec:\n  "
                    "resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]\n  rules: "
                    "[{overriders: ") +
        c.op + "}]\n")};
    json::object d = json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment",
      "metadata":{"name":"web"},"spec":{"template":{"spec":{
        "containers":[{"name":"web","image":"nginx:1.27"}]}}}})")
                         .as_object();
    json::value labels = json::parse(c.templateLabels);
    if (!labels.as_object().empty()) d["metadata"].as_object()["labels"] = labels;
    const auto rules = rulesFor(web(), kEast1, cops, ops);
    // (Names do not reorder the kinds: the cluster policy "z-cluster" still comes first.)
    ASSERT_EQ(rules.size(), 2u) << c.name;
    EXPECT_EQ(rules[0].policy, "cop/z-cluster") << c.name;
    const auto result = applyRules(d, rules);
    ASSERT_FALSE(result.error) << c.name << ": " << *result.error;
    const auto* got = d.at("metadata").as_object().if_contains("labels");
    EXPECT_EQ(got ? json::serialize(*got) : std::string("{}"), c.wantLabels) << c.name;
  }
}

TEST(Selecting, OnlyLivePoliciesOfTheObjectsNamespaceAndNoneForAClusterScopedObject) {
  PolicySet set;
  for (const auto& p : kClusterPolicies)
    set.clusterPolicies.push_back(std::make_shared<const api::ClusterOverridePolicy>(p));
  for (const auto& p : kPolicies)
    set.policies.push_back(std::make_shared<const api::OverridePolicy>(p));
  const auto chosen = selecting(set, web());
  std::vector<std::string> names;
  for (const auto& p : chosen.clusterPolicies) names.push_back(policyId(*p));
  for (const auto& p : chosen.policies) names.push_back(policyId(*p));
  EXPECT_EQ(names,
            (std::vector<std::string>{"cop/a-first-by-name", "cop/registry", "op/shop/tag"}));
  // A Namespace (cluster-scoped): ClusterOverridePolicies only.
  PolicySet all;
  all.clusterPolicies.push_back(std::make_shared<const api::ClusterOverridePolicy>(
      api::testing::fromYaml<api::ClusterOverridePolicy>(R"(
metadata: {name: namespaces}
spec:
  resourceSelectors: [{apiVersion: v1, kind: Namespace}]
  rules: [{overriders: {labels: [{operator: overwrite, value: {x: "1"}}]}}]
)")));
  all.policies = set.policies;
  const auto forNamespace = selecting(all, {"v1", "Namespace", "", "shop", {}});
  EXPECT_EQ(forNamespace.clusterPolicies.size(), 1u);
  EXPECT_TRUE(forNamespace.policies.empty());
}

}  // namespace
}  // namespace flotilla::controllers::override
