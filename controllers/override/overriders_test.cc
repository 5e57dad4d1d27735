#include "controllers/override/overriders.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "api/test_util.h"

namespace flotilla::controllers::override {
namespace {

namespace json = boost::json;

json::object deployment() {
  return json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment",
    "metadata":{"name":"web","labels":{"app":"web"}},
    "spec":{"replicas":2,"template":{"spec":{
      "initContainers":[{"name":"migrate","image":"registry.example.com/shop/migrate:1.0"}],
      "containers":[{"name":"web","image":"nginx:1.27","command":["nginx"],
                     "env":[{"name":"MODE","value":"fast"}]},
                    {"name":"sidecar","image":"localhost:5000/tools/proxy@sha256:abc"}]}}}})")
      .as_object();
}

// One rule, written as a ClusterOverridePolicy's only rule would be.
api::OverrideRule rule(const std::string& yaml) {
  std::string indented;
  for (size_t start = 0; start < yaml.size();) {
    const size_t end = yaml.find('\n', start);
    const std::string line = yaml.substr(start, end == std::string::npos ? end : end - start);
    if (!line.empty()) indented += "    " + line + "\n";
    if (end == std::string::npos) break;
    start = end + 1;
  }
  const auto policy = api::testing::fromYaml<api::ClusterOverridePolicy>(
      "metadata: {name: p}\nspec:\n  rules:\n  -\n" + indented);
  EXPECT_EQ(policy.spec.rules.size(), 1u) << yaml;
  return policy.spec.rules.empty() ? api::OverrideRule{} : policy.spec.rules[0];
}

std::string image(const json::object& d, const char* list, size_t i) {
  return std::string(d.at("spec").at("template").at("spec").at(list).at(i).at("image").as_string());
}

TEST(ImageRef, SplitAsTheRegistryReadsIt) {
  struct Case {
    const char* image;
    ImageRef want;
  };
  for (const auto& c : std::vector<Case>{
           {"nginx", {"", "nginx", "", ""}},
           {"nginx:1.27", {"", "nginx", "1.27", ""}},
           {"library/nginx:1.27", {"", "library/nginx", "1.27", ""}},
           {"registry.example.com/shop/web:2", {"registry.example.com", "shop/web", "2", ""}},
           {"localhost:5000/tools/proxy@sha256:abc",
            {"localhost:5000", "tools/proxy", "", "sha256:abc"}},
           {"localhost/proxy", {"localhost", "proxy", "", ""}},
           {"ghcr.io/a/b:v1@sha256:def", {"ghcr.io", "a/b", "v1", "sha256:def"}},
       }) {
    const auto got = ImageRef::parse(c.image);
    EXPECT_EQ(got.registry, c.want.registry) << c.image;
    EXPECT_EQ(got.repository, c.want.repository) << c.image;
    EXPECT_EQ(got.tag, c.want.tag) << c.image;
    EXPECT_EQ(got.digest, c.want.digest) << c.image;
    EXPECT_EQ(got.str(), c.image);
  }
}

TEST(ApplyRules, ImageComponentsOnContainersAndInitContainers) {
  struct Case {
    const char* name;
    const char* rule;
    std::vector<std::string> want;  // migrate, web, sidecar
  };
  for (const auto& c : std::vector<Case>{
           {"overwrite the registry everywhere",
            "overriders: {image: [{component: Registry, operator: overwrite, value: mirror.io}]}",
            {"mirror.io/shop/migrate:1.0", "mirror.io/nginx:1.27",
             "mirror.io/tools/proxy@sha256:abc"}},
           {"addIfAbsent keeps a registry that is there",
            "overriders: {image: [{component: Registry, operator: addIfAbsent, value: mirror.io}]}",
            {"registry.example.com/shop/migrate:1.0", "mirror.io/nginx:1.27",
             "localhost:5000/tools/proxy@sha256:abc"}},
           {"a tag on named containers only",
            "overriders: {image: [{containerNames: [web], component: Tag, operator: overwrite, "
            "value: '1.28'}]}",
            {"registry.example.com/shop/migrate:1.0", "nginx:1.28",
             "localhost:5000/tools/proxy@sha256:abc"}},
           {"delete a digest, add a tag where there is none",
            "overriders: {image: [{containerNames: [sidecar], component: Digest, operator: delete},"
            " {containerNames: [sidecar], component: Tag, operator: addIfAbsent, value: v2}]}",
            {"registry.example.com/shop/migrate:1.0", "nginx:1.27",
             "localhost:5000/tools/proxy:v2"}},
       }) {
    auto d = deployment();
    const auto r = rule(c.rule);
    const auto result = applyRules(d, {{"cop/images", 0, &r}});
    EXPECT_EQ(image(d, "initContainers", 0), c.want[0]) << c.name;
    EXPECT_EQ(image(d, "containers", 0), c.want[1]) << c.name;
    EXPECT_EQ(image(d, "containers", 1), c.want[2]) << c.name;
    EXPECT_EQ(result.applied, std::vector<std::string>{"cop/images"}) << c.name;
    EXPECT_TRUE(result.skipped.empty()) << c.name;
  }
}

TEST(ApplyRules, CommandArgsEnvLabelsAnnotations) {
  auto d = deployment();
  const auto r = rule(R"(
overriders:
  command: [{containerName: web, operator: append, value: [-g, daemon off;]}]
  args: [{containerName: web, operator: overwrite, value: [--verbose]}]
  env:
  - {containerName: web, operator: addIfAbsent, value: [{name: MODE, value: slow}, {name: REGION, value: us-east}]}
  - {containerName: web, operator: overwrite, value: [{name: TIER, value: gold}]}
  labels: [{operator: overwrite, value: {provider: gcp, app: shop}}]
  annotations: [{operator: addIfAbsent, value: {team: payments}}]
)");
  const auto result = applyRules(d, {{"op/shop/tune", 2, &r}});
  const auto& web = d.at("spec").at("template").at("spec").at("containers").at(0);
  EXPECT_EQ(json::serialize(web.at("command")), R"(["nginx","-g","daemon off;"])");
  EXPECT_EQ(json::serialize(web.at("args")), R"(["--verbose"])");
  // addIfAbsent left MODE as it was; REGION and TIER were added.
  EXPECT_EQ(
      json::serialize(web.at("env")),
      R"([{"name":"MODE","value":"fast"},{"name":"REGION","value":"us-east"},{"name":"TIER","value":"gold"}])");
  EXPECT_EQ(d.at("metadata").at("labels").at("app"), "shop");
  EXPECT_EQ(d.at("metadata").at("labels").at("provider"), "gcp");
  EXPECT_EQ(d.at("metadata").at("annotations").at("team"), "payments");
  EXPECT_EQ(result.applied, std::vector<std::string>{"op/shop/tune"});

  // delete: a listed value, a missing key (nothing to do), every arg.
  const auto del = rule(R"(
overriders:
  command: [{containerName: web, operator: delete, value: [-g]}]
  args: [{containerName: web, operator: delete}]
  env: [{containerName: web, operator: delete, value: [{name: MODE}, {name: NOT_THERE}]}]
  labels: [{operator: delete, value: {provider: "", missing: ""}}]
)");
  applyRules(d, {{"op/shop/tune", 3, &del}});
  const auto& after = d.at("spec").at("template").at("spec").at("containers").at(0).as_object();
  EXPECT_EQ(json::serialize(after.at("command")), R"(["nginx","daemon off;"])");
  EXPECT_FALSE(after.contains("args"));
  EXPECT_EQ(after.at("env").as_array().size(), 2u);
  EXPECT_FALSE(d.at("metadata").at("labels").as_object().contains("provider"));
}

TEST(ApplyRules, AContainerOverriderOnAKindWithoutPodsIsSkippedAndSaid) {
  auto cm = json::parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings"},
                             "data":{"k":"v"}})")
                .as_object();
  const auto r = rule(R"(
overriders:
  image: [{component: Registry, operator: overwrite, value: mirror.io}]
  labels: [{operator: overwrite, value: {provider: gcp}}]
)");
  const auto result = applyRules(cm, {{"cop/everything", 0, &r}});
  EXPECT_EQ(cm.at("metadata").at("labels").at("provider"), "gcp");
  EXPECT_EQ(result.skipped, std::vector<std::string>{
                                "cop/everything rule 0: image: ConfigMap has no pod template"});
  EXPECT_EQ(result.applied, std::vector<std::string>{"cop/everything"});
  // A container name no container has.
  auto d = deployment();
  const auto missing =
      rule("overriders: {command: [{containerName: nope, operator: append, value: [x]}]}");
  const auto skipped = applyRules(d, {{"op/shop/x", 1, &missing}});
  EXPECT_EQ(skipped.skipped,
            std::vector<std::string>{"op/shop/x rule 1: command: no container named \"nope\""});
  EXPECT_TRUE(skipped.applied.empty());
}

TEST(ApplyRules, ABrokenJsonPatchIsAnErrorNamingPolicyRuleAndPath) {
  auto d = deployment();
  const auto good =
      rule("overriders: {jsonPatch: [{op: replace, path: /spec/replicas, value: 3}]}");
  const auto broken =
      rule("overriders: {jsonPatch: [{op: replace, path: /spec/nothing/here, value: 1}]}");
  const auto result = applyRules(d, {{"cop/a", 0, &good}, {"op/shop/b", 4, &broken}});
  ASSERT_TRUE(result.error);
  EXPECT_NE(result.error->find("op/shop/b rule 4: jsonPatch replace /spec/nothing/here"),
            std::string::npos)
      << *result.error;
  EXPECT_EQ(d.at("spec").at("replicas"), 3);
}

}  // namespace
}  // namespace flotilla::controllers::override
