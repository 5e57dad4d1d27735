#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <sstream>

#include "cli/commands.h"

namespace flotilla::cli {
namespace {

namespace json = boost::json;

const std::string kRoot = FLOTILLA_SOURCE_DIR;
const std::string kFleet = kRoot + "/config/samples/offline/fleet-status.yaml";  // member3: us-east
const std::string kClusterPolicy = kRoot + "/config/samples/clusteroverridepolicy.yaml";
const std::string kPolicy = kRoot + "/config/samples/overridepolicy.yaml";  // shop/web, member1

const char* kWeb = R"(
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop, labels: {app: web}}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      initContainers: [{name: setup, image: busybox:1.36}]
      containers: [{name: web, image: nginx:1.27, args: [--port=80]}]
)";

struct Output {
  int code;
  std::string out;
  std::string err;
};

Output explain(std::vector<std::string> args, const std::string& stdinText = "") {
  std::istringstream in(stdinText);
  std::ostringstream out, err;
  int code = runExplain(args, in, out, err);
  return {code, out.str(), err.str()};
}

TEST(ExplainOverridesTest, EachClusterGetsItsRulesInOrderAndTheResultingChanges) {
  auto o = explain({"overrides", "-f", kFleet, "-f", kClusterPolicy, "-f", kPolicy, "-f", "-",
                    "-o", "json"},
                   kWeb);
  ASSERT_EQ(o.code, 0) << o.err;
  const auto report = json::parse(o.out);
  EXPECT_EQ(report.at("object"), "Deployment shop/web (apps/v1)");
  EXPECT_EQ(report.at("policies"), json::parse(R"(["cop/us-east-images", "op/shop/web-member1"])"));
  const auto& clusters = report.at("clusters").as_array();
  ASSERT_EQ(clusters.size(), 3u);
  // member1: the OverridePolicy's rule (eu-west: not the mirror).
  const auto& m1 = clusters[0].as_object();
  EXPECT_EQ(m1.at("cluster"), "member1");
  EXPECT_EQ(m1.at("operations").at(0),
            R"(op/shop/web-member1 rule 0: image Tag overwrite "1.28" (containers web))");
  const auto changes = json::serialize(m1.at("changes"));
  EXPECT_NE(changes.find(R"(~ spec.template.spec.containers[0].image: \"nginx:1.27\" -> \"nginx:1.28\")"),
            std::string::npos)
      << changes;
  EXPECT_NE(changes.find("+ spec.template.spec.priorityClassName"), std::string::npos) << changes;
  // (containerNames [web]: the init container keeps its tag.)
  EXPECT_EQ(changes.find("initContainers"), std::string::npos) << changes;
  // member2: nothing targets it.
  EXPECT_TRUE(clusters[1].at("operations").as_array().empty());
  EXPECT_TRUE(clusters[1].at("changes").as_array().empty());
  // member3 (us-east): the mirror on both containers, and the annotation.
  const auto m3 = json::serialize(clusters[2].at("changes"));
  EXPECT_NE(m3.find(R"(\"mirror.us-east.example.com/nginx:1.27\")"), std::string::npos) << m3;
  EXPECT_NE(m3.find(R"(\"mirror.us-east.example.com/busybox:1.36\")"), std::string::npos) << m3;
  EXPECT_NE(m3.find("+ metadata.annotations"), std::string::npos) << m3;
}

TEST(ExplainOverridesTest, TableOneClusterSkippedOverridersAndABrokenPatch) {
  const char* configMapAndPolicy = R"(
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: shop, labels: {app: web}}
data: {LOG_LEVEL: info}
---
apiVersion: flotilla.io/v1alpha1
kind: OverridePolicy
metadata: {name: everything, namespace: shop}
spec:
  resourceSelectors: [{apiVersion: v1, kind: ConfigMap}]
  rules:
  - overriders:
      image: [{component: Registry, operator: overwrite, value: mirror.io}]
      labels: [{operator: overwrite, value: {tier: config}}]
  - targetCluster: {clusterNames: [member3]}
    overriders: {jsonPatch: [{op: replace, path: /data/MISSING, value: x}]}
)";
  auto o = explain({"overrides", "-f", kFleet, "-f", "-", "--cluster", "member1"},
                   configMapAndPolicy);
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("Cluster member1:"), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("Cluster member2:"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("skipped: op/shop/everything rule 0: image: ConfigMap has no pod template"),
            std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find(R"(+ metadata.labels.tier: "config")"), std::string::npos) << o.out;

  auto broken = explain({"overrides", "-f", kFleet, "-f", "-", "--cluster", "member3"},
                        configMapAndPolicy);
  EXPECT_EQ(broken.code, 3) << broken.out;
  EXPECT_NE(broken.out.find("error: op/shop/everything rule 1: jsonPatch replace /data/MISSING"),
            std::string::npos)
      << broken.out;
}

TEST(ExplainOverridesTest, UsageAndInputErrors) {
  EXPECT_EQ(explain({}).code, 2);
  EXPECT_EQ(explain({"policies"}).code, 2);
  EXPECT_EQ(explain({"overrides"}).code, 2);
  EXPECT_EQ(explain({"overrides", "--help"}).code, 0);
  auto none = explain({"overrides", "-f", kFleet});
  EXPECT_EQ(none.code, 1);
  EXPECT_NE(none.err.find("no object given"), std::string::npos) << none.err;
  auto invalid = explain({"overrides", "-f", kFleet, "-f", "-"}, R"(
apiVersion: flotilla.io/v1alpha1
kind: OverridePolicy
metadata: {name: bad, namespace: shop}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]
  rules: [{overriders: {jsonPatch: [{op: replace, path: /kind, value: Pod}]}}]
)");
  EXPECT_EQ(invalid.code, 1);
  EXPECT_NE(invalid.err.find("jsonPatch[0].path"), std::string::npos) << invalid.err;
  auto unknown = explain({"overrides", "-f", kFleet, "-f", "-", "--cluster", "nope"}, kWeb);
  EXPECT_EQ(unknown.code, 1);
}

}  // namespace
}  // namespace flotilla::cli
