// The scheduler controller's loop (queue → decide → write spec.clusters, then status) against an
// API server (controllers/testing/reconciler_env.h): a binding is placed on the clusters its
// policy allows, a settled binding is not written again, and a placement write that meets a 409
// or is lost mid-way ends in one placement with its Scheduled condition.
#include "controllers/scheduler/scheduler_controller.h"

#include <gtest/gtest.h>

#include "controllers/common/typed.h"
#include "controllers/testing/reconciler_env.h"
#include "kube/net/test_server.h"
#include "scheduler/schedule_type.h"

namespace flotilla::controllers::scheduler {
namespace {

namespace json = boost::json;
namespace res = resources;
using net::testing::eventually;
using namespace std::chrono_literals;

class SchedulerReconcilerTest : public testing::ReconcilerTest {
 protected:
  void SetUp() override {
    ReconcilerTest::SetUp();
    // Clusters of this test only (FederatedClusters are cluster-scoped; other tests add theirs).
    a = ns + "-a";
    b = ns + "-b";
    for (const auto& name : {a, b}) addCluster(name);
    rbs = &informer(res::kResourceBindings);
    clusters = &informer(res::kFederatedClusters);
    pps = &informer(res::kPropagationPolicies);
    cpps = &informer(res::kClusterPropagationPolicies);
    profiles = &informer(res::kSchedulingProfiles);
    extenders = &informer(res::kSchedulerExtenders);
    crbs = &informer(res::kClusterResourceBindings);
    for (const auto& name : {a, b}) caughtUp(*clusters, name);
  }
  void TearDown() override {
    if (scheduler) scheduler->stop();
    scheduler.reset();
    ReconcilerTest::TearDown();
  }
  void addCluster(const std::string& name) {
    json::object fc{
        {"apiVersion", "flotilla.io/v1alpha1"},
        {"kind", "FederatedCluster"},
        {"metadata", json::object{{"name", name}}},
        {"spec", json::object{{"apiEndpoint", "https://127.0.0.1:1"},
                              {"secretRef", json::object{{"namespace", "x"}, {"name", "y"}}}}}};
    fc = create(*client, res::kFederatedClusters, fc);
    fc["status"] = testing::parseObject(R"({
      "conditions": [{"type": "Ready", "status": "True", "reason": "ClusterReady", "message": "",
                      "lastTransitionTime": "2026-01-01T00:00:00Z"}],
      "apiEnablements": [{"groupVersion": "apps/v1",
                          "resources": [{"name": "deployments", "kind": "Deployment"}]},
                         {"groupVersion": "v1",
                          "resources": [{"name": "configmaps", "kind": "ConfigMap"}]}],
      "resources": {"allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110"},
                    "available": {"cpu": "8", "memory": "32Gi", "pods": "110"}},
      "nodeSummary": {"total": 1, "ready": 1}})");
    ASSERT_TRUE(io.run(client->updateStatus(res::kFederatedClusters, fc)));
  }
  void run(kube::RestClient& with,
           std::chrono::nanoseconds firstStatusGrace = std::chrono::milliseconds(300)) {
    if (scheduler) scheduler->stop();
    scheduler.reset();
    // No sync or status controller runs here to carry a first placement's status: the
    // scheduler's own backstop writes it, after a grace shortened for the test.
    scheduler = std::make_unique<SchedulerController>(
        with, io.io().get_executor(),
        Informers{*rbs, *clusters, *pps, *cpps, *profiles, *extenders, crbs}, events,
        SchedulerControllerOptions{.firstStatusGrace = firstStatusGrace});
    scheduler->start();
    // The informers run already (watch() registers handlers before they start): the binding is
    // queued by hand, as its event would have.
    scheduler->queue().add(ns + "/web", 0);
  }
  // A binding as the binding controller writes it: 4 replicas, Divided over this test's clusters.
  void createBinding() {
    auto rb = testing::parseObject(R"({"apiVersion": "flotilla.io/v1alpha1",
      "kind": "ResourceBinding", "metadata": {"name": "web"},
      "spec": {"resource": {"apiVersion": "flotilla.io/v1alpha1", "kind": "FederatedDeployment",
                            "name": "web", "uid": "u-1"},
               "replicas": 4,
               "replicaRequirements": {"resourceRequest": {"cpu": "100m"}},
               "policy": {"kind": "PropagationPolicy", "name": "p"},
               "placement": {"replicaScheduling": {"type": "Divided", "division": "Weighted"}}}})");
    auto& placement = rb["spec"].as_object()["placement"].as_object();
    placement["clusterAffinity"] =
        json::object{{"clusterNames", json::array{json::value(a), json::value(b)}}};
    rb["spec"].as_object()["resource"].as_object()["namespace"] = ns;
    create(*client, res::kResourceBindings, rb);
    caughtUp(*rbs, "web");
  }
  json::object binding() { return get(res::kResourceBindings, "web"); }
  static int64_t placed(const json::object& rb) {
    const auto* spec = rb.if_contains("spec");
    const auto* list = spec ? spec->as_object().if_contains("clusters") : nullptr;
    if (!list || !list->is_array()) return -1;
    int64_t sum = 0;
    for (const auto& c : list->as_array()) {
      const auto* r = c.as_object().if_contains("replicas");
      sum += r && r->is_int64() ? r->as_int64() : 0;
    }
    return sum;
  }
  static bool scheduledFor(const json::object& rb) {
    const auto* status = rb.if_contains("status");
    if (!status || !status->is_object()) return false;
    const auto* observed = status->as_object().if_contains("schedulerObservedGeneration");
    if (!observed || *observed != rb.at("metadata").at("generation")) return false;
    for (const auto& c : status->as_object().at("conditions").as_array())
      if (c.at("type") == "Scheduled") return c.at("status") == "True";
    return false;
  }

  std::string a, b;
  kube::SharedInformer *rbs, *clusters, *pps, *cpps, *profiles, *extenders, *crbs;
  std::unique_ptr<SchedulerController> scheduler;
};

TEST_F(SchedulerReconcilerTest, PlacesABindingOnItsClustersAndLeavesASettledOneAlone) {
  createBinding();
  run(*client);
  ASSERT_TRUE(eventually([&] { return scheduledFor(binding()); }, 20s))
      << json::serialize(binding());
  const auto rb = binding();
  EXPECT_EQ(placed(rb), 4);
  for (const auto& c : rb.at("spec").at("clusters").as_array())
    EXPECT_TRUE(c.at("name") == json::value(a) || c.at("name") == json::value(b))
        << "placed outside the policy's clusters: " << json::serialize(c);

  // Settled: queued again, nothing is written.
  caughtUp(*rbs, "web");
  const auto before = hostWrites();
  const auto cycle = scheduler->queue().schedulingCycle();
  scheduler->queue().add(ns + "/web", 0);
  ASSERT_TRUE(eventually([&] { return scheduler->queue().schedulingCycle() > cycle; }));
  scheduler->stop();  // joins the worker: the attempt is over
  EXPECT_EQ(hostWrites(), before) << "a settled binding was written again";
}

// A first placement leaves its status to the binding's next status write (the sync's): the
// scheduler writes spec.clusters and its record, and no status until its grace runs out.
TEST_F(SchedulerReconcilerTest, AFirstPlacementLeavesItsStatusToTheNextStatusWrite) {
  createBinding();
  run(*client, std::chrono::hours(1));
  ASSERT_TRUE(eventually([&] { return placed(binding()) == 4; }, 20s));
  scheduler->stop();
  const auto rb = binding();
  EXPECT_FALSE(scheduledFor(rb)) << json::serialize(rb);
  EXPECT_TRUE(rb.at("metadata")
                  .at("annotations")
                  .as_object()
                  .contains(flotilla::scheduler::kScheduleRecordAnnotation));
}

TEST_F(SchedulerReconcilerTest, APlacementThatMeetsAConflictIsWrittenOnTheNextAttempt) {
  createBinding();
  run(conflictClient());
  // The 409 keeps the binding unplaced (the write is retried with backoff, never half-done).
  ASSERT_TRUE(eventually([&] { return scheduler->queue().schedulingCycle() >= 1; }, 5s));
  scheduler->stop();  // joins the worker: the attempt is over
  EXPECT_EQ(placed(binding()), -1) << json::serialize(binding());
  run(*client);
  ASSERT_TRUE(eventually([&] { return scheduledFor(binding()); }, 20s))
      << json::serialize(binding());
  EXPECT_EQ(placed(binding()), 4);
}

TEST_F(SchedulerReconcilerTest, APlacementLostMidWayIsCompletedWithoutMovingReplicas) {
  createBinding();
  run(droppingClient());
  // spec.clusters committed, its answer lost: no status was written.
  ASSERT_TRUE(eventually([&] { return placed(binding()) == 4; }, 20s));
  scheduler->stop();
  const auto committed = binding();
  EXPECT_FALSE(scheduledFor(committed));
  caughtUp(*rbs, "web");
  run(*client);
  ASSERT_TRUE(eventually([&] { return scheduledFor(binding()); }, 20s))
      << json::serialize(binding());
  EXPECT_EQ(binding().at("spec").at("clusters"), committed.at("spec").at("clusters"))
      << "the placement moved when the lost write was completed";
  EXPECT_EQ(binding().at("metadata").at("generation"), committed.at("metadata").at("generation"));
}

}  // namespace
}  // namespace flotilla::controllers::scheduler
