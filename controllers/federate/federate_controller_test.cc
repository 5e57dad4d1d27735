// The federate reconcilers' read → decide → write loops against an API server
// (controllers/testing/reconciler_env.h): a Deployment and a ConfigMap that a policy selects
// become federated objects, edits follow, a second pass writes nothing, a 409 is retried and a
// write lost mid-way converges.
#include "controllers/federate/federate_controller.h"

#include <gtest/gtest.h>

#include "controllers/common/typed.h"
#include "controllers/federate/object_controller.h"
#include "controllers/federate/source_informers.h"
#include "controllers/testing/reconciler_env.h"
#include "kube/net/test_server.h"

namespace flotilla::controllers::federate {
namespace {

namespace json = boost::json;
namespace res = resources;
using net::testing::eventually;

const kube::ResourceId kConfigMaps{"", "v1", "configmaps", true, "ConfigMap"};

constexpr const char* kPolicy = R"({"apiVersion": "flotilla.io/v1alpha1",
  "kind": "PropagationPolicy", "metadata": {"name": "app"},
  "spec": {"resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment",
                                  "labelSelector": {"matchLabels": {"app": "web"}}},
                                 {"apiVersion": "v1", "kind": "ConfigMap", "name": "settings"}]}})";

constexpr const char* kDeployment = R"({"apiVersion": "apps/v1", "kind": "Deployment",
  "metadata": {"name": "web", "labels": {"app": "web"}},
  "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
    "template": {"metadata": {"labels": {"app": "web"}},
      "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]}}}})";

constexpr const char* kConfigMap = R"({"apiVersion": "v1", "kind": "ConfigMap",
  "metadata": {"name": "settings"}, "data": {"LOG_LEVEL": "info"}})";

std::string imageOf(const json::object& fd) {
  return std::string(fd.at("spec")
                         .at("template")
                         .at("spec")
                         .at("template")
                         .at("spec")
                         .at("containers")
                         .at(0)
                         .at("image")
                         .as_string());
}

class FederateReconcilerTest : public testing::ReconcilerTest {
 protected:
  void SetUp() override {
    ReconcilerTest::SetUp();
    deployments = &informer(res::kDeployments);
    fds = &informer(res::kFederatedDeployments);
    pps = &informer(res::kPropagationPolicies);
    cpps = &informer(res::kClusterPropagationPolicies);
    create(res::kPropagationPolicies, kPolicy);
    caughtUp(*pps, "app");
  }
  std::unique_ptr<FederateController> controller(kube::RestClient& with) {
    return std::make_unique<FederateController>(with, io.io().get_executor(),
                                                Informers{*deployments, *fds, *pps, *cpps}, events);
  }
  std::string key() { return ns + "/web"; }
  const kube::SharedInformer *deployments, *fds, *pps, *cpps;
};

TEST_F(FederateReconcilerTest, ASelectedDeploymentBecomesAFederatedDeploymentThatFollowsIt) {
  create(res::kDeployments, kDeployment);
  caughtUp(*deployments, "web");
  ASSERT_TRUE(controller(*client)->reconcile(key()));
  auto fd = get(res::kFederatedDeployments, "web");
  ASSERT_FALSE(fd.empty()) << "no FederatedDeployment";
  EXPECT_EQ(fd.at("spec").at("template").at("spec").at("replicas"), 3);
  EXPECT_EQ(imageOf(fd), "nginx:1.27");
  EXPECT_EQ(events.count("Federated"), 1);

  caughtUp(*fds, "web");
  auto before = hostWrites();
  ASSERT_TRUE(controller(*client)->reconcile(key()));
  EXPECT_EQ(hostWrites(), before) << "an unchanged Deployment was federated again";

  // An edit reaches the FederatedDeployment; a 409 on the way is a requeue that changes nothing.
  auto deployment = get(res::kDeployments, "web");
  deployment["spec"]
      .as_object()["template"]
      .as_object()["spec"]
      .as_object()["containers"]
      .as_array()[0]
      .as_object()["image"] = "nginx:1.28";
  ASSERT_TRUE(io.run(client->update(res::kDeployments, deployment)));
  caughtUp(*deployments, "web");
  auto conflicted = controller(conflictClient())->reconcile(key());
  ASSERT_TRUE(conflicted) << conflicted.error();
  EXPECT_TRUE(conflicted->requeue || conflicted->requeueAfter.count() > 0);
  EXPECT_EQ(imageOf(get(res::kFederatedDeployments, "web")), "nginx:1.27");
  ASSERT_TRUE(controller(*client)->reconcile(key()));
  EXPECT_EQ(imageOf(get(res::kFederatedDeployments, "web")), "nginx:1.28");
}

TEST_F(FederateReconcilerTest, ACreateLostMidWayConvergesOnOneFederatedDeployment) {
  create(res::kDeployments, kDeployment);
  caughtUp(*deployments, "web");
  EXPECT_FALSE(controller(droppingClient())->reconcile(key()));
  const auto uid = get(res::kFederatedDeployments, "web").at("metadata").at("uid");
  caughtUp(*fds, "web");
  const auto before = hostWrites();
  ASSERT_TRUE(controller(*client)->reconcile(key()));
  EXPECT_EQ(hostWrites(), before) << "the committed create was written again";
  EXPECT_EQ(get(res::kFederatedDeployments, "web").at("metadata").at("uid"), uid);
}

TEST_F(FederateReconcilerTest, ADeploymentNoPolicySelectsIsUnfederated) {
  create(res::kDeployments, kDeployment);
  caughtUp(*deployments, "web");
  ASSERT_TRUE(controller(*client)->reconcile(key()));
  caughtUp(*fds, "web");
  auto deployment = get(res::kDeployments, "web");
  deployment["metadata"].as_object()["labels"].as_object()["app"] = "other";
  ASSERT_TRUE(io.run(client->update(res::kDeployments, deployment)));
  caughtUp(*deployments, "web");
  ASSERT_TRUE(controller(*client)->reconcile(key()));
  // Deleted; its cleanup finalizer is the sync controller's (members first).
  auto fd = get(res::kFederatedDeployments, "web");
  EXPECT_TRUE(fd.empty() || fd.at("metadata").as_object().contains("deletionTimestamp"))
      << json::serialize(fd);
  EXPECT_EQ(events.count("Unfederated"), 1);
}

class FederateObjectReconcilerTest : public testing::ReconcilerTest {
 protected:
  void SetUp() override {
    ReconcilerTest::SetUp();
    fos = &informer(res::kFederatedObjects);
    cfos = &informer(res::kClusterFederatedObjects);
    pps = &informer(res::kPropagationPolicies);
    cpps = &informer(res::kClusterPropagationPolicies);
    sources = std::make_unique<SourceInformers>(*client, io.io().get_executor(),
                                                [](const std::string&) {});
  }
  void TearDown() override {
    sources->stopAll();
    sources.reset();
    ReconcilerTest::TearDown();
  }
  std::unique_ptr<FederateObjectController> controller(kube::RestClient& with) {
    return std::make_unique<FederateObjectController>(
        with, io.io().get_executor(), ObjectInformers{*fos, *cfos, *pps, *cpps}, *sources, events);
  }
  const kube::SharedInformer& configMaps() {
    auto informer = sources->get({"v1", "ConfigMap"}, ns);
    EXPECT_TRUE(informer);
    return *informer;
  }
  std::string key() { return "ConfigMap/v1:" + ns + "/settings"; }
  const kube::SharedInformer *fos, *cfos, *pps, *cpps;
  std::unique_ptr<SourceInformers> sources;
};

TEST_F(FederateObjectReconcilerTest, KindsAreWatchedWhilePoliciesNameThem) {
  // A kind no other test names: the informers follow this test's policies alone.
  const KindKey roles{"rbac.authorization.k8s.io/v1", "Role"};
  using Namespaces = std::set<std::string>;
  ASSERT_TRUE(controller(*client)->reconcile(kKindsKey));
  EXPECT_EQ(sources->watchedIn(roles), Namespaces{}) << "a kind no policy names is watched";
  create(res::kPropagationPolicies, R"({"apiVersion": "flotilla.io/v1alpha1",
    "kind": "PropagationPolicy", "metadata": {"name": "roles"},
    "spec": {"resourceSelectors": [{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role"},
                                   {"apiVersion": "apps/v1", "kind": "Deployment"}]}})");
  caughtUp(*pps, "roles");
  ASSERT_TRUE(controller(*client)->reconcile(kKindsKey));
  // Only PropagationPolicies name it: watched in their namespace, not across the host.
  EXPECT_EQ(sources->watchedIn(roles), Namespaces{ns});
  ASSERT_TRUE(eventually([&] { return sources->synced(); }));
  const kube::ResourceId kRoles{"rbac.authorization.k8s.io", "v1", "roles", true, "Role"};
  const char* role = R"({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
    "metadata": {"name": "reader"}, "rules": []})";
  create(kRoles, role);
  ASSERT_TRUE(io.run(client->create(kRoles, "default", testing::parseObject(role))));
  ASSERT_TRUE(eventually([&] {
    auto mine = sources->get(roles, ns);
    return mine && mine->store().get(ns + "/reader") != nullptr;
  }));
  EXPECT_FALSE(sources->get(roles, "default")) << "another namespace's Roles are cached";
  // A ClusterPropagationPolicy naming it: one informer for the whole host.
  create(res::kClusterPropagationPolicies, R"({"apiVersion": "flotilla.io/v1alpha1",
    "kind": "ClusterPropagationPolicy", "metadata": {"name": "roles-everywhere"},
    "spec": {"resourceSelectors": [{"apiVersion": "rbac.authorization.k8s.io/v1",
                                    "kind": "Role"}]}})");
  caughtUp(*cpps, "roles-everywhere");
  ASSERT_TRUE(controller(*client)->reconcile(kKindsKey));
  EXPECT_EQ(sources->watchedIn(roles), Namespaces{""});
  ASSERT_TRUE(eventually([&] {
    auto all = sources->get(roles, "default");
    return all && all->store().get("default/reader") != nullptr &&
           all->store().get(ns + "/reader") != nullptr;
  }));
  ASSERT_TRUE(io.run(client->remove(res::kClusterPropagationPolicies, "", "roles-everywhere")));
  ASSERT_TRUE(io.run(client->remove(kRoles, "default", "reader")));
  caughtUp(*cpps, "roles-everywhere");
  ASSERT_TRUE(controller(*client)->reconcile(kKindsKey));
  EXPECT_EQ(sources->watchedIn(roles), Namespaces{ns});
  // A cluster-scoped kind only a PropagationPolicy names: it could never select one, so the host's
  // ClusterRoles are not cached.
  create(res::kPropagationPolicies, R"({"apiVersion": "flotilla.io/v1alpha1",
    "kind": "PropagationPolicy", "metadata": {"name": "cluster-roles"},
    "spec": {"resourceSelectors": [{"apiVersion": "rbac.authorization.k8s.io/v1",
                                    "kind": "ClusterRole"}]}})");
  caughtUp(*pps, "cluster-roles");
  ASSERT_TRUE(controller(*client)->reconcile(kKindsKey));
  EXPECT_EQ(sources->watchedIn({"rbac.authorization.k8s.io/v1", "ClusterRole"}), Namespaces{});
  ASSERT_TRUE(io.run(client->remove(res::kPropagationPolicies, ns, "cluster-roles")));
  caughtUp(*pps, "cluster-roles");
  // Deployments have their own pipeline: a policy naming them starts no object informer.
  EXPECT_EQ(sources->watchedIn({"apps/v1", "Deployment"}), Namespaces{});
  ASSERT_TRUE(io.run(client->remove(res::kPropagationPolicies, ns, "roles")));
  caughtUp(*pps, "roles");
  ASSERT_TRUE(controller(*client)->reconcile(kKindsKey));
  EXPECT_EQ(sources->watchedIn(roles), Namespaces{})
      << "a kind no policy names any more is still watched";
}

TEST_F(FederateObjectReconcilerTest, ASelectedConfigMapBecomesAFederatedObject) {
  create(res::kPropagationPolicies, kPolicy);
  caughtUp(*pps, "app");
  ASSERT_TRUE(controller(*client)->reconcile(kKindsKey));
  ASSERT_TRUE(eventually([&] { return sources->synced(); }));
  create(kConfigMaps, kConfigMap);
  caughtUp(configMaps(), "settings");
  ASSERT_TRUE(controller(*client)->reconcile(key()));
  auto fo = get(res::kFederatedObjects, "settings-configmap");
  ASSERT_FALSE(fo.empty()) << "no FederatedObject";
  const auto& t = fo.at("spec").at("template");
  EXPECT_EQ(t.at("kind"), "ConfigMap");
  EXPECT_EQ(t.at("data").at("LOG_LEVEL"), "info");
  EXPECT_FALSE(t.at("metadata").as_object().contains("resourceVersion"))
      << "the template carries the source's server fields";

  caughtUp(*fos, "settings-configmap");
  auto before = hostWrites();
  ASSERT_TRUE(controller(*client)->reconcile(key()));
  EXPECT_EQ(hostWrites(), before);

  // An edit that meets a 409 is retried, then written.
  auto cm = get(kConfigMaps, "settings");
  cm["data"].as_object()["LOG_LEVEL"] = "debug";
  ASSERT_TRUE(io.run(client->update(kConfigMaps, cm)));
  caughtUp(configMaps(), "settings");
  auto conflicted = controller(conflictClient())->reconcile(key());
  ASSERT_TRUE(conflicted) << conflicted.error();
  EXPECT_TRUE(conflicted->requeue || conflicted->requeueAfter.count() > 0);
  EXPECT_EQ(get(res::kFederatedObjects, "settings-configmap")
                .at("spec")
                .at("template")
                .at("data")
                .at("LOG_LEVEL"),
            "info");
  ASSERT_TRUE(controller(*client)->reconcile(key()));
  EXPECT_EQ(get(res::kFederatedObjects, "settings-configmap")
                .at("spec")
                .at("template")
                .at("data")
                .at("LOG_LEVEL"),
            "debug");
}

// From a cache of the policy's namespace to one of the whole host (a ClusterPropagationPolicy
// names the kind too): a source reconciled while the new cache lists is left alone, and its
// federated object is neither removed nor rewritten.
TEST_F(FederateObjectReconcilerTest, AFederatedObjectSurvivesTheSwitchToAHostWideCache) {
  create(res::kPropagationPolicies, kPolicy);
  caughtUp(*pps, "app");
  ASSERT_TRUE(controller(*client)->reconcile(kKindsKey));
  ASSERT_TRUE(eventually([&] { return sources->synced(); }));
  EXPECT_EQ(sources->watchedIn({"v1", "ConfigMap"}), std::set<std::string>{ns});
  create(kConfigMaps, kConfigMap);
  caughtUp(configMaps(), "settings");
  ASSERT_TRUE(controller(*client)->reconcile(key()));
  const auto fo = get(res::kFederatedObjects, "settings-configmap");
  ASSERT_FALSE(fo.empty());
  caughtUp(*fos, "settings-configmap");

  create(res::kClusterPropagationPolicies, R"({"apiVersion": "flotilla.io/v1alpha1",
    "kind": "ClusterPropagationPolicy", "metadata": {"name": "all-settings"},
    "spec": {"resourceSelectors": [{"apiVersion": "v1", "kind": "ConfigMap",
                                    "name": "nothing-of-this-test"}]}})");
  caughtUp(*cpps, "all-settings");
  const auto before = hostWrites();
  ASSERT_TRUE(controller(*client)->reconcile(kKindsKey));
  EXPECT_EQ(sources->watchedIn({"v1", "ConfigMap"}), std::set<std::string>{""});
  ASSERT_TRUE(controller(*client)->reconcile(key())) << "(the new cache may still be listing)";
  ASSERT_TRUE(eventually([&] { return sources->synced(); }));
  ASSERT_TRUE(controller(*client)->reconcile(key()));
  EXPECT_EQ(hostWrites(), before) << "the switch rewrote or removed the federated object";
  EXPECT_EQ(get(res::kFederatedObjects, "settings-configmap").at("metadata").at("uid"),
            fo.at("metadata").at("uid"));
  ASSERT_TRUE(io.run(client->remove(res::kClusterPropagationPolicies, "", "all-settings")));
}

TEST_F(FederateObjectReconcilerTest, ACreateLostMidWayConvergesOnOneFederatedObject) {
  create(res::kPropagationPolicies, kPolicy);
  caughtUp(*pps, "app");
  ASSERT_TRUE(controller(*client)->reconcile(kKindsKey));
  ASSERT_TRUE(eventually([&] { return sources->synced(); }));
  create(kConfigMaps, kConfigMap);
  caughtUp(configMaps(), "settings");
  EXPECT_FALSE(controller(droppingClient())->reconcile(key()));
  const auto committed = get(res::kFederatedObjects, "settings-configmap");
  ASSERT_FALSE(committed.empty());
  caughtUp(*fos, "settings-configmap");
  const auto before = hostWrites();
  ASSERT_TRUE(controller(*client)->reconcile(key()));
  EXPECT_EQ(hostWrites(), before);
  EXPECT_EQ(get(res::kFederatedObjects, "settings-configmap").at("metadata").at("uid"),
            committed.at("metadata").at("uid"));
}

}  // namespace
}  // namespace flotilla::controllers::federate
