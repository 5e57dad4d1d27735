// The sync's read → decide → write loop with OverridePolicies (docs/design.md §14), against a
// host and a member API server: the rules for a cluster reach its copy and are recorded on it
// and in the federated object's status; an overrider that does not apply to the kind is skipped
// and said; a second pass writes nothing; a policy gone reverts its changes; a jsonPatch that
// cannot apply fails that cluster, naming the policy, rule and path.
#include <gtest/gtest.h>

#include "api/test_util.h"
#include "api/unstructured.h"
#include "controllers/common/typed.h"
#include "controllers/sync/sync_controller.h"
#include "controllers/testing/member_fixture.h"

namespace flotilla::controllers::sync {
namespace {

namespace json = boost::json;
namespace res = resources;
namespace u = api::unstructured;
using testing::kMember;

const kube::ResourceId kConfigMaps{"", "v1", "configmaps", true, "ConfigMap"};

// The policies the sync reads: a test sets them (the operator's come from the host's caches).
class FixedOverrides final : public override::OverridePolicies {
 public:
  override::PolicySet forNamespace(const std::string&) const override { return set; }
  override::PolicySet set;
};

class OverrideSyncTest : public testing::MemberReconcilerTest {
 protected:
  std::unique_ptr<SyncController> controller() {
    return std::make_unique<SyncController>(
        *client, io.io().get_executor(), Informers{*fds, *rbs, *clusters, fos, cfos, crbs},
        *members, events, SyncControllerOptions{.hostId = "test-host", .overrides = &policies});
  }
  void clusterPolicy(const std::string& yaml) {
    policies.set.clusterPolicies.push_back(std::make_shared<const api::ClusterOverridePolicy>(
        api::testing::fromYaml<api::ClusterOverridePolicy>(yaml)));
  }
  void namespacedPolicy(std::string yaml) {
    auto p = api::testing::fromYaml<api::OverridePolicy>(yaml);
    p.metadata.namespace_ = ns;
    policies.set.policies.push_back(std::make_shared<const api::OverridePolicy>(std::move(p)));
  }
  json::object federatedConfigMap() {
    auto fo = testing::parseObject(R"({"apiVersion": "flotilla.io/v1alpha1",
      "kind": "FederatedObject", "metadata": {"name": "settings-configmap",
                                              "labels": {"app": "web"},
                                              "finalizers": ["flotilla.io/cleanup"]},
      "spec": {"template": {"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "settings", "labels": {"app": "web"}},
        "data": {"LOG_LEVEL": "info"}}}})");
    fo["spec"].as_object()["template"].as_object()["metadata"].as_object()["namespace"] = ns;
    fo = create(*client, res::kFederatedObjects, fo);
    caughtUp(*fos, "settings-configmap");
    bind(fo, 0, {kMember});
    return fo;
  }
  json::object federatedDeployment() {
    auto fd = create(res::kFederatedDeployments, R"({"apiVersion": "flotilla.io/v1alpha1",
    "kind": "FederatedDeployment", "metadata": {"name": "web",
                                                "finalizers": ["flotilla.io/cleanup"]},
    "spec": {"template": {"metadata": {"labels": {"app": "web"}},
      "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
        "template": {"metadata": {"labels": {"app": "web"}},
          "spec": {"initContainers": [{"name": "setup", "image": "busybox:1.36"}],
                   "containers": [{"name": "web", "image": "nginx:1.27"}]}}}}}})");
    caughtUp(*fds, "web");
    bind(fd, 2, {kMember});
    return fd;
  }
  // The federated object's status entry for member1.
  json::object clusterStatus(const kube::ResourceId& resource, const std::string& name) {
    const auto fo = get(resource, name);
    for (const auto& c : fo.at("status").at("clusters").as_array())
      if (c.at("name") == kMember) return c.as_object();
    return {};
  }
  std::string annotation(const json::object& o, const char* name) {
    return u::stringAt(o, {"metadata", "annotations", name});
  }
  FixedOverrides policies;
};

// One policy selects the app's Deployment and its ConfigMap (Karmada #6103): on the ConfigMap
// the labels overrider applies and the image overrider is skipped, and both are said.
TEST_F(OverrideSyncTest, APolicyOverAConfigMapAppliesItsLabelsAndSaysWhatItSkipped) {
  clusterPolicy(R"(
metadata: {name: app-labels}
spec:
  resourceSelectors:
  - {apiVersion: v1, kind: ConfigMap, labelSelector: {matchLabels: {app: web}}}
  - {apiVersion: apps/v1, kind: Deployment, labelSelector: {matchLabels: {app: web}}}
  rules:
  - targetCluster: {clusterNames: [member1]}
    overriders:
      image: [{component: Registry, operator: overwrite, value: mirror.example.com}]
      labels: [{operator: overwrite, value: {tier: frontend}}]
  - targetCluster: {clusterNames: [member9]}
    overriders: {labels: [{operator: overwrite, value: {elsewhere: "true"}}]}
)");
  federatedConfigMap();
  auto result = controller()->reconcile(key("settings-configmap"));
  ASSERT_TRUE(result) << result.error();
  const auto copy = memberObject(kConfigMaps, "settings");
  ASSERT_FALSE(copy.empty());
  EXPECT_EQ(u::stringAt(copy, {"metadata", "labels", "tier"}), "frontend");
  EXPECT_EQ(u::find(copy, {"metadata", "labels", "elsewhere"}), nullptr)
      << "a rule for another cluster applied";
  EXPECT_EQ(annotation(copy, override::kAppliedOverridesAnnotation), "cop/app-labels");
  const auto entry = clusterStatus(res::kFederatedObjects, "settings-configmap");
  EXPECT_EQ(json::serialize(entry.at("appliedOverrides")), R"(["cop/app-labels"])");
  EXPECT_EQ(json::serialize(entry.at("skippedOverrides")),
            R"(["cop/app-labels rule 0: image: ConfigMap has no pod template"])");
  EXPECT_EQ(entry.at("propagation"), "OK");

  // Converged: nothing is written again.
  caughtUp(*fos, "settings-configmap");
  caughtUp(*rbs, "settings-configmap");
  const auto host = hostWrites(), member = writes(memberClient());
  ASSERT_TRUE(controller()->reconcile(key("settings-configmap")));
  EXPECT_EQ(hostWrites(), host);
  EXPECT_EQ(writes(memberClient()), member);

  // The policy deleted: its label and the record go from the member (server-side apply drops
  // what Flotilla no longer sends), and so does the status entry's list.
  policies.set = {};
  ASSERT_TRUE(controller()->reconcile(key("settings-configmap")));
  const auto reverted = memberObject(kConfigMaps, "settings");
  EXPECT_EQ(u::find(reverted, {"metadata", "labels", "tier"}), nullptr)
      << json::serialize(reverted);
  EXPECT_EQ(annotation(reverted, override::kAppliedOverridesAnnotation), "");
  EXPECT_EQ(u::stringAt(reverted, {"metadata", "labels", "app"}), "web");
  caughtUp(*fos, "settings-configmap");
  EXPECT_FALSE(
      clusterStatus(res::kFederatedObjects, "settings-configmap").contains("appliedOverrides"));
}

// A ClusterOverridePolicy sets the registry, the namespace's OverridePolicy the tag; both reach
// containers and initContainers, the namespaced one applied last (it wins the tag).
TEST_F(OverrideSyncTest, ADeploymentGetsItsImagesFromBothPoliciesInOrder) {
  clusterPolicy(R"(
metadata: {name: registry}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]
  rules:
  - overriders:
      image:
      - {component: Registry, operator: overwrite, value: mirror.example.com}
      - {component: Tag, operator: overwrite, value: from-cop}
)");
  namespacedPolicy(R"(
metadata: {name: pin}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]
  rules:
  - targetCluster: {clusterNames: [member1]}
    overriders: {image: [{component: Tag, operator: overwrite, value: "1.0"}]}
)");
  federatedDeployment();
  auto result = controller()->reconcile(key("web"));
  ASSERT_TRUE(result) << result.error();
  const auto copy = memberObject(res::kDeployments, "web");
  ASSERT_FALSE(copy.empty());
  const auto& pod = copy.at("spec").at("template").at("spec");
  EXPECT_EQ(pod.at("containers").at(0).at("image"), "mirror.example.com/nginx:1.0");
  EXPECT_EQ(pod.at("initContainers").at(0).at("image"), "mirror.example.com/busybox:1.0");
  EXPECT_EQ(annotation(copy, override::kAppliedOverridesAnnotation),
            "cop/registry,op/" + ns + "/pin");
  EXPECT_EQ(copy.at("spec").at("replicas"), 2);
}

// A jsonPatch that cannot apply on this cluster: the copy is not written, and the cluster's
// entry says UpdateFailed with the policy, rule and path; fixing the policy applies it.
TEST_F(OverrideSyncTest, ABrokenJsonPatchFailsTheClusterNamingPolicyRuleAndPath) {
  namespacedPolicy(R"(
metadata: {name: broken}
spec:
  resourceSelectors: [{apiVersion: v1, kind: ConfigMap}]
  rules:
  - overriders: {labels: [{operator: overwrite, value: {ok: "yes"}}]}
  - overriders: {jsonPatch: [{op: replace, path: /data/MISSING, value: x}]}
)");
  federatedConfigMap();
  ASSERT_TRUE(controller()->reconcile(key("settings-configmap")));
  EXPECT_TRUE(memberObject(kConfigMaps, "settings").empty()) << "a broken override was sent";
  const auto entry = clusterStatus(res::kFederatedObjects, "settings-configmap");
  EXPECT_EQ(entry.at("propagation"), "UpdateFailed");
  const std::string message(entry.at("message").as_string());
  EXPECT_NE(message.find("op/" + ns + "/broken rule 1: jsonPatch replace /data/MISSING"),
            std::string::npos)
      << message;

  auto fixed = api::testing::fromYaml<api::OverridePolicy>(R"(
metadata: {name: broken}
spec:
  resourceSelectors: [{apiVersion: v1, kind: ConfigMap}]
  rules:
  - overriders: {jsonPatch: [{op: add, path: /data/MISSING, value: x}]}
)");
  fixed.metadata.namespace_ = ns;
  policies.set.policies = {std::make_shared<const api::OverridePolicy>(std::move(fixed))};
  ASSERT_TRUE(controller()->reconcile(key("settings-configmap")));
  const auto copy = memberObject(kConfigMaps, "settings");
  ASSERT_FALSE(copy.empty());
  EXPECT_EQ(u::stringAt(copy, {"data", "MISSING"}), "x");
}

}  // namespace
}  // namespace flotilla::controllers::sync
