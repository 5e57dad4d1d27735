// The cluster reconciler's read → probe → decide → write loop against a host and a member API
// server (controllers/testing/reconciler_env.h): a FederatedCluster whose Secret names it becomes
// Ready with the member's version, APIs and capacity; a probe that changes nothing writes
// nothing; a Secret that does not name its cluster is refused and said so; a status write that
// meets a 409 is written on the next pass.
#include "controllers/cluster/cluster_controller.h"

#include <gtest/gtest.h>

#include "api/base64.h"
#include "api/clock.h"
#include "controllers/common/member_registry.h"
#include "controllers/common/typed.h"
#include "controllers/testing/reconciler_env.h"
#include "kube/net/test_server.h"

namespace flotilla::controllers::cluster {
namespace {

namespace json = boost::json;
namespace res = resources;
using net::testing::eventually;
using namespace std::chrono_literals;

class ClusterReconcilerTest : public testing::ReconcilerTest {
 protected:
  void SetUp() override {
    ReconcilerTest::SetUp();
    name = ns + "-member";
    clusters = &informer(res::kFederatedClusters);
    registry = std::make_unique<AsioMemberRegistry>(io.io().get_executor());
  }
  void TearDown() override {
    registry->stopAll();
    ReconcilerTest::TearDown();
  }
  void registerMember(const std::string& secretNamesCluster) {
    const auto& member = testing::ReconcilerEnv::get().member();
    json::object secret{
        {"apiVersion", "v1"},
        {"kind", "Secret"},
        {"metadata",
         json::object{{"name", "credentials"},
                      {"annotations", json::object{{"flotilla.io/cluster", secretNamesCluster}}}}},
        {"data", json::object{{"token", api::base64Encode(member.token)},
                              {"caBundle", api::base64Encode(member.caPem)}}}};
    create(*client, res::kSecrets, secret);
    json::object fc{
        {"apiVersion", "flotilla.io/v1alpha1"},
        {"kind", "FederatedCluster"},
        {"metadata", json::object{{"name", name}}},
        {"spec",
         json::object{{"apiEndpoint", member.server},
                      {"secretRef", json::object{{"namespace", ns}, {"name", "credentials"}}}}}};
    create(*client, res::kFederatedClusters, fc);
    caughtUp(*clusters, name);
  }
  std::unique_ptr<ClusterController> controller(kube::RestClient& with) {
    ClusterControllerOptions options;
    options.probeThreshold = 1;
    options.probePeriod = 1s;
    options.clock = &clock;
    return std::make_unique<ClusterController>(with, io.io().get_executor(), *clusters, *registry,
                                               events, options);
  }
  // Reconciles (a probe per second of the fake clock) until `done`.
  template <class F>
  bool reconcileUntil(ClusterController& c, F done) {
    return eventually(
        [&] {
          clock.advance(1s);
          auto r = c.reconcile(name);
          EXPECT_TRUE(r) << r.error();
          caughtUp(*clusters, name);
          return done(get(res::kFederatedClusters, name));
        },
        20s);
  }
  static std::string ready(const json::object& fc) {
    const auto* status = fc.if_contains("status");
    const auto* conditions = status ? status->as_object().if_contains("conditions") : nullptr;
    if (!conditions) return "";
    for (const auto& c : conditions->as_array())
      if (c.at("type") == "Ready")
        return std::string(c.at("status").as_string()) + "/" +
               std::string(c.at("reason").as_string());
    return "";
  }

  std::string name;
  const kube::SharedInformer* clusters;
  std::unique_ptr<AsioMemberRegistry> registry;
  api::FakeSteadyClock clock;
};

TEST_F(ClusterReconcilerTest, AMemberBecomesReadyWithWhatItServesAndAQuietProbeWritesNothing) {
  registerMember(name);
  auto c = controller(*client);
  // Ready comes from the probe; capacity comes once the member's node and pod caches have
  // synced, which can be a pass later, so wait for both.
  ASSERT_TRUE(reconcileUntil(*c, [](const json::object& fc) {
    const auto* status = fc.if_contains("status");
    return ready(fc).rfind("True/", 0) == 0 && status &&
           status->as_object().if_contains("nodeSummary") &&
           status->as_object().if_contains("resources") &&
           status->as_object().if_contains("kubernetesVersion");
  })) << json::serialize(get(res::kFederatedClusters, name));
  const auto fc = get(res::kFederatedClusters, name);
  const auto& status = fc.at("status").as_object();
  EXPECT_FALSE(status.at("kubernetesVersion").as_string().empty());
  bool apps = false;
  for (const auto& e : status.at("apiEnablements").as_array())
    apps = apps || e.at("groupVersion") == "apps/v1";
  EXPECT_TRUE(apps) << "apps/v1 is not among the member's APIs";
  EXPECT_EQ(status.at("resources").at("allocatable").at("cpu"), "8");
  EXPECT_EQ(status.at("nodeSummary").at("total"), 1);
  EXPECT_TRUE(registry->get(name)) << "no connection was registered";

  // More probes that find the same member: nothing to write.
  ASSERT_TRUE(reconcileUntil(*c, [&](const json::object&) { return true; }));
  const auto before = hostWrites();
  for (int i = 0; i < 3; ++i) {
    clock.advance(1s);
    ASSERT_TRUE(c->reconcile(name));
  }
  EXPECT_EQ(hostWrites(), before) << "a probe that found nothing new was written";
}

TEST_F(ClusterReconcilerTest, ASecretThatDoesNotNameItsClusterIsRefused) {
  registerMember("another-cluster");
  auto c = controller(*client);
  ASSERT_TRUE(reconcileUntil(*c, [](const json::object& fc) { return !ready(fc).empty(); }));
  const auto fc = get(res::kFederatedClusters, name);
  EXPECT_EQ(ready(fc).substr(0, 6), "False/") << json::serialize(fc);
  EXPECT_FALSE(registry->get(name)) << "a connection was built from a Secret for another cluster";
}

TEST_F(ClusterReconcilerTest, AStatusWriteThatMeetsAConflictIsWrittenOnTheNextPass) {
  registerMember(name);
  auto conflicted = controller(conflictClient());
  for (int i = 0; i < 5; ++i) {
    clock.advance(1s);
    auto r = conflicted->reconcile(name);
    ASSERT_TRUE(r) << r.error();
  }
  EXPECT_EQ(ready(get(res::kFederatedClusters, name)), "") << "a write answered 409 was done";
  auto c = controller(*client);
  EXPECT_TRUE(
      reconcileUntil(*c, [](const json::object& fc) { return ready(fc).rfind("True/", 0) == 0; }));
}

}  // namespace
}  // namespace flotilla::controllers::cluster
