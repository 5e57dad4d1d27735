// OverridePolicy and ClusterOverridePolicy validation (docs/design.md §14): every rule, with the
// field path in the denial.
#include <gtest/gtest.h>

#include "api/test_util.h"
#include "api/validation.h"

namespace flotilla::api {
namespace {

FieldErrors errorsOf(const std::string& spec) {
  auto yaml = "apiVersion: flotilla.io/v1alpha1\nkind: OverridePolicy\n"
              "metadata: {name: p, namespace: shop}\nspec:\n" + spec;
  return validate(testing::fromYaml<OverridePolicy>(yaml));
}

const char* kSelect = "  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]\n";

TEST(OverridePolicyValidation, Table) {
  struct Case {
    const char* name;
    std::string spec;
    std::vector<std::string> fields;  // empty: valid
  };
  for (const auto& c : std::vector<Case>{
           {"every overrider", std::string(kSelect) + R"(  rules:
  - targetCluster: {clusterNames: [member1], fieldSelector: {matchExpressions: [{key: region, operator: In, values: [us-east]}]}}
    overriders:
      image: [{component: Registry, operator: overwrite, value: mirror.io}]
      command: [{containerName: web, operator: append, value: [--x]}]
      args: [{containerName: web, operator: delete}]
      env: [{containerName: web, operator: addIfAbsent, value: [{name: A, value: b}]}]
      labels: [{operator: overwrite, value: {a: b}}]
      annotations: [{operator: delete, value: {a: ""}}]
      jsonPatch: [{op: add, path: /spec/template/metadata/labels/x, value: "1"}]
)",
            {}},
           {"selectors and rules are required", "  rules: []\n",
            {"spec.resourceSelectors", "spec.rules"}},
           {"unknown component and operator", std::string(kSelect) + R"(  rules:
  - overriders: {image: [{component: Host, operator: replace, value: x}]}
)",
            {"spec.rules[0].overriders.image[0].component", "spec.rules[0].overriders.image[0].operator"}},
           {"a value to set is required", std::string(kSelect) + R"(  rules:
  - overriders: {image: [{component: Tag, operator: overwrite}], command: [{containerName: web, operator: append}]}
)",
            {"spec.rules[0].overriders.image[0].value", "spec.rules[0].overriders.command[0].value"}},
           {"a repository cannot be deleted", std::string(kSelect) + R"(  rules:
  - overriders: {image: [{component: Repository, operator: delete}]}
)",
            {"spec.rules[0].overriders.image[0].operator"}},
           {"env needs a container and named variables", std::string(kSelect) + R"(  rules:
  - overriders: {env: [{operator: overwrite, value: [{value: x}]}]}
)",
            {"spec.rules[0].overriders.env[0].containerName", "spec.rules[0].overriders.env[0].value[0].name"}},
           {"identity and replicas are never patched", std::string(kSelect) + R"(  rules:
  - overriders:
      jsonPatch:
      - {op: replace, path: /metadata/name, value: x}
      - {op: replace, path: /kind, value: x}
      - {op: replace, path: /spec/replicas, value: 3}
      - {op: remove, path: /metadata}
      - {op: move, path: /spec/x}
      - {op: add, path: spec/x, value: 1}
)",
            {"spec.rules[0].overriders.jsonPatch[0].path", "spec.rules[0].overriders.jsonPatch[1].path",
             "spec.rules[0].overriders.jsonPatch[2].path", "spec.rules[0].overriders.jsonPatch[3].path",
             "spec.rules[0].overriders.jsonPatch[4].op", "spec.rules[0].overriders.jsonPatch[5].path"}},
           {"a namespaced policy selects in its own namespace", R"(  resourceSelectors: [{apiVersion: v1, kind: ConfigMap, namespace: other}]
  rules: [{overriders: {labels: [{operator: overwrite, value: {a: b}}]}}]
)",
            {"spec.resourceSelectors[0].namespace"}},
           {"targetCluster as a clusterAffinity", std::string(kSelect) + R"(  rules:
  - targetCluster: {clusterNames: [Not_A_Name], fieldSelector: {matchExpressions: [{key: planet, operator: In, values: [x]}]}}
    overriders: {labels: [{operator: overwrite, value: {a: b}}]}
)",
            {"spec.rules[0].targetCluster.clusterNames[0]",
             "spec.rules[0].targetCluster.fieldSelector.matchExpressions[0].key"}},
       }) {
    EXPECT_EQ(testing::fields(errorsOf(c.spec)), c.fields) << c.name;
  }
}

TEST(OverridePolicyValidation, AClusterOverridePolicySelectsAnyNamespace) {
  const auto policy = testing::fromYaml<ClusterOverridePolicy>(R"(
apiVersion: flotilla.io/v1alpha1
kind: ClusterOverridePolicy
metadata: {name: registry}
spec:
  resourceSelectors: [{apiVersion: v1, kind: ConfigMap, namespace: other}]
  rules: [{overriders: {annotations: [{operator: addIfAbsent, value: {a: b}}]}}]
)");
  EXPECT_TRUE(validate(policy).empty());
}

}  // namespace
}  // namespace flotilla::api
