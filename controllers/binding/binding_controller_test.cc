// The binding reconciler's read → decide → write loop against an API server
// (controllers/testing/reconciler_env.h): what it creates, that a second pass writes nothing, and
// that a 409 or a write lost mid-way converges on the next pass.
#include "controllers/binding/binding_controller.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <map>

#include "controllers/common/typed.h"
#include "controllers/testing/reconciler_env.h"

namespace flotilla::controllers::binding {
namespace {

namespace json = boost::json;
namespace res = resources;

constexpr const char* kPolicy = R"({"apiVersion": "flotilla.io/v1alpha1",
  "kind": "PropagationPolicy", "metadata": {"name": "web-spread"},
  "spec": {"resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment"},
                                 {"apiVersion": "v1", "kind": "ConfigMap"}],
           "priority": 10,
           "placement": {"replicaScheduling": {"type": "Divided", "division": "Weighted"}}}})";

constexpr const char* kFederatedDeployment = R"({"apiVersion": "flotilla.io/v1alpha1",
  "kind": "FederatedDeployment", "metadata": {"name": "web"},
  "spec": {"template": {"metadata": {"labels": {"app": "web"}},
    "spec": {"replicas": 6, "selector": {"matchLabels": {"app": "web"}},
      "template": {"metadata": {"labels": {"app": "web"}},
        "spec": {"containers": [{"name": "web", "image": "nginx:1.27",
          "resources": {"requests": {"cpu": "250m", "memory": "128Mi"}}}]}}}}}})";

class BindingReconcilerTest : public testing::ReconcilerTest {
 protected:
  void SetUp() override {
    ReconcilerTest::SetUp();
    fds = &informer(res::kFederatedDeployments);
    fos = &informer(res::kFederatedObjects);
    rbs = &informer(res::kResourceBindings);
    pps = &informer(res::kPropagationPolicies);
    cpps = &informer(res::kClusterPropagationPolicies);
  }
  std::unique_ptr<BindingController> controller(kube::RestClient& with) {
    return std::make_unique<BindingController>(with, io.io().get_executor(),
                                               Informers{*fds, *rbs, *pps, *cpps, fos}, events);
  }
  void createPolicy() {
    create(res::kPropagationPolicies, kPolicy);
    caughtUp(*pps, "web-spread");
  }
  void createFederatedDeployment() {
    create(res::kFederatedDeployments, kFederatedDeployment);
    caughtUp(*fds, "web");
  }
  std::string key(const std::string& name) { return ns + "/" + name; }

  kube::SharedInformer *fds, *fos, *rbs, *pps, *cpps;
};

// What wakes the controller for a binding it wrote: not its own creation, not the scheduler's
// placement; a user's edit of its spec, and a new placement of a binding whose policy is gone
// (its PolicyBound message names the placement).
TEST(OwnBindingChanged, OnlyWhatTheControllerMustAnswer) {
  auto binding = [](int generation, const char* clusters, const char* replicas,
                    const char* policyBound) {
    json::object o = json::parse(std::string(R"({"metadata": {"name": "web", "generation": )") +
                                 std::to_string(generation) + R"(}, "spec": {"replicas": )" +
                                 replicas + R"(, "clusters": )" + clusters + "}}")
                         .as_object();
    if (*policyBound)
      o["status"] = json::object{
          {"conditions",
           json::array{json::object{{"type", "PolicyBound"}, {"status", policyBound}}}}};
    return std::make_shared<const json::object>(std::move(o));
  };
  const auto watch = ownBindingChanged();
  const auto created = binding(1, "[]", "6", "");
  EXPECT_FALSE(watch.create(created));
  const auto placed = binding(2, R"([{"name": "m1", "replicas": 6}])", "6", "");
  EXPECT_FALSE(watch.update(created, placed));  // the scheduler's write
  EXPECT_TRUE(watch.update(placed, binding(3, R"([{"name": "m1", "replicas": 6}])", "9", "")));
  const auto lost = binding(2, R"([{"name": "m1", "replicas": 6}])", "6", "False");
  EXPECT_TRUE(watch.update(lost, binding(3, R"([{"name": "m2", "replicas": 6}])", "6", "False")));
  EXPECT_FALSE(watch.update(lost, binding(2, R"([{"name": "m1", "replicas": 6}])", "6", "False")));
  EXPECT_FALSE(watch.remove);  // a deletion passes
}

TEST_F(BindingReconcilerTest, CreatesTheBindingOnceAndASecondPassWritesNothing) {
  createPolicy();
  createFederatedDeployment();
  auto reconciler = controller(*client);
  auto result = reconciler->reconcile(key("web"));
  ASSERT_TRUE(result) << result.error();

  auto rb = get(res::kResourceBindings, "web");
  ASSERT_FALSE(rb.empty()) << "no ResourceBinding was created";
  const auto& spec = rb.at("spec").as_object();
  // A FederatedDeployment's binding names the FederatedDeployment (docs/api-reference.md).
  EXPECT_EQ(spec.at("resource").at("kind"), "FederatedDeployment");
  EXPECT_EQ(spec.at("resource").at("name"), "web");
  EXPECT_EQ(spec.at("replicas"), 6);
  EXPECT_EQ(spec.at("policy").at("name"), "web-spread");
  EXPECT_EQ(spec.at("priority"), 10);
  EXPECT_FALSE(spec.contains("clusters")) << "spec.clusters is the scheduler's";
  const auto& owner = rb.at("metadata").at("ownerReferences").as_array().at(0).as_object();
  EXPECT_EQ(owner.at("kind"), "FederatedDeployment");
  EXPECT_EQ(owner.at("controller"), true);
  EXPECT_EQ(owner.at("uid"), get(res::kFederatedDeployments, "web").at("metadata").at("uid"));
  EXPECT_EQ(events.count("BindingCreated"), 1);

  caughtUp(*rbs, "web");
  const auto before = hostWrites();
  ASSERT_TRUE(reconciler->reconcile(key("web")));
  EXPECT_EQ(hostWrites(), before) << "a converged binding was written again";
  EXPECT_EQ(events.count("BindingCreated"), 1);
}

TEST_F(BindingReconcilerTest, APolicyChangeThatMeetsAConflictIsRetriedAndThenWritten) {
  createPolicy();
  createFederatedDeployment();
  ASSERT_TRUE(controller(*client)->reconcile(key("web")));
  caughtUp(*rbs, "web");
  auto policy = get(res::kPropagationPolicies, "web-spread");
  policy["spec"].as_object()["priority"] = 20;
  ASSERT_TRUE(io.run(client->update(res::kPropagationPolicies, policy)));
  caughtUp(*pps, "web-spread");

  // The update is answered 409: nothing written, the key comes back (a requeue, not a failure).
  auto conflicted = controller(conflictClient())->reconcile(key("web"));
  ASSERT_TRUE(conflicted) << conflicted.error();
  EXPECT_TRUE(conflicted->requeue || conflicted->requeueAfter.count() > 0);
  EXPECT_EQ(get(res::kResourceBindings, "web").at("spec").at("priority"), 10);

  ASSERT_TRUE(controller(*client)->reconcile(key("web")));
  EXPECT_EQ(get(res::kResourceBindings, "web").at("spec").at("priority"), 20);
}

TEST_F(BindingReconcilerTest, ACreateLostMidWayConvergesOnTheSameBinding) {
  createPolicy();
  createFederatedDeployment();
  // Committed, but the answer never came: the reconcile fails and the key is retried.
  auto lost = controller(droppingClient())->reconcile(key("web"));
  EXPECT_FALSE(lost) << "a write whose answer was lost was reported as done";
  auto rb = get(res::kResourceBindings, "web");
  ASSERT_FALSE(rb.empty()) << "the dropped create was not committed (fault not injected?)";
  const auto uid = rb.at("metadata").at("uid");

  caughtUp(*rbs, "web");
  const auto before = hostWrites();
  ASSERT_TRUE(controller(*client)->reconcile(key("web")));
  auto after = get(res::kResourceBindings, "web");
  EXPECT_EQ(after.at("metadata").at("uid"), uid) << "the binding was replaced";
  EXPECT_EQ(after.at("spec").at("policy").at("name"), "web-spread");
  // The status (PolicyBound) the lost pass never wrote is the only write left.
  EXPECT_LE(hostWrites() - before, 1u);
  caughtUp(*rbs, "web");
  const auto settled = hostWrites();
  ASSERT_TRUE(controller(*client)->reconcile(key("web")));
  EXPECT_EQ(hostWrites(), settled);
}

TEST_F(BindingReconcilerTest, AFederatedObjectIsBoundToTheObjectItCarries) {
  createPolicy();
  auto fo = testing::parseObject(R"({"apiVersion": "flotilla.io/v1alpha1",
    "kind": "FederatedObject", "metadata": {"name": "settings-configmap"},
    "spec": {"template": {"apiVersion": "v1", "kind": "ConfigMap",
      "metadata": {"name": "settings"}, "data": {"LOG_LEVEL": "info"}}}})");
  fo["spec"].as_object()["template"].as_object()["metadata"].as_object()["namespace"] = ns;
  create(*client, res::kFederatedObjects, fo);
  caughtUp(*fos, "settings-configmap");
  ASSERT_TRUE(controller(*client)->reconcile(key("settings-configmap")));
  auto rb = get(res::kResourceBindings, "settings-configmap");
  ASSERT_FALSE(rb.empty());
  EXPECT_EQ(rb.at("spec").at("resource").at("kind"), "ConfigMap");
  EXPECT_EQ(rb.at("spec").at("resource").at("name"), "settings");
  EXPECT_EQ(rb.at("spec").at("policy").at("name"), "web-spread");
  EXPECT_FALSE(rb.at("spec").as_object().contains("replicas") && rb.at("spec").at("replicas") != 0)
      << "a ConfigMap has no replicas to divide";
  EXPECT_EQ(rb.at("metadata").at("ownerReferences").at(0).at("kind"), "FederatedObject");
}

// A binding's status has several writers (docs/design.md §5): the binding controller's
// PolicyBound must not undo the scheduler's Scheduled condition or the sync controller's
// aggregatedStatus, even when its cache is behind.
TEST_F(BindingReconcilerTest, ItsStatusWriteKeepsWhatOtherControllersWrote) {
  createPolicy();
  createFederatedDeployment();
  ASSERT_TRUE(controller(*client)->reconcile(key("web")));
  auto rb = get(res::kResourceBindings, "web");
  if (!rb["status"].is_object()) rb["status"] = json::object{};
  auto& status = rb["status"].as_object();
  if (!status["conditions"].is_array()) status["conditions"] = json::array{};
  status["conditions"].as_array().push_back(testing::parseObject(
      R"({"type": "Scheduled", "status": "True", "reason": "Success", "message": "",
          "lastTransitionTime": "2026-01-01T00:00:00Z"})"));
  status["aggregatedStatus"] = json::array{
      testing::parseObject(R"({"clusterName": "member1", "applied": true, "propagation": "OK"})")};
  ASSERT_TRUE(io.run(client->updateStatus(res::kResourceBindings, rb)));
  // The policy goes: PolicyBound turns False. First from a cache that has not seen the other
  // writers (a 409, retried), then from one that has.
  ASSERT_TRUE(io.run(client->remove(res::kPropagationPolicies, ns, "web-spread")));
  caughtUp(*pps, "web-spread");
  (void)controller(*client)->reconcile(key("web"));
  caughtUp(*rbs, "web");
  ASSERT_TRUE(controller(*client)->reconcile(key("web")));
  rb = get(res::kResourceBindings, "web");
  std::map<std::string, std::string> conditions;
  for (const auto& c : rb.at("status").at("conditions").as_array())
    conditions[std::string(c.at("type").as_string())] = std::string(c.at("status").as_string());
  EXPECT_EQ(conditions["PolicyBound"], "False");
  EXPECT_EQ(conditions["Scheduled"], "True") << "the scheduler's condition was undone";
  ASSERT_TRUE(rb.at("status").as_object().contains("aggregatedStatus"))
      << "the sync controller's aggregatedStatus was undone";
  EXPECT_EQ(rb.at("status").at("aggregatedStatus").at(0).at("clusterName"), "member1");
}

TEST_F(BindingReconcilerTest, WithoutAPolicyNothingIsBound) {
  createFederatedDeployment();
  ASSERT_TRUE(controller(*client)->reconcile(key("web")));
  EXPECT_TRUE(get(res::kResourceBindings, "web").empty());
}

// Dependencies (docs/design.md §12): a ConfigMap the Deployment reads is bound without a policy,
// to the clusters of the Deployment's binding, and follows it when it moves.
TEST_F(BindingReconcilerTest, AFollowerIsBoundToItsLeadersClustersAndFollowsThem) {
  createPolicy();
  auto fd = testing::parseObject(kFederatedDeployment);
  fd["spec"]
      .as_object()["template"]
      .as_object()["spec"]
      .as_object()["template"]
      .as_object()["spec"]
      .as_object()["containers"]
      .as_array()[0]
      .as_object()["envFrom"] = json::parse(R"([{"configMapRef": {"name": "env"}}])");
  create(*client, res::kFederatedDeployments, fd);
  caughtUp(*fds, "web");
  dependencies::FollowerIndex index({*rbs, *fds, *fos}, {},
                                    [](const std::string&) { return true; });
  auto with = [&](kube::RestClient& c) {
    return std::make_unique<BindingController>(
        c, io.io().get_executor(),
        Informers{*fds, *rbs, *pps, *cpps, fos, nullptr, nullptr, &index}, events);
  };
  ASSERT_TRUE(with(*client)->reconcile(key("web")));
  // The scheduler places the Deployment on member1.
  auto leader = get(res::kResourceBindings, "web");
  leader["spec"].as_object()["clusters"] = json::parse(R"([{"name": "member1", "replicas": 6}])");
  ASSERT_TRUE(io.run(client->update(res::kResourceBindings, leader)));
  caughtUp(*rbs, "web");

  // A ConfigMap the Deployment reads (which the policy happens to select too: its binding has
  // both the policy's placement and the Deployment's requirement).
  auto fo = testing::parseObject(R"({"apiVersion": "flotilla.io/v1alpha1",
    "kind": "FederatedObject", "metadata": {"name": "env-configmap"},
    "spec": {"template": {"apiVersion": "v1", "kind": "ConfigMap",
      "metadata": {"name": "env"}, "data": {"MODE": "fast"}}}})");
  fo["spec"].as_object()["template"].as_object()["metadata"].as_object()["namespace"] = ns;
  create(*client, res::kFederatedObjects, fo);
  caughtUp(*fos, "env-configmap");
  ASSERT_TRUE(with(*client)->reconcile(key("env-configmap")));
  auto rb = get(res::kResourceBindings, "env-configmap");
  ASSERT_FALSE(rb.empty());
  const auto& required = rb.at("spec").at("requiredBy").as_array();
  ASSERT_EQ(required.size(), 1u);
  EXPECT_EQ(required[0].at("name"), "web");
  EXPECT_EQ(required[0].at("clusters"), json::parse(R"(["member1"])"));
  EXPECT_EQ(rb.at("spec").at("policy").at("name"), "web-spread");
  caughtUp(*rbs, "env-configmap");
  const auto before = writes(*client);
  ASSERT_TRUE(with(*client)->reconcile(key("env-configmap")));
  EXPECT_EQ(writes(*client), before) << "a second pass writes nothing";

  // The Deployment moves to member2: the follower's requirement follows.
  leader = get(res::kResourceBindings, "web");
  leader["spec"].as_object()["clusters"] = json::parse(R"([{"name": "member2", "replicas": 6}])");
  ASSERT_TRUE(io.run(client->update(res::kResourceBindings, leader)));
  caughtUp(*rbs, "web");
  ASSERT_TRUE(with(*client)->reconcile(key("env-configmap")));
  rb = get(res::kResourceBindings, "env-configmap");
  EXPECT_EQ(rb.at("spec").at("requiredBy").at(0).at("clusters"), json::parse(R"(["member2"])"));
}

}  // namespace
}  // namespace flotilla::controllers::binding
